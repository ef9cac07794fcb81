// Known-answer vectors for Braintree, signed with the official `braintree`
// SDK's webhookTesting.sampleNotification and checked by its
// webhookNotification.parse; the handshake answer comes from
// webhookNotification.verify.
import fs from 'node:fs';
import crypto from 'node:crypto';
import braintree from 'braintree';
import { withIdentity } from '../identity.mjs';

const KEYS = { publicKey: 'testpublickey0001', privateKey: 'testprivatekey00000000000000001a' };
const OTHER = { publicKey: 'testpublickey0001', privateKey: 'otherprivatekey0000000000000002b' };
const OTHER_PAIR = { publicKey: 'otherpublickey002', privateKey: 'otherprivatekey0000000000000003c' };
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/braintree';
const secret = (k) => `${k.publicKey}:${k.privateKey}`; // what a tenant configures: public key, colon, private key
const gateway = (k) => new braintree.BraintreeGateway({ environment: braintree.Environment.Sandbox, merchantId: 'testmerchant', ...k });

// The SDK stamps its sample with the current time: fix the clock so the file is the same every run.
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...a) { super(...(a.length ? a : [NOW * 1000])); }
  static now() { return NOW * 1000; }
};
const sample = gateway(KEYS).webhookTesting.sampleNotification(braintree.WebhookNotification.Kind.SubscriptionChargedSuccessfully, 'sub_8x7w6v');
const otherSample = gateway(OTHER_PAIR).webhookTesting.sampleNotification(braintree.WebhookNotification.Kind.SubscriptionChargedSuccessfully, 'sub_8x7w6v');
globalThis.Date = RealDate;

const form = (fields) => new URLSearchParams(fields).toString();
function request(fields) {
  return { method: 'POST', url: URL, headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: form(fields) };
}
// Change one base64 character of the payload (still valid base64).
const payload = sample.bt_payload;
const i = 40;
const changed = payload.slice(0, i) + (payload[i] === 'A' ? 'B' : 'A') + payload.slice(i + 1);
const cases = [
  { name: 'valid bt_signature over bt_payload', secrets: [secret(KEYS)], ...request(sample), expect: 'valid' },
  { name: 'one bt_payload character changed', secrets: [secret(KEYS)], ...request({ ...sample, bt_payload: changed }), expect: 'invalid_signature' },
  { name: 'verified with another private key for the same public key', secrets: [secret(OTHER)], ...request(sample), expect: 'invalid_signature' },
  { name: 'bt_signature removed', secrets: [secret(KEYS)], ...request({ bt_payload: sample.bt_payload }), expect: 'missing_signature' },
  { name: 'signed for another public key only', secrets: [secret(KEYS)], ...request(otherSample), expect: 'invalid_signature' },
  { name: 'tenant holds two key pairs, the second matching', secrets: [secret(OTHER_PAIR), secret(KEYS)], ...request(sample), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: 'subscription_charged_successfully' } : {}) }));

// The SDK's verdict: parse(bt_signature, bt_payload) with each of the tenant's key pairs.
async function sdkVerdict(c) {
  const fields = Object.fromEntries(new URLSearchParams(c.body));
  if (!fields.bt_signature) return 'missing_signature'; // the caller's check: parse takes the field's value
  let last = null;
  for (const s of c.secrets) {
    const [publicKey, privateKey] = s.split(':');
    try {
      await gateway({ publicKey, privateKey }).webhookNotification.parse(fields.bt_signature, fields.bt_payload);
      return 'valid';
    } catch (e) {
      last = e;
    }
  }
  if (last.type === 'invalidSignatureError') return 'invalid_signature';
  throw last;
}
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
}

// Braintree checks a new webhook URL with GET ?bt_challenge=<hex>; the answer
// is the body "publicKey|hex HMAC-SHA1(SHA1(privateKey), challenge)".
const challenge = '20f9f8ed05f77439fe955c977e4c8a53';
const handshakes = [{
  name: 'bt_challenge verification of a new webhook URL',
  secrets: [secret(KEYS)],
  verify_token: null,
  request: { method: 'GET', url: `${URL}?bt_challenge=${challenge}`, headers: [], body: '' },
  now: NOW,
  expect: { status: 200, content_type: 'text/plain', body: gateway(KEYS).webhookNotification.verify(challenge), headers: [] },
}];

const out = {
  kind: 'braintree',
  source: {
    kind: 'sdk', package: 'braintree', registry: 'npm', version: '3.40.0',
    function: 'webhookTesting.sampleNotification / webhookNotification.parse / webhookNotification.verify',
    url: 'https://developer.paypal.com/braintree/docs/guides/webhooks/parse/node',
  },
  facts: {
    title: 'Braintree',
    docs: 'https://developer.paypal.com/braintree/docs/guides/webhooks/parse/node',
    scheme: 'form POST with bt_signature and bt_payload (base64 XML); bt_signature = "&"-joined "publicKey|hex HMAC-SHA1(key = SHA1(privateKey) raw bytes, bt_payload)" pairs; the pair whose public key is the tenant\'s must match, over bt_payload with or without its trailing newline',
    secret: 'publicKey:privateKey, the API key pair from the Control Panel (API > Keys)',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a notification carries no ID (only a timestamp and kind inside the XML); a retry re-sends the same body: https://developer.paypal.com/braintree/docs/guides/webhooks/overview',
    event_type: { form_base64_xml: 'bt_payload', xml_element: 'notification/kind' },
    event_type_note: 'the root <kind> of the base64 XML in bt_payload',
    retry_horizon: 'retried hourly for up to 24 hours',
    retry_source: 'https://developer.paypal.com/braintree/docs/guides/webhooks/overview',
    handshake: 'GET ?bt_challenge=<hex>: answer 200 with "publicKey|hex HMAC-SHA1(SHA1(privateKey), challenge)" (webhookNotification.verify): https://developer.paypal.com/braintree/docs/guides/webhooks/create',
  },
  cases,
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(withIdentity(out), null, 2) + '\n');

// Corpus captures (tests/captures/braintree/): a subscription charged, its
// hourly retry (the same body: Braintree re-sends the notification), and a
// subscription went past due. Signed by sampleNotification at 2026-01-01,
// each checked by webhookNotification.parse before it is written.
const CORPUS = { publicKey: 'corpuspublickey01', privateKey: 'corpusprivatekey000000000000002f' };
const CORPUS_NOW = 1767225600;
globalThis.Date = class extends RealDate {
  constructor(...a) { super(...(a.length ? a : [CORPUS_NOW * 1000])); }
  static now() { return CORPUS_NOW * 1000; }
};
const charged = gateway(CORPUS).webhookTesting.sampleNotification(braintree.WebhookNotification.Kind.SubscriptionChargedSuccessfully, 'sub_corpus1');
const pastDue = gateway(CORPUS).webhookTesting.sampleNotification(braintree.WebhookNotification.Kind.SubscriptionWentPastDue, 'sub_corpus1');
globalThis.Date = RealDate;
const RETRIES = 'https://developer.paypal.com/braintree/docs/guides/webhooks/overview';
const shots = [
  ['0001-subscription-charged.json', charged, 'accepted', 'a subscription_charged_successfully notification: ' + RETRIES],
  ['0002-subscription-charged-retried.json', charged, 'duplicate', 'the same notification retried (Braintree retries hourly for 24 hours, the same body): ' + RETRIES],
  ['0003-subscription-past-due.json', pastDue, 'accepted', 'the subscription went past due: another notification'],
];
const DIR = new globalThis.URL('../../captures/braintree/', import.meta.url);
fs.mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, fields, expect, why] of shots) {
  const n = await gateway(CORPUS).webhookNotification.parse(fields.bt_signature, fields.bt_payload);
  const body = form(fields);
  const capture = { provider: 'braintree', kind: 'braintree', tenant: 'default', method: 'POST', path: '/webhooks/braintree', query: '',
    headers: [['Content-Type', 'application/x-www-form-urlencoded']], body_base64: Buffer.from(body).toString('base64'),
    received_at: '2026-01-01T00:00:00+00:00' };
  fs.writeFileSync(new globalThis.URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `braintree/${file}`, expect,
    events: [{ id: crypto.createHash('sha256').update(body).digest('hex'), type: n.kind }], why });
}
fs.writeFileSync(new globalThis.URL('manifest.json', DIR), JSON.stringify({ route: 'braintree', kind: 'braintree', secrets: [secret(CORPUS)],
  source: 'braintree 3.40.0 webhookTesting.sampleNotification, each read back by its webhookNotification.parse: tests/vectors/braintree/generate.mjs',
  captures }, null, 2) + '\n');
console.log(`braintree: ${cases.length} cases, ${handshakes.length} handshake, ${captures.length} captures`);
