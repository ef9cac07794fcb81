// Known-answer vectors for Dodo Payments webhooks (Standard Webhooks): signed with
// standardwebhooks' Webhook.sign, the library the official SDK verifies with, and
// every verdict from the official SDK's client.webhooks.unwrap (dodopayments).
import { writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import DodoPayments from 'dodopayments';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/dodo/acme';
const MSG_ID = 'msg_2fY3sTqLk9pV8wX1zR4nB7cD0eH';
// A payment.succeeded event in the documented envelope: business_id, type, timestamp, data.
const BODY = JSON.stringify({
  business_id: 'bus_9Xh2kLm4Pq7Rt1Vw', type: 'payment.succeeded', timestamp: '2023-11-14T22:13:17.842Z',
  data: { payload_type: 'Payment', payment_id: 'pay_3Nc8Zt5Yq2Wm6Kp1', total_amount: 4900, currency: 'USD', status: 'succeeded',
    customer: { customer_id: 'cus_7Lm2Qx9Rb4Tz', email: 'jane@example.com', name: 'Jane Doe' }, created_at: '2023-11-14T22:13:15.101Z' },
});
const TAMPERED = BODY.replace('4900', '4901');

const sign = (secret, ts, body) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['webhook-id', MSG_ID], ['webhook-timestamp', String(ts)], ['webhook-signature', sigs.join(' ')]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const key of c.secrets) {
      const client = new DodoPayments({ bearerToken: 'unused', webhookKey: key });
      try {
        client.webhooks.unwrap(c.body, { headers: Object.fromEntries(c.headers) });
        return 'valid';
      } catch (e) {
        if (e.message === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (e.message !== 'No matching signature found') throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'webhook-signature') });
const ts = NOW - 2;
const ok = { event_id: MSG_ID, event_type: 'payment.succeeded' };
const cases = [
  { name: 'payment.succeeded signed by standardwebhooks, accepted by webhooks.unwrap', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: webhook-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the old secret, still configured second, verifies during its 24 hours', secrets: [SECRET, OLD], ...req([sign(OLD, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another secret key', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.dodopayments.com/developer-resources/webhooks';
const out = {
  kind: 'dodo-payments',
  source: { kind: 'sdk', package: 'dodopayments', registry: 'npm', version: '2.52.0',
    function: 'client.webhooks.unwrap (new Webhook(webhookKey).verify, standardwebhooks 1.1.1); signed with Webhook.sign', url: DOCS },
  facts: {
    title: 'Dodo Payments',
    docs: DOCS,
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Secret Key from the Dodo Payments dashboard (Settings > Webhooks), "whsec_" + base64; the HMAC key is the base64-decoded part. After Rotate Secret the old one stays valid for 24 hours',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way (standardwebhooks)',
    event_id: { header: 'webhook-id' },
    event_id_note: '"Each webhook event contains a unique webhook-id header. Use this to implement idempotency" (retries keep it): ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'exponential backoff; the older page: at most 10 retries, first after 6 s, at most 6 hours apart',
    retry_source: 'https://docs.dodopayments.com/features/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
