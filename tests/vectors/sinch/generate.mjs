// Known-answer vectors for Sinch Conversation API callbacks: signed with the official
// SDK's calculateWebhookSignature over computeSignedData, and every verdict from
// ConversationCallbackWebhooks.validateAuthenticationHeader (@sinch/sdk-core, which
// calls validateWebhookSignature from @sinch/sdk-client).
import { writeFileSync } from 'node:fs';
import { ConversationCallbackWebhooks, calculateWebhookSignature, computeSignedData } from '@sinch/sdk-core';
import { withLateCopy } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'c3f1a9e7-5b2d-4f8a-9c0e-6b1d2a3f4e5c';   // the webhook's secret, set when the webhook is created
const OTHER = '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a';
const HOOK_URL = 'https://hooks.example.com/webhooks/sinch/acme';
const NONCE = '01FJA8B466Y0R2GNXD78MD9SM1';
// A MESSAGE_DELIVERY callback (message_delivery_report).
const BODY = JSON.stringify({
  app_id: '01FJA8B4A7BM43YGWSG9GBV067', accepted_time: '2023-11-14T22:13:17.512Z', event_time: '2023-11-14T22:13:18.104Z',
  project_id: 'c36f3d3d-1513-4edd-ae42-11995557ff61',
  message_delivery_report: { message_id: '01FJA8B4JQ5S0Q7ZJ9XPHX3FE6', conversation_id: '01FJA8B4A7BM43YGWSG9GBV068', status: 'DELIVERED',
    channel_identity: { channel: 'WHATSAPP', identity: '46732001122', app_id: '01FJA8B4A7BM43YGWSG9GBV067' }, contact_id: '01FJA8B4A7BM43YGWSG9GBV069', metadata: '' },
  message_metadata: '', correlation_id: '',
});
const TAMPERED = BODY.replace('DELIVERED', 'DELIVERES');

const sign = (secret, ts, body, nonce = NONCE) => calculateWebhookSignature(computeSignedData(body, nonce, String(ts)), secret);
const headersFor = (sig, ts) => [['Content-Type', 'application/json'], ['x-sinch-webhook-signature-timestamp', String(ts)],
  ['x-sinch-webhook-signature-nonce', NONCE], ['x-sinch-webhook-signature-algorithm', 'HmacSHA256'], ['x-sinch-webhook-signature', sig]];

// validateAuthenticationHeader answers true or false.
function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  for (const secret of c.secrets) {
    if (new ConversationCallbackWebhooks(secret).validateAuthenticationHeader(headers, c.body, new URL(c.url).pathname, c.method)) return 'valid';
  }
  return headers['x-sinch-webhook-signature'] === undefined ? 'missing_signature' : 'invalid_signature';
}

const req = (sig, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig, ts), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-sinch-webhook-signature') });
const ts = NOW - 2;
const sig = sign(SECRET, ts, BODY);
const cases = [
  { name: 'MESSAGE_DELIVERY callback signed by calculateWebhookSignature, accepted by validateAuthenticationHeader', secrets: [SECRET], ...req(sig, ts), expect: 'valid' },
  { name: 'rotation: the second configured webhook secret verifies', secrets: [OTHER, SECRET], ...req(sig, ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'the timestamp header changed after signing (it is signed)', secrets: [SECRET], ...req(sig, ts + 1), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig, ts), expect: 'invalid_signature' },
  { name: 'x-sinch-webhook-signature removed', secrets: [SECRET], ...strip(req(sig, ts)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developers.sinch.com/docs/conversation/callbacks';
const out = {
  kind: 'sinch',
  source: { kind: 'sdk', package: '@sinch/sdk-core', registry: 'npm', version: '1.4.0',
    function: 'ConversationCallbackWebhooks.validateAuthenticationHeader (validateWebhookSignature, @sinch/sdk-client 1.5.0); signed with calculateWebhookSignature(computeSignedData(...))', url: DOCS },
  facts: {
    title: 'Sinch Conversation API',
    docs: DOCS,
    scheme: 'x-sinch-webhook-signature = base64(HMAC-SHA256(webhook secret as UTF-8, raw body + "." + x-sinch-webhook-signature-nonce + "." + x-sinch-webhook-signature-timestamp)); x-sinch-webhook-signature-algorithm names HmacSHA256',
    secret: 'the secret set on the Conversation API webhook (Webhook.secret, in the dashboard or the webhook management API), used verbatim as UTF-8 bytes',
    timestamp: 'x-sinch-webhook-signature-timestamp, unix seconds, signed but not checked by the SDK (no tolerance)',
    event_id: { body_sha256: true },
    event_id_note: 'callbacks carry no delivery ID; message_id repeats across a message\'s delivery reports: ' + DOCS,
    event_type: null,
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withLateCopy(out, 306, "the SDK checks none; the definition's tolerance is 300 s");
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
