// Known-answer vectors for Paddle Billing, checked by the official
// @paddle/paddle-node-sdk. The SDK only verifies (Webhooks#isSignatureValid),
// so each request is built here and the SDK decides its verdict.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { Paddle } from '@paddle/paddle-node-sdk';

const SECRET = 'pdl_ntfset_01hf0qz2y2g7q9n1x3v5b7d9f1_TESTsecretKEY0123456789abcdefGH';
const OTHER = 'pdl_ntfset_01hf0qz2y2g7q9n1x3v5b7d9f2_OTHERsecretKEY9876543210zyxwvU';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/paddle';
const SIG_HEADER = 'Paddle-Signature';
// The documented event shape: https://developer.paddle.com/webhooks/overview
const BODY = JSON.stringify({
  event_id: 'evt_01hf0r1r7a3s4xq2c6m0v8n9b2',
  event_type: 'transaction.completed',
  occurred_at: '2023-11-14T22:13:18.000000Z',
  notification_id: 'ntf_01hf0r1rc9cq3tq9m1a8g5e7d4',
  data: { id: 'txn_01hf0qzt3kn2f2cq8x7w2r4m5b', status: 'completed', currency_code: 'USD', customer_id: 'ctm_01hf0qz9d8kq1m2n3b4v5c6x7z' },
});
const EVENT_ID = 'evt_01hf0r1r7a3s4xq2c6m0v8n9b2';
const EVENT_TYPE = 'transaction.completed';

const h1 = (secret, ts) => crypto.createHmac('sha256', secret).update(`${ts}:${BODY}`).digest('hex');
function request({ at = NOW - 2, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, [`ts=${at}`, ...signWith.map((s) => `h1=${h1(s, at)}`)].join(';')]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const flip = (b) => b.replace('"completed"', '"completex"');
const cases = [
  { name: 'valid h1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Paddle-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 6 s old (Paddle recommends 5 s)', secrets: [SECRET], ...request({ at: NOW - 6 }), expect: 'timestamp_out_of_tolerance' },
  // The SDK refuses only old timestamps; hookline refuses future ones too (NOTES.md).
  { name: 'timestamp 6 s in the future', secrets: [SECRET], ...request({ at: NOW + 6 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'two h1 entries during secret rotation, the last matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 5, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const paddle = new Paddle('pdl_sdbx_apikey_unused');
const verify = (c, secret) => paddle.webhooks.isSignatureValid(c.body, secret, header(c, SIG_HEADER));
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
  kind: 'paddle',
  source: {
    kind: 'sdk', package: '@paddle/paddle-node-sdk', registry: 'npm', version: '3.10.0',
    function: 'Paddle#webhooks.isSignatureValid',
    url: 'https://developer.paddle.com/webhooks/signature-verification',
  },
  facts: {
    title: 'Paddle Billing',
    docs: 'https://developer.paddle.com/webhooks/signature-verification',
    scheme: 'Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256(secret, ts + ":" + raw body)>; during secret rotation several h1= entries, any may match',
    secret: "the notification destination's secret key as the dashboard shows it (pdl_ntfset_...), used as UTF-8 bytes",
    timestamp: 'the ts= value of Paddle-Signature, unix seconds, signed; Paddle recommends a 5 s tolerance (the SDK uses 5 s)',
    event_id: { json_pointer: '/event_id' },
    event_id_note: 'event_id is the event; notification_id is one notification of it to one destination, kept across its retries: https://developer.paddle.com/webhooks/overview',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'live: 60 attempts over 3 days; sandbox: 3 attempts within 15 minutes',
    retry_source: 'https://developer.paddle.com/webhooks/respond-to-webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`paddle: ${cases.length} cases`);
