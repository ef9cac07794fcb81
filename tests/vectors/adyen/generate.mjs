// Known-answer vectors for Adyen standard (payments) webhooks: the HMAC sits inside each
// NotificationRequestItem. Signed by the official library's HmacValidator.calculateHmac and
// checked by HmacValidator.validateHMAC (@adyen/api-library).
import { writeFileSync } from 'node:fs';
import { hmacValidator as HmacValidator } from '@adyen/api-library';

const validator = new HmacValidator();
const NOW = 1700000000;
// HMAC keys are shown in the Customer Area as hex; the key bytes are the hex-decoded value.
const SECRET = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const OTHER = '0A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F9';
const HOOK_URL = 'https://hooks.example.com/webhooks/adyen/acme';

// The documented JSON webhook: one NotificationRequestItem per request.
function item(extra = {}) {
  return { additionalData: {}, amount: { currency: 'EUR', value: 1130 }, eventCode: 'AUTHORISATION',
    eventDate: '2023-11-14T23:13:17+01:00', merchantAccountCode: 'TestMerchant', merchantReference: 'TestPayment-1407325143704',
    operations: ['CANCEL', 'CAPTURE', 'REFUND'], paymentMethod: 'visa', pspReference: '7914073381342284', reason: '1234:7777:12/2012', success: 'true', ...extra };
}
function body(key, mutate = (i) => i) {
  const i = item();
  if (key) i.additionalData.hmacSignature = validator.calculateHmac(i, key);
  return JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: mutate(i) }] });
}

// The library's verdict: validateHMAC on the item with each configured key.
function sdkVerdict(c) {
  const i = JSON.parse(c.body).notificationItems[0].NotificationRequestItem;
  let verdict = 'invalid_signature';
  for (const s of c.secrets) {
    try {
      if (validator.validateHMAC(i, s)) return 'valid';
    } catch (e) {
      if (!/Missing hmacSignature/.test(e.message)) throw e;
      verdict = 'missing_signature';
    }
  }
  return verdict;
}

const req = (b) => ({ method: 'POST', url: HOOK_URL, headers: [['Content-Type', 'application/json']], body: b, now: NOW });
const ok = { event_id: 'AUTHORISATION:7914073381342284', event_type: 'AUTHORISATION' };
const cases = [
  { name: 'an AUTHORISATION item signed by HmacValidator.calculateHmac', secrets: [SECRET], ...req(body(SECRET)), expect: 'valid', ...ok },
  { name: 'rotation: the second configured HMAC key verifies', secrets: [OTHER, SECRET], ...req(body(SECRET)), expect: 'valid', ...ok },
  { name: 'one byte of the signed amount changed after signing', secrets: [SECRET], ...req(body(SECRET).replace('"value":1130', '"value":1131')), expect: 'invalid_signature' },
  { name: 'one byte of the signed merchantReference changed after signing', secrets: [SECRET], ...req(body(SECRET).replace('1407325143704', '1407325143705')), expect: 'invalid_signature' },
  { name: 'a byte of the unsigned reason field changed: Adyen signs only eight fields, so this still verifies', secrets: [SECRET], ...req(body(SECRET).replace('7777', '7778')), expect: 'valid', ...ok },
  { name: 'verified with another HMAC key', secrets: [OTHER], ...req(body(SECRET)), expect: 'invalid_signature' },
  { name: 'additionalData.hmacSignature removed', secrets: [SECRET], ...req(body(null)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const P = '/notificationItems/0/NotificationRequestItem';
const out = {
  kind: 'adyen',
  source: { kind: 'sdk', package: '@adyen/api-library', registry: 'npm', version: '32.1.0',
    function: 'HmacValidator.calculateHmac / HmacValidator.validateHMAC', url: 'https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures' },
  facts: {
    title: 'Adyen',
    docs: 'https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures',
    scheme: `signature inside the body: ${P}/additionalData/hmacSignature = base64(HMAC-SHA256(hex-decoded HMAC key, pspReference:originalReference:merchantAccountCode:merchantReference:amount.value:amount.currency:eventCode:success)), missing fields as empty strings`,
    secret: "the webhook's HMAC key from the Customer Area (Developers > Webhooks > webhook > Security), 64 hex characters; the key is the hex-decoded bytes",
    timestamp: null,
    event_id: { json_pointers: [`${P}/eventCode`, `${P}/pspReference`], join: ':' },
    event_id_note: 'Adyen tells receivers to deduplicate on eventCode together with pspReference (a CHARGEBACK carries the payment\'s pspReference, so pspReference alone would merge distinct events): https://docs.adyen.com/development-resources/webhooks/handle-webhook-events',
    event_type: { json_pointer: `${P}/eventCode` },
    retry_horizon: 'three quick retries (9, 18, 27 s), then a retry queue for up to 30 days',
    retry_source: 'https://docs.adyen.com/development-resources/webhooks/troubleshoot',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
