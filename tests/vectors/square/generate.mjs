// Known-answer vectors for Square, checked by the official `square` SDK's
// WebhooksHelper.verifySignature (it only verifies: each request is built here
// and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { WebhooksHelper } from 'square';

const SECRET = 'sq0wss-TestSignatureKey0123456789ab';
const OTHER = 'sq0wss-OtherSignatureKey987654321zy';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/square?tenant=acme';
const SIG_HEADER = 'x-square-hmacsha256-signature';
const EVENT_ID = '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc';
const EVENT_TYPE = 'payment.updated';
// The documented event shape: https://developer.squareup.com/docs/webhooks/overview
const BODY = JSON.stringify({
  merchant_id: '6SSW7HV8K2ST5',
  type: 'payment.updated',
  event_id: EVENT_ID,
  created_at: '2023-11-14T22:13:15.000Z',
  data: { type: 'payment', id: 'KkAkhdMsgzn59SM8A89WgKwekxLZY', object: { payment: { id: 'KkAkhdMsgzn59SM8A89WgKwekxLZY', status: 'COMPLETED', amount_money: { amount: 100, currency: 'USD' } } } },
});
const FLIP_FROM = '"COMPLETED"';
const FLIP_TO = '"COMPLETEX"';

// Square signs the notification URL it was configured with, then the body.
const sign = (secret, url) => crypto.createHmac('sha256', secret).update(url + BODY).digest('base64');
function request({ b = BODY, drop = false, url = URL, signedUrl = URL } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET, signedUrl)]);
  return { method: 'POST', url, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'signed for another notification URL (query string differs)', secrets: [SECRET], ...request({ signedUrl: 'https://hooks.example.com/webhooks/square?tenant=other' }), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => WebhooksHelper.verifySignature({ requestBody: c.body, signatureHeader: header(c, SIG_HEADER), signatureKey: secret, notificationUrl: c.url });
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
  kind: 'square',
  source: {
    kind: 'sdk', package: 'square', registry: 'npm', version: '46.0.0',
    function: 'WebhooksHelper.verifySignature',
    url: 'https://developer.squareup.com/docs/webhooks/step3validate',
  },
  facts: {
    title: 'Square',
    docs: 'https://developer.squareup.com/docs/webhooks/step3validate',
    scheme: 'x-square-hmacsha256-signature = base64 HMAC-SHA256(signature key, notification URL + raw body)',
    secret: "the subscription's Signature Key as the Developer Console shows it, used as UTF-8 bytes",
    timestamp: null,
    event_id: { json_pointer: '/event_id' },
    event_id_note: 'event_id is the same on every retry; Square documents it for de-duplication: https://developer.squareup.com/docs/webhooks/step4manage',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'retried with exponential backoff for up to 24 hours',
    retry_source: 'https://developer.squareup.com/docs/webhooks/step4manage',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`square: ${cases.length} cases`);
