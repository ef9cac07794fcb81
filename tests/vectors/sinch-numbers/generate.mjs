// Known-answer vectors for Sinch Numbers API callbacks. Every verdict is the
// official SDK's NumbersCallbackWebhooks#validateAuthenticationHeader's
// (@sinch/sdk-core 1.4.0, which brings @sinch/numbers 1.5.0)
// (it calls @sinch/sdk-client validateSignatureHeader: X-Sinch-Signature must
// equal hex HMAC-SHA1(callback secret, body)). The SDK has no signer, so the
// header is computed here as the SDK computes its expectation, and each case is
// kept only because the SDK agrees with it.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { NumbersCallbackWebhooks } from '@sinch/sdk-core';

const NOW = 1700000000;
const SECRET = 'sinch-numbers-callback-secret-7f3a9c1e';
const OTHER = 'sinch-numbers-callback-secret-0b1c2d3e';
const HOOK_URL = 'https://hooks.example.com/webhooks/sinch-numbers/acme';
const SIG_HEADER = 'X-Sinch-Signature';
const EVENT_ID = 'abcd1234efghijklmnop567890';
// A CallbackPayload as the SDK types it (models/v1/callback-payload).
const BODY = JSON.stringify({
  eventId: EVENT_ID,
  timestamp: '2023-11-14T22:13:18.123456',
  projectId: 'abcd12ef-ab12-ab12-ab12-abcdef123456',
  resourceId: '+12025550134',
  resourceType: 'ACTIVE_NUMBER',
  eventType: 'PROVISIONING_TO_SMS_PLATFORM',
  status: 'SUCCEEDED',
});
const TAMPERED = BODY.replace('SUCCEEDED', 'SUCCEEDEE');

const sign = (secret, body) => crypto.createHmac('sha1', secret).update(body).digest('hex');
function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (headers[SIG_HEADER.toLowerCase()] === undefined) return 'missing_signature';
  const ok = c.secrets.some((s) => new NumbersCallbackWebhooks(s).validateAuthenticationHeader(headers, c.body, '/', 'POST'));
  return ok ? 'valid' : 'invalid_signature';
}
function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const ok = { event_id: EVENT_ID, event_type: 'PROVISIONING_TO_SMS_PLATFORM' };
const cases = [
  { name: 'a provisioning callback accepted by validateAuthenticationHeader', secrets: [SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'rotation: the second configured callback secret verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another callback secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'sinch-numbers',
  source: { kind: 'sdk', package: '@sinch/sdk-core', registry: 'npm', version: '1.4.0',
    function: 'NumbersCallbackWebhooks#validateAuthenticationHeader (@sinch/numbers 1.5.0; @sinch/sdk-client 1.5.0 validateSignatureHeader)',
    url: 'https://developers.sinch.com/docs/numbers/api-reference/numbers/tag/Numbers-Callbacks' },
  facts: {
    title: 'Sinch Numbers callbacks',
    docs: 'https://developers.sinch.com/docs/numbers/api-reference/numbers/tag/Numbers-Callbacks',
    scheme: 'X-Sinch-Signature = hex(HMAC-SHA1(callback secret as UTF-8, raw body))',
    secret: "the project's Numbers callback secret (callback configuration)",
    timestamp: null,
    event_id: { json_pointer: '/eventId' },
    event_id_note: 'eventId, "The ID of the event" (CallbackPayload in the SDK), in the signed body',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'not stated on the pages consulted; keep the default window',
    retry_source: 'https://developers.sinch.com/docs/numbers/api-reference/numbers/tag/Numbers-Callbacks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
