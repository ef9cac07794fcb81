// Known-answer vectors for Razorpay, checked by the official `razorpay` SDK's
// Razorpay.validateWebhookSignature (it only verifies: each request is built
// here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import Razorpay from 'razorpay';

const SECRET = 'razorpay-test-webhook-secret-012';
const OTHER = 'razorpay-other-webhook-secret-98';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/razorpay';
const SIG_HEADER = 'X-Razorpay-Signature';
const EVENT_ID = 'LJVsXLMaQk0Nu2';
const EVENT_TYPE = 'payment.captured';
// The documented payload shape: https://razorpay.com/docs/webhooks/payloads/payments/
const BODY = JSON.stringify({
  entity: 'event',
  account_id: 'acc_BFQ7uQEaa7j2z7',
  event: 'payment.captured',
  contains: ['payment'],
  payload: { payment: { entity: { id: 'pay_DESlfW9H8K9uqM', entity: 'payment', amount: 100, currency: 'INR', status: 'captured', order_id: 'order_DESlLckIVRkHWj', method: 'upi' } } },
  created_at: 1699999995,
});
const FLIP_FROM = '"captured"';
const FLIP_TO = '"capturex"';

const sign = (secret) => crypto.createHmac('sha256', secret).update(BODY).digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], ['X-Razorpay-Event-Id', EVENT_ID]];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => Razorpay.validateWebhookSignature(c.body, header(c, SIG_HEADER), secret);
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
  kind: 'razorpay',
  source: {
    kind: 'sdk', package: 'razorpay', registry: 'npm', version: '2.9.8',
    function: 'Razorpay.validateWebhookSignature',
    url: 'https://razorpay.com/docs/webhooks/validate-test/',
  },
  facts: {
    title: 'Razorpay',
    docs: 'https://razorpay.com/docs/webhooks/validate-test/',
    scheme: 'X-Razorpay-Signature = hex HMAC-SHA256(webhook secret, raw body)',
    secret: 'the webhook secret the user typed when creating the webhook in the dashboard, used as UTF-8 bytes',
    timestamp: null,
    event_id: { header: 'X-Razorpay-Event-Id' },
    event_id_note: 'x-razorpay-event-id is the same on every retry of an event; Razorpay documents it for de-duplication: https://razorpay.com/docs/webhooks/best-practices/',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'retried with exponential backoff for 24 hours, after which the webhook is disabled',
    retry_source: 'https://razorpay.com/docs/webhooks/best-practices/',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`razorpay: ${cases.length} cases`);
