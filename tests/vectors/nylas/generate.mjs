// Vectors for Nylas API v3 webhooks, from the documented scheme
// (https://developer.nylas.com/docs/cookbook/use-cases/build/verify-webhook-signatures/):
// "Every notification then carries an x-nylas-signature (or
// X-Nylas-Signature) header: a hex-encoded HMAC-SHA256 of the exact request
// body, signed with that secret" (the webhook_secret Nylas returns when the
// destination passes the challenge). And the challenge
// (https://developer.nylas.com/docs/v3/notifications/webhooks/): a GET with
// ?challenge=C answered 200 with C as the plain-text body within 10 s.
// The official SDKs (npm nylas, PyPI nylas) do not verify v3 signatures, so
// the digests are computed with node:crypto exactly as the docs state.
import crypto from 'node:crypto';
import fs from 'node:fs';

const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/nylas';
const SECRET = 'nylas-webhook-secret-5c1e0b7a';
// The documented notification shape (specversion, type, source, id, time,
// webhook_delivery_attempt, data.object).
const BODY = JSON.stringify({
  specversion: '1.0', type: 'message.created', source: '/google/emails/realtime',
  id: 'mock-id-3e8b2f1a', time: 1700000000, webhook_delivery_attempt: 1,
  data: { application_id: 'NYLAS_APPLICATION_ID', object: { id: '18b9f0c0a5a1b2c3', grant_id: 'NYLAS_GRANT_ID', object: 'message', subject: 'Hello' } },
});
const hmac = (key, body) => crypto.createHmac('sha256', key).update(body).digest('hex');
const headers = (name, sig) => [['Content-Type', 'application/json'], [name, sig]];
const cases = [
  { name: 'a notification signed with the webhook_secret', secrets: [SECRET], method: 'POST', url: URL, headers: headers('x-nylas-signature', hmac(SECRET, BODY)), body: BODY, now: NOW, expect: 'valid', event_id: 'mock-id-3e8b2f1a', event_type: 'message.created' },
  { name: 'the header as X-Nylas-Signature', secrets: [SECRET], method: 'POST', url: URL, headers: headers('X-Nylas-Signature', hmac(SECRET, BODY)), body: BODY, now: NOW, expect: 'valid', event_id: 'mock-id-3e8b2f1a', event_type: 'message.created' },
  { name: 'signed with another secret', secrets: [SECRET], method: 'POST', url: URL, headers: headers('x-nylas-signature', hmac('another', BODY)), body: BODY, now: NOW, expect: 'invalid_signature' },
  { name: 'the body changed after signing', secrets: [SECRET], method: 'POST', url: URL, headers: headers('x-nylas-signature', hmac(SECRET, BODY)), body: BODY.replace('Hello', 'Hullo'), now: NOW, expect: 'invalid_signature' },
  { name: 'no signature', secrets: [SECRET], method: 'POST', url: URL, headers: [['Content-Type', 'application/json']], body: BODY, now: NOW, expect: 'missing_signature' },
];
const CHALLENGE = 'bc609b38-c81f-47fb-a275-1d9bd61a968b';
const handshakes = [
  {
    name: 'GET ?challenge= answered with the challenge as text/plain',
    secrets: [SECRET], verify_token: null,
    request: { method: 'GET', url: `${URL}?challenge=${CHALLENGE}`, headers: [], body: '' },
    now: NOW,
    expect: { status: 200, content_type: 'text/plain', body: CHALLENGE, headers: [] },
  },
  {
    name: 'a challenge longer than hookline echoes is refused',
    secrets: [SECRET], verify_token: null,
    request: { method: 'GET', url: `${URL}?challenge=${'c'.repeat(513)}`, headers: [], body: '' },
    now: NOW,
    expect: { status: 400, code: 'malformed_payload' },
  },
];

const DOCS = 'https://developer.nylas.com/docs/v3/notifications/webhooks/';
const out = {
  kind: 'nylas',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'the documented x-nylas-signature (hex HMAC-SHA256 of the raw body with the webhook_secret), computed with node:crypto',
    url: 'https://developer.nylas.com/docs/cookbook/use-cases/build/verify-webhook-signatures/',
  },
  facts: {
    title: 'Nylas (API v3)',
    docs: DOCS,
    scheme: 'x-nylas-signature = hex HMAC-SHA256(webhook_secret, raw body)',
    secret: 'the webhook_secret returned when the webhook destination is created (or rotated)',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'each notification carries an id (CloudEvents-style envelope): ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: 'GET ?challenge=C answered 200 with C as the plain-text body within 10 s: ' + DOCS,
  },
  cases,
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`nylas: ${cases.length} cases, ${handshakes.length} handshakes`);
