// Known-answer vectors for Replicate, checked by the official `replicate`
// SDK's validateWebhook (it only verifies: each request is built here and the
// SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { validateWebhook } from 'replicate';

const SECRET = 'whsec_' + Buffer.from('replicate-test-secret-0123456789').toString('base64');
const OTHER = 'whsec_' + Buffer.from('replicate-other-secret-987654321').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/replicate';
const [H_ID, H_TS, H_SIG] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const SIG_HEADER = H_SIG;
const MSG_ID = 'msg_2YdX0BYbN8GQ2ZwHgLy9T0tH4fE';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'succeeded';
// The documented body, a prediction: https://replicate.com/docs/topics/webhooks
const BODY = JSON.stringify({
  id: 'ufawqhfynnddngldkgtslldrkq',
  model: 'replicate/hello-world',
  version: '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa',
  input: { text: 'Alice' },
  logs: '',
  output: 'hello Alice',
  error: null,
  status: 'succeeded',
  created_at: '2023-11-14T22:13:10.000000Z',
  urls: { get: 'https://api.replicate.com/v1/predictions/ufawqhfynnddngldkgtslldrkq', cancel: 'https://api.replicate.com/v1/predictions/ufawqhfynnddngldkgtslldrkq/cancel' },
});

const key = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const sign = (secret, ts) => 'v1,' + crypto.createHmac('sha256', key(secret)).update(`${MSG_ID}.${ts}.${BODY}`).digest('base64');
function request({ at = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [H_ID, MSG_ID], [H_TS, String(at)]];
  if (!drop) headers.push([H_SIG, signWith.map((s) => sign(s, at)).join(' ')]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const flip = (b) => b.replace('"succeeded"', '"succeedex"');
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  // The SDK checks no timestamp; hookline does, as Replicate's docs advise (NOTES.md).
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'two signatures during rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => validateWebhook({ headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])), body: c.body }, secret);
// The SDK's verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'replicate',
  source: {
    kind: 'sdk', package: 'replicate', registry: 'npm', version: '1.4.0',
    function: 'validateWebhook',
    url: 'https://replicate.com/docs/topics/webhooks/verify-webhook',
  },
  facts: {
    title: 'Replicate',
    docs: 'https://replicate.com/docs/topics/webhooks/verify-webhook',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body)>"',
    secret: 'the account webhook signing secret, "whsec_<base64>", from GET /v1/webhooks/default/secret; the key is the base64 part',
    timestamp: 'webhook-timestamp, unix seconds, signed; the docs advise rejecting old timestamps, the SDK checks none',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id identifies one webhook message and is kept on retries; each prediction status change is its own message: https://replicate.com/docs/topics/webhooks/verify-webhook',
    event_type: { json_pointer: '/status' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://replicate.com/docs/topics/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`replicate: ${cases.length} cases`);
