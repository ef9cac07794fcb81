// Known-answer vectors for Cashfree Payments (PG) webhooks: every verdict from the
// official SDK's Cashfree#PGVerifyWebhookSignature (cashfree-pg). The SDK has no
// signer; the signatures are the base64 HMAC-SHA256 it recomputes, and each case is
// kept only because the SDK agrees with its expectation.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import cf from 'cashfree-pg';
import { withIdentity, withLateCopy } from '../identity.mjs';

const { Cashfree, CFEnvironment } = cf;
const NOW = 1700000000;
const CLIENT_ID = 'TEST1029384756abcdef';
const SECRET = 'cfsk_ma_test_8f2b6c1d9e3a7f4b5c0d2e6a9b1c3d7e_4f8a2b6c';
const OTHER = 'cfsk_ma_test_0a1b2c3d4e5f60718293a4b5c6d7e8f9_9a8b7c6d';
const HOOK_URL = 'https://hooks.example.com/webhooks/cashfree/acme';
// The docs' Payment Success Webhook version 3 (2023-08-01) sample, trimmed.
const BODY = JSON.stringify({
  data: {
    order: { order_id: 'order_OFR_2', order_amount: 2, order_currency: 'INR', order_tags: null },
    payment: { cf_payment_id: '1453002795', payment_status: 'SUCCESS', payment_amount: 1, payment_currency: 'INR', payment_message: '00::Transaction success',
      payment_time: '2022-12-15T12:20:29+05:30', bank_reference: '234928698581', auth_id: null,
      payment_method: { upi: { channel: null, upi_id: '9611199227@paytm' } }, payment_group: 'upi' },
    customer_details: { customer_name: null, customer_id: '7112AAA812234', customer_email: 'customer@example.com', customer_phone: '9908734801' },
  },
  event_time: '2023-08-01T11:16:10+05:30',
  type: 'PAYMENT_SUCCESS_WEBHOOK',
});
const TAMPERED = BODY.replace('"payment_amount":1', '"payment_amount":9');

// Cashfree sends x-webhook-timestamp in milliseconds.
const tsMs = (s) => String(s * 1000 + 733);
const sign = (secret, ts, body) => createHmac('sha256', secret).update(ts + body).digest('base64');
const headersFor = (sig, ts) => [['Content-Type', 'application/json'], ['x-webhook-attempt', '1'], ['x-webhook-timestamp', ts], ['x-webhook-version', '2023-08-01'], ['x-webhook-signature', sig]];

function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (h['x-webhook-signature'] === undefined) return 'missing_signature';
  for (const secret of c.secrets) {
    // The last argument switches off the SDK's Sentry error reporting.
    const client = new Cashfree(CFEnvironment.SANDBOX, CLIENT_ID, secret, undefined, undefined, undefined, false);
    try {
      client.PGVerifyWebhookSignature(h['x-webhook-signature'], c.body, h['x-webhook-timestamp']);
      return 'valid';
    } catch (e) {
      if (e.message !== 'Generated signature and received signature did not match.') throw e;
    }
  }
  return 'invalid_signature';
}

const req = (sig, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig, ts), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-webhook-signature') });
const ts = tsMs(NOW - 2);
const sig = sign(SECRET, ts, BODY);
const ok = { event_type: 'PAYMENT_SUCCESS_WEBHOOK' };
const cases = [
  { name: 'PAYMENT_SUCCESS_WEBHOOK signed with the client secret, accepted by PGVerifyWebhookSignature', secrets: [SECRET], ...req(sig, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured client secret verifies', secrets: [OTHER, SECRET], ...req(sig, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'x-webhook-timestamp changed after signing (it is signed)', secrets: [SECRET], ...req(sig, tsMs(NOW - 1)), expect: 'invalid_signature' },
  { name: 'verified with another client secret', secrets: [OTHER], ...req(sig, ts), expect: 'invalid_signature' },
  { name: 'x-webhook-signature removed', secrets: [SECRET], ...strip(req(sig, ts)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.cashfree.com/docs/payment-webhooks';
const out = {
  kind: 'cashfree',
  source: { kind: 'sdk', package: 'cashfree-pg', registry: 'npm', version: '6.0.6',
    function: 'Cashfree#PGVerifyWebhookSignature(signature, rawBody, timestamp)', url: DOCS },
  facts: {
    title: 'Cashfree Payments',
    docs: DOCS,
    scheme: 'x-webhook-signature = base64(HMAC-SHA256(client secret as UTF-8, x-webhook-timestamp + raw body)); the timestamp is prepended with no separator',
    secret: 'the client secret of the API key pair (Developers > API Keys); the docs say to use the oldest active key pair',
    timestamp: 'x-webhook-timestamp, unix milliseconds, signed but not checked by the SDK (no tolerance)',
    event_id: { body_sha256: true },
    event_id_note: 'the payload has no event ID; Cashfree sends a hashed idempotency header that is "unique for each unique webhook payload", i.e. the same role as the body\'s SHA-256: ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withLateCopy(out, 306, "the SDK checks none; the definition's tolerance is 300 s");
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
