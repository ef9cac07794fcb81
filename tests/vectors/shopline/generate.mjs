// Known-answer vectors for SHOPLINE (Open Platform, developer.shopline.com)
// webhooks, from the official Go SDK github.com/shoplineos/shopline-sdk-go
// v1.0.1. Its own test TestVerifyAndDecode (client/webhook_client_test.go)
// sends this request and asserts that WebhookClient.Decode accepts it:
//   secret  config.AppSecretForUnitTest = "LDLLJJLflja2039203flaflaLLFLE"
//   body    {"body_html":"BodyHtml","id":"32398389389389"}  (json.Marshal of the
//           test struct, fields in declaration order)
//   X-Shopline-Hmac-Sha256: edf64f4c46a9cb2c8aaa6c7034b77899aca1b63ad0c461901417a42b1cf139b0
// Decode (and VerifyWebhookRequest, client/sign.go) compare that header, as
// text, with lower-case hex HMAC-SHA256(app secret, raw body). No Go toolchain
// that builds the SDK (go 1.24) is installed here, so the fixture is copied
// verbatim and the other cases are it with one thing changed; node only checks
// that the fixture is what the SDK's rule gives (it would throw otherwise).
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

const SECRET = 'LDLLJJLflja2039203flaflaLLFLE';
const OTHER = 'LDLLJJLflja2039203flaflaLLFLF';
const BODY = '{"body_html":"BodyHtml","id":"32398389389389"}';
const HMAC = 'edf64f4c46a9cb2c8aaa6c7034b77899aca1b63ad0c461901417a42b1cf139b0';
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/shopline';
if (crypto.createHmac('sha256', SECRET).update(BODY).digest('hex') !== HMAC) throw new Error('fixture mismatch');

function request({ body = BODY, drop = false } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['X-Shopline-Shop-Domain', 'testDomain'],
    ['X-Shopline-Merchant-Id', 'testMerchantId'],
    ['X-Shopline-Api-Version', 'v20251201'],
    ['X-Shopline-Webhook-Id', 'testWebhookId'],
    ['X-Shopline-Topic', 'testTopic'],
    ['X-Shopline-Shop-Id', 'testShopId'],
  ];
  if (!drop) headers.push(['X-Shopline-Hmac-Sha256', HMAC]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const ok = { event_id: 'testWebhookId', event_type: 'testTopic' };
const cases = [
  { name: 'the SDK test fixture TestVerifyAndDecode, accepted by WebhookClient.Decode', secrets: [SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ body: BODY.replace('BodyHtml', 'BodyHtmm') }), expect: 'invalid_signature' },
  { name: 'verified with another app secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Shopline-Hmac-Sha256 removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'rotation: the tenant holds the old and the new app secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', ...ok },
];

const out = {
  kind: 'shopline',
  source: {
    kind: 'sdk', package: 'github.com/shoplineos/shopline-sdk-go', registry: '', version: 'v1.0.1',
    function: 'WebhookClient.Decode / VerifyWebhookRequest (client/webhook_client.go, client/sign.go); fixture from TestVerifyAndDecode',
    url: 'https://developer.shopline.com/docs/apps/api-instructions-for-use/webhooks/overview',
  },
  facts: {
    title: 'SHOPLINE',
    docs: 'https://developer.shopline.com/docs/apps/api-instructions-for-use/webhooks/overview',
    scheme: 'X-Shopline-Hmac-Sha256 = lower-case hex HMAC-SHA256(app secret, raw body)',
    secret: 'the app secret (Developer Center > Apps > App credentials), used as UTF-8 bytes',
    timestamp: null,
    event_id: { header: 'X-Shopline-Webhook-Id' },
    event_id_note: 'X-Shopline-Webhook-Id: "Unique ID of the webhook message, remains unchanged when the message is resent" (request headers table)',
    event_type: { header: 'X-Shopline-Topic' },
    retry_horizon: 'not stated on the pages reached',
    retry_source: 'https://developer.shopline.com/docs/apps/api-instructions-for-use/webhooks/overview',
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
const cap = cases[0];
writeFileSync('capture.json', JSON.stringify({
  provider: 'shopline', kind: 'shopline', tenant: 'default', method: 'POST',
  path: '/webhooks/shopline', query: '', headers: cap.headers,
  body_base64: Buffer.from(cap.body).toString('base64'),
  received_at: '2023-11-14T22:13:20+00:00',
  expect: { verdict: 'accepted', event_id: ok.event_id, event_type: ok.event_type, secrets: cap.secrets },
}, null, 2) + '\n');
console.log(`shopline: ${cases.length} cases, 1 capture`);
