// Known-answer vectors for Lithic, checked by the official `lithic` SDK's
// webhooks.verifySignature (Standard Webhooks; it only verifies, so each
// request is built here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import Lithic from 'lithic';

const SECRET = 'whsec_' + Buffer.from('lithic-test-webhook-secret-01234').toString('base64');
const OTHER = 'whsec_' + Buffer.from('lithic-other-webhook-secret-9876').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/lithic';
const [H_ID, H_TS, H_SIG] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const MSG_ID = 'msg_2YdZ0b1T3mPqW8cV7xR5nJ4kL6h';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'card.created';
// The documented event shape: https://docs.lithic.com/docs/events-api
const BODY = JSON.stringify({
  token: 'a8b2c3d4-0e1f-4a5b-8c9d-0e1f2a3b4c5d',
  event_type: 'card.created',
  created: '2023-11-14T22:13:15Z',
  payload: { card_token: '7ef7d65c-9023-4da3-b113-3b8583fd7951' },
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
const flip = (b) => b.replace(/"event_type":"(.)/, (m, ch) => m.slice(0, -1) + (ch === 'x' ? 'y' : 'x'));
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

const lithic = new Lithic({ apiKey: 'unused' });
const verify = (c, secret) => lithic.webhooks.verifySignature(c.body, headerMap(c), secret);
const classify = (e) =>
  /Could not find webhook-signature header/.test(e.message) ? 'missing_signature'
  : e.name === 'WebhookVerificationError' && /too old|too new/.test(e.message) ? 'timestamp_out_of_tolerance'
  : e.name === 'WebhookVerificationError' && /No matching signature/.test(e.message) ? 'invalid_signature'
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
  kind: 'lithic',
  source: {
    kind: 'sdk', package: 'lithic', registry: 'npm', version: '0.145.0',
    function: 'Lithic#webhooks.verifySignature (standardwebhooks 1.1.1 underneath)',
    url: 'https://docs.lithic.com/docs/events-api',
  },
  facts: {
    title: 'Lithic',
    docs: 'https://docs.lithic.com/docs/events-api',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body)>"',
    secret: 'the event subscription\'s secret, "whsec_<base64>", from the dashboard or GET /v1/event_subscriptions/{token}/secret',
    timestamp: 'webhook-timestamp, unix seconds, signed; tolerance 300 s both directions',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is the message ID, kept on retries (the body /token is the event token): https://docs.lithic.com/docs/events-api',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://docs.lithic.com/docs/events-api',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`lithic: ${cases.length} cases`);
