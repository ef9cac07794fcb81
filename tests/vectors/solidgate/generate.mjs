// Known-answer vectors for Solidgate webhooks, signed with the official SDK's
// own signing function: @solidgate/node-sdk 1.4.1, Api._generateSignature,
//   base64( hex( HMAC-SHA512(secretKey, publicKey + body + publicKey) ) )
// which Solidgate's docs name for webhooks: "Generate a signature from the raw
// request body using the same generateSignature function you use for API
// requests" (https://api-docs.solidgate.com/api/openapi/main/md/webhook-signatures),
// with the webhook key pair (`merchant` header = the wh_pk_ public key).
// The SDK has no verify function, so every verdict is: does the SDK's signature
// for the case's body and one of its key pairs equal the `signature` header?
import { writeFileSync } from 'node:fs';
import sdk from '@solidgate/node-sdk';

const { Api } = sdk;
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/solidgate';
// A tenant secret is the webhook key pair as `PUBLIC:SECRET` (hookline's
// key_id_header: the `merchant` header names the public key that signed).
const PK = 'wh_pk_4d2b5e6c-1f0a-4b8e-9c3d-2a7f1e6b9c01';
const SK = 'wh_sk_8f3a1c9e-7b2d-4e6f-a0c5-3d9b8e1f2a47';
const OTHER_SK = 'wh_sk_0c1d2e3f-4a5b-4c6d-8e9f-a0b1c2d3e4f5';
const OLD_PK = 'wh_pk_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const OLD_SK = 'wh_sk_1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e';
const EVENT_ID = 'b0c6e1f4-2a9d-4c7e-8f13-5d6a7b8c9e01';
const EVENT_TYPE = 'card_gate.order.updated';
// An illustrative card order update (order + transaction objects); the
// signature covers whatever bytes are sent, so the exact fields do not matter.
const BODY = JSON.stringify({
  order: {
    order_id: 'order-2023-11-14-0001', amount: 1020, currency: 'USD', status: 'settle_ok',
    processing_amount: 1020, processing_currency: 'USD', descriptor: 'EXAMPLE SHOP',
    customer_email: 'jane.doe@example.com', created_at: '2023-11-14 22:10:01', updated_at: '2023-11-14 22:13:15',
  },
  transaction: { id: '7a9f3c1e2b4d', operation: 'pay', status: 'success', amount: 1020, currency: 'USD',
    card: { bin: '444455', number: '444455XXXXXX1111', card_holder: 'JANE DOE', brand: 'VISA', country: 'USA' } },
});
const FLIP = (b) => b.replace('"settle_ok"', '"settle_ik"');

const sign = (pk, sk, body) => new Api(pk, sk)._generateSignature(body);
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name)?.[1];
function request({ pk = PK, sk = SK, body = BODY, drop = false } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['merchant', pk],
    ['solidgate-event-id', EVENT_ID],
    ['solidgate-event-type', EVENT_TYPE],
    ['solidgate-event-created-at', '2023-11-14 22:13:15'],
  ];
  if (!drop) headers.push(['signature', sign(pk, sk, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const ok = { event_id: EVENT_ID, event_type: EVENT_TYPE };
const cases = [
  { name: 'card_gate.order.updated signed by Api._generateSignature', secrets: [`${PK}:${SK}`], ...request(), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [`${PK}:${SK}`], ...request({ body: FLIP(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret key for the same public key', secrets: [`${PK}:${OTHER_SK}`], ...request(), expect: 'invalid_signature' },
  { name: 'signature header removed', secrets: [`${PK}:${SK}`], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'rotation: the tenant holds the old and the new key pair, the new one signed', secrets: [`${OLD_PK}:${OLD_SK}`, `${PK}:${SK}`], ...request(), expect: 'valid', ...ok },
  { name: 'signed by the old key pair the tenant still holds', secrets: [`${OLD_PK}:${OLD_SK}`, `${PK}:${SK}`], ...request({ pk: OLD_PK, sk: OLD_SK }), expect: 'valid', ...ok },
  { name: 'merchant names a public key the tenant does not hold', secrets: [`${PK}:${SK}`], ...request({ pk: OLD_PK, sk: OLD_SK }), expect: 'invalid_signature' },
];

// The SDK's verdict: the signature it makes for the received body with the
// tenant's key pair for the public key in `merchant` equals the header.
function sdkVerdict(c) {
  const signature = header(c, 'signature');
  if (signature === undefined) return 'missing_signature';
  const merchant = header(c, 'merchant');
  for (const secret of c.secrets) {
    const [pk, sk] = [secret.slice(0, secret.indexOf(':')), secret.slice(secret.indexOf(':') + 1)];
    if (pk === merchant && sign(pk, sk, c.body) === signature) return 'valid';
  }
  return 'invalid_signature';
}
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'solidgate',
  source: {
    kind: 'sdk', package: '@solidgate/node-sdk', registry: 'npm', version: '1.4.1',
    function: 'Api.prototype._generateSignature (src/api.js)',
    url: 'https://api-docs.solidgate.com/api/openapi/main/md/webhook-signatures',
  },
  facts: {
    title: 'Solidgate',
    docs: 'https://api-docs.solidgate.com/api/openapi/main/md/webhook-signatures',
    scheme: 'signature = base64(lower-case hex(HMAC-SHA512(webhook secret key, merchant + raw body + merchant))), merchant = the webhook public key (wh_pk_) in the `merchant` header',
    secret: 'the webhook key pair from Solidgate HUB (Developers > Channels), written PUBLIC:SECRET (wh_pk_...:wh_sk_...)',
    timestamp: null,
    event_id: { header: 'solidgate-event-id' },
    event_id_note: 'solidgate-event-id identifies the event; the signature covers the body, not this header',
    event_type: { header: 'solidgate-event-type' },
    retry_horizon: 'not stated on the pages reached: a delivery not answered 2xx within 30 s is resent on a schedule',
    retry_source: 'https://docs.solidgate.com/payments/integrate/webhooks/',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// One capture for the corpus, in the format `[capture] dir` writes, signed by
// the SDK above (tests/captures/ is being rebuilt; see NOTES.md).
const cap = cases[0];
const capture = {
  provider: 'solidgate', kind: 'solidgate', tenant: 'default', method: 'POST',
  path: '/webhooks/solidgate', query: '', headers: cap.headers,
  body_base64: Buffer.from(cap.body).toString('base64'),
  received_at: '2023-11-14T22:13:20+00:00',
  expect: { verdict: 'accepted', event_id: EVENT_ID, event_type: EVENT_TYPE, secrets: cap.secrets },
};
writeFileSync(new URL('./capture.json', import.meta.url), JSON.stringify(capture, null, 2) + '\n');
console.log(`solidgate: ${cases.length} cases, 1 capture`);
