// Known-answer vectors for Bridge (bridge.xyz) webhooks.
//
// 1. Bridge's own worked example, copied from its docs ("Test Data",
//    https://apidocs.bridge.xyz/v1/docs/webhook-event-signature-verification):
//    public key, `X-Webhook-Signature: t=1705854411204,v0=jz/0dm...` and the raw
//    body {"message":"Hello World!"}.
// 2. Requests carrying real events, signed here with a test RSA key
//    (test-signing-key.pem, made for these vectors only) the way the docs'
//    steps say, and judged by `bridgeVerify` below: the docs' steps written
//    out, which must accept the docs' worked example and reject it changed,
//    before it judges anything else. The steps: parse t and v0, SHA-256 digest
//    of "<t>.<raw body>", verify the base64 signature of that digest with the
//    endpoint's public key (RSA PKCS#1 v1.5, SHA-256: the digest is hashed
//    again by the signature, which is how the worked example verifies).
import { readFileSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

const DOCS_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtqsEE4eI7EmzhcquGJXt
LX9PMK0UH6Kl1WIR21sv8HtueG8BuvvpP3MiN7ltzmIhS8KaynCjN4l+620PnXeu
xWG+CSnEdkinL9hCqbEid5vv9zl0j9LWiJx3FkKHqADU7cgm46aa8dKUdIQYF2X+
O7WmyLkC4wUM/mWhBPMsIQBznashRMZxx7XJjsVp27ACUE4eNIjEXbVYN6U8jSbU
hG++CfL8xXu+GHDqKmFE6Po6HnuURvLFVnCtE3mXXBcVFlPy+octfx8nOMLT3X8O
9UehIigJ34o2yMm/Fq3HUJzg2BsiAiGgtr0vmeoV9Q7upSNj9TuOumAzZFi4pYA+
qwIDAQAB
-----END PUBLIC KEY-----
`;
const DOCS_HEADER = 't=1705854411204,v0=jz/0dmHJ63FAzacGutrDTEoq+iSz/PHm/ugdooXDQu5NwuVIT2LmZGjsnCsBHgR9Py6OBP9zurzW4dHgygU4EDqmMPTUOvhvndYb4lWt+TY66LihaFI2whL6DAf/jb1QjYjNU0A6x9SLzC45dgE6X7zTDUM+2Z+scG/WEQf6SxQMt4E2sEipl5PqMK5lYUe3otdJV+X2c9D64bGwCEE7QSia+Vhozg8QNOQEk/rdz2IEONIg6oC43CeiN4E2kF9XLAGuy9uAHx9O9OJH5ZPLJZjyo4VcXYeWQgxaQ1gZ1Qu6hEEzgiPSff/1nou58dm4bIIazgCWli/mO0NyGcpfFw==';
const DOCS_BODY = '{"message":"Hello World!"}';

function bridgeVerify(body, header, publicKey) {
  const m = /^t=(\d+),v0=(.+)$/.exec(header);
  if (!m) return false;
  const digest = crypto.createHash('sha256').update(`${m[1]}.${body}`).digest();
  return crypto.createVerify('sha256').update(digest).verify(publicKey, m[2], 'base64');
}
if (!bridgeVerify(DOCS_BODY, DOCS_HEADER, DOCS_KEY)) throw new Error('the docs example does not verify');
if (bridgeVerify(DOCS_BODY.replace('World', 'Worle'), DOCS_HEADER, DOCS_KEY)) throw new Error('a changed body verifies');

const PRIVATE = readFileSync(new URL('./test-signing-key.pem', import.meta.url), 'utf8');
const OTHER_PRIVATE = readFileSync(new URL('./test-other-key.pem', import.meta.url), 'utf8');
const pub = (pem) => crypto.createPublicKey(pem).export({ type: 'spki', format: 'pem' });
const KEY = pub(PRIVATE);
const OTHER = pub(OTHER_PRIVATE);
function sign(privatePem, tMs, body) {
  const digest = crypto.createHash('sha256').update(`${tMs}.${body}`).digest();
  return `t=${tMs},v0=${crypto.createSign('sha256').update(digest).sign(privatePem, 'base64')}`;
}

const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/bridge';
// The documented event shape (Event Structure, virtual_account.activity.created):
// https://apidocs.bridge.xyz/platform/additional-information/webhooks/structure
const EVENT_ID = 'wh_t8TAhPPYrRV2v8Asi9ed3sw';
const EVENT_TYPE = 'virtual_account.activity.created';
const BODY = JSON.stringify({
  api_version: 'v0', event_id: EVENT_ID, event_developer_id: '371983-uery-1238-1238971',
  event_category: 'virtual_account.activity', event_type: EVENT_TYPE,
  event_object_id: 'fecffc8b-ed5e-48ae-bd24-b36268330b32', event_object_status: null,
  event_object: { id: 'fecffc8b-ed5e-48ae-bd24-b36268330b32', type: 'payment_submitted', amount: '1970.0',
    currency: 'usdc', created_at: '2024-02-01T04:31:43.342Z', customer_id: '6ed47d9c-03be-420c-8699-369707ca02e9',
    virtual_account_id: '22033ca5-a991-476c-ade9-911d10f0ece6' },
  event_object_changes: {}, event_created_at: '2024-02-01T04:32:28.978Z',
});
const req = (header, body = BODY, now = NOW) => ({
  method: 'POST', url: HOOK_URL, now,
  headers: [['Content-Type', 'application/json'], ...(header ? [['X-Webhook-Signature', header]] : [])],
  body,
});
const ms = (s) => s * 1000 + 123;
const ok = { event_id: EVENT_ID, event_type: EVENT_TYPE };
const cases = [
  { name: "Bridge's worked example (docs Test Data), signature only: the body carries no event", secrets: [DOCS_KEY], ...req(DOCS_HEADER, DOCS_BODY, 1705854411), expect: 'valid', event_id: null },
  { name: "the worked example with one body byte changed", secrets: [DOCS_KEY], ...req(DOCS_HEADER, DOCS_BODY.replace('World', 'Worle'), 1705854411), expect: 'invalid_signature' },
  { name: 'virtual_account.activity.created signed 2 s ago', secrets: [KEY], ...req(sign(PRIVATE, ms(NOW - 2), BODY)), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [KEY], ...req(sign(PRIVATE, ms(NOW - 2), BODY), BODY.replace('1970.0', '1971.0')), expect: 'invalid_signature' },
  { name: "verified with another endpoint's public key", secrets: [OTHER], ...req(sign(PRIVATE, ms(NOW - 2), BODY)), expect: 'invalid_signature' },
  { name: 'X-Webhook-Signature removed', secrets: [KEY], ...req(null), expect: 'missing_signature' },
  { name: 'rotation: the tenant holds the old and the new public key', secrets: [OTHER, KEY], ...req(sign(PRIVATE, ms(NOW - 2), BODY)), expect: 'valid', ...ok },
  { name: 'signed 301 seconds ago', secrets: [KEY], ...req(sign(PRIVATE, ms(NOW - 301), BODY)), expect: 'timestamp_out_of_tolerance', at: NOW - 301 },
  { name: 'signed 301 seconds in the future', secrets: [KEY], ...req(sign(PRIVATE, ms(NOW + 301), BODY)), expect: 'timestamp_out_of_tolerance', at: NOW + 301 },
];

// The verdict: the docs' steps (bridgeVerify) with each of the case's keys,
// and Bridge's advice to disregard events older than a few minutes (hookline
// checks 300 s both ways, the configured default).
function verdict(c) {
  const header = c.headers.find(([k]) => k === 'X-Webhook-Signature')?.[1];
  if (header === undefined) return 'missing_signature';
  if (!c.secrets.some((k) => bridgeVerify(c.body, header, k))) return 'invalid_signature';
  const t = Number(/^t=(\d+)/.exec(header)[1]) / 1000;
  return Math.abs(c.now - t) > 300 ? 'timestamp_out_of_tolerance' : 'valid';
}
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' steps say ${got}, the case says ${c.expect}`);
  delete c.at;
}

const out = {
  kind: 'bridge',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the "Test Data" worked example, and the documented verification steps checked against it',
    url: 'https://apidocs.bridge.xyz/v1/docs/webhook-event-signature-verification',
  },
  facts: {
    title: 'Bridge',
    docs: 'https://apidocs.bridge.xyz/platform/additional-information/webhooks/signature',
    scheme: 'X-Webhook-Signature: t=<unix ms>,v0=<base64 RSA PKCS#1 v1.5 SHA-256 signature of SHA-256("<t>.<raw body>")>',
    secret: "the webhook endpoint's public key (PEM), which Bridge assigns when the webhook is created",
    timestamp: 't=, unix milliseconds, signed; a fresh one on every retry',
    event_id: { json_pointer: '/event_id' },
    event_id_note: '"Globally unique event identifier. Useful as an idempotency key." (Event Object Schema)',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'retries for up to two days',
    retry_source: 'https://apidocs.bridge.xyz/v1/docs/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
const cap = cases[2];
writeFileSync(new URL('./capture.json', import.meta.url), JSON.stringify({
  provider: 'bridge', kind: 'bridge', tenant: 'default', method: 'POST',
  path: '/webhooks/bridge', query: '', headers: cap.headers,
  body_base64: Buffer.from(cap.body).toString('base64'),
  received_at: '2023-11-14T22:13:20+00:00',
  expect: { verdict: 'accepted', event_id: EVENT_ID, event_type: EVENT_TYPE, secrets: cap.secrets },
}, null, 2) + '\n');
console.log(`bridge: ${cases.length} cases, 1 capture`);
