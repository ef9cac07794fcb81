// Known-answer vectors for OpenAI webhooks, checked by the official `openai`
// SDK. The SDK only verifies, so each request is built here and
// client.webhooks.verifySignature decides its verdict.
import fs from 'node:fs';
import crypto from 'node:crypto';
import OpenAI from 'openai';

const SECRET = 'whsec_' + Buffer.from('openai-test-secret-0123456789abcd').toString('base64');
const OTHER = 'whsec_' + Buffer.from('openai-other-secret-9876543210zyx').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/openai';
const [H_ID, H_TS, H_SIG] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const MSG_ID = 'wh_685342e6c53c8190a1be43f081506c52';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'response.completed';
// The documented event shape: https://platform.openai.com/docs/guides/webhooks
const BODY = JSON.stringify({
  object: 'event',
  id: 'evt_685343a1381c819085d44c354e1b330e',
  type: 'response.completed',
  created_at: 1699999990,
  data: { id: 'resp_abc123' },
});

// Standard Webhooks request builder shared by the cases below: webhook-id,
// webhook-timestamp and webhook-signature ("v1,<base64 HMAC-SHA256>" over
// id + "." + timestamp + "." + body, keyed with the base64 after "whsec_").
const key = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const sign = (secret, id, ts, b) => 'v1,' + crypto.createHmac('sha256', key(secret)).update(`${id}.${ts}.${b}`).digest('base64');
function request({ ts = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [H_ID, MSG_ID], [H_TS, String(ts)]];
  if (!drop) headers.push([H_SIG, signWith.map((s) => sign(s, MSG_ID, ts, BODY)).join(' ')]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(/"type":"(.)/, (m, ch) => m.slice(0, -1) + (ch === 'x' ? 'y' : 'x'));
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ ts: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ ts: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two signatures during rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const client = new OpenAI({ apiKey: 'unused' });
const verify = (c, secret) => client.webhooks.verifySignature(c.body, headerMap(c), secret, c.tolerance);
const classify = (e) =>
  /Missing required header: webhook-signature/.test(e.message) ? 'missing_signature'
  : /too old|too new/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /does not match/.test(e.message) ? 'invalid_signature'
  : null;
// Run the SDK's verifier with the clock fixed at the case's `now`, trying the
// tenant's secrets one at a time; the script stops on any disagreement, and on
// any error the SDK's own messages do not explain.
const headerMap = (c) => Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
async function sdkVerdict(c) {
  const RealDate = Date;
  const fixed = c.now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try {
    let last = null;
    for (const secret of c.secrets) {
      try {
        if ((await verify(c, secret)) === false) throw new Error('verifier returned false');
        return 'valid';
      } catch (e) {
        last = e;
      }
    }
    const verdict = classify(last);
    if (!verdict) throw last;
    return verdict;
  } finally {
    globalThis.Date = RealDate;
  }
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'openai',
  source: {
    kind: 'sdk', package: 'openai', registry: 'npm', version: '7.57.0',
    function: 'OpenAI#webhooks.verifySignature',
    url: 'https://platform.openai.com/docs/guides/webhooks',
  },
  facts: {
    title: 'OpenAI',
    docs: 'https://platform.openai.com/docs/guides/webhooks',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body)>"',
    secret: 'the endpoint signing secret as the dashboard shows it, "whsec_<base64>"; the key is the base64-decoded part',
    timestamp: 'webhook-timestamp, unix seconds, signed; SDK default tolerance 300 s, both directions',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is the same on every retry of a delivery and is the documented idempotency key (the body /id is the event ID): https://platform.openai.com/docs/guides/webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'retried with exponential backoff for up to 72 hours',
    retry_source: 'https://platform.openai.com/docs/guides/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`openai: ${cases.length} cases`);
