// Known-answer vectors for Mailtrap's sending webhooks: Mailtrap-Signature is
// the lowercase hex HMAC-SHA256 of the raw body keyed with the webhook's
// signing secret (https://docs.mailtrap.io/email-api-smtp/advanced/webhooks).
// The requests are signed by the docs' scheme with node:crypto and every
// verdict is the official SDK's: mailtrap 4.10.0 `verifyWebhookSignature`.
// Also writes Mailtrap's corpus captures (tests/captures/mailtrap/), signed
// and checked the same way.
import crypto from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { verifyWebhookSignature } from 'mailtrap';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://docs.mailtrap.io/email-api-smtp/advanced/webhooks';
const NOW = 1700000000;
const SECRET = 'f3b1c6e8a2d94e7b8c5a1f0e9d2b4c6a';
const OTHER = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const HOOK_URL = 'https://hooks.example.com/webhooks/mailtrap';

// The documented envelope: {"events": [...]}, each event with event, message_id,
// sending_stream, email, timestamp and event_id (the docs' payload examples;
// the fields django-anymail's Mailtrap webhook reads). Values invented.
const event = (eventId, type, messageId, ts, extra = {}) => ({
  event: type, message_id: messageId, sending_stream: 'transactional', email: 'john.doe@example.com',
  category: 'Password reset', custom_variables: { user_id: '4815162342' }, ...extra, timestamp: ts, event_id: eventId,
});
const BODY = JSON.stringify({ events: [
  event('bede7236-2284-43d6-a953-1fdcafd0fdbc', 'delivery', '1df37d17-0286-4d8b-8edf-bc4ec5be86e6', NOW - 30),
  event('a3e1c8b0-6c4e-4ad8-9b2c-0e1f4a7d6b15', 'open', '1df37d17-0286-4d8b-8edf-bc4ec5be86e6', NOW - 10,
    { ip: '192.0.2.15', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)' }),
] });
const TAMPERED = BODY.replace('"open"', '"opem"');

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');
const request = (sig, body = BODY) => {
  const headers = [['Content-Type', 'application/json']];
  if (sig !== null) headers.push(['Mailtrap-Signature', sig]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
};

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'mailtrap-signature');
  if (!sig) return 'missing_signature';
  return c.secrets.some((s) => verifyWebhookSignature(c.body, sig[1], s)) ? 'valid' : 'invalid_signature';
}

const cases = [
  { name: 'a delivery and an open in one request, signed with the docs\' scheme, accepted by verifyWebhookSignature', secrets: [SECRET], ...request(sign(SECRET, BODY)), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...request(sign(SECRET, BODY)), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request(sign(SECRET, BODY), TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...request(sign(SECRET, BODY)), expect: 'invalid_signature' },
  { name: 'the signature in upper case (the SDK compares the hex digest\'s bytes)', secrets: [SECRET], ...request(sign(SECRET, BODY).toUpperCase()), expect: 'valid' },
  { name: 'Mailtrap-Signature removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'mailtrap',
  source: { kind: 'sdk', package: 'mailtrap', registry: 'npm', version: '4.10.0',
    function: 'verifyWebhookSignature (requests signed with the docs\' scheme by node:crypto)', url: DOCS },
  facts: {
    title: 'Mailtrap',
    docs: DOCS,
    scheme: 'Mailtrap-Signature = lowercase hex(HMAC-SHA256(the webhook\'s signing secret, raw body))',
    secret: 'the webhook\'s signing_secret, as the Webhooks page or API returns it on creation, as UTF-8 bytes',
    timestamp: null,
    batch: '/events',
    event_id: { json_pointer: '/event_id' },
    event_id_note: 'a request carries an events[] array; each event has its own event_id (the docs\' payload examples)',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated for sending webhooks on the pages consulted; default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: a request of two events, the same request again (a
// retry after a failed answer), and a request with a later event.
const CORPUS_SECRET = 'mailtrap-corpus-signing-secret-01';
const DIR = new URL('../../captures/mailtrap/', import.meta.url);
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const MSG = '5b0e4a1c-2f7d-4c39-8e61-9a3d7c2b1f04';
const B1 = JSON.stringify({ events: [
  event('6f2d1c0a-3b4e-4f59-8a7b-1c2d3e4f5a60', 'delivery', MSG, SENT - 60),
  event('7a3e2d1b-4c5f-4a6b-9b8c-2d3e4f5a6b71', 'open', MSG, SENT - 40, { ip: '192.0.2.15', user_agent: 'Mozilla/5.0' }),
] });
const B2 = JSON.stringify({ events: [
  event('8b4f3e2c-5d6a-4b7c-8c9d-3e4f5a6b7c82', 'click', MSG, SENT - 5, { url: 'https://example.com/reset', ip: '192.0.2.15', user_agent: 'Mozilla/5.0' }),
] });
const shots = [
  ['0001-delivery-open.json', B1, 'accepted', `a delivery and an open of one message in one request (events[]): ${DOCS}`],
  ['0002-delivery-open-again.json', B1, 'duplicate', 'the same request delivered again after an unanswered attempt: each event_id is already known'],
  ['0003-click.json', B2, 'accepted', 'a later click on the same message, under its own event_id'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const headers = [['Content-Type', 'application/json'], ['Mailtrap-Signature', sign(CORPUS_SECRET, body)]];
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body }) !== 'valid') throw new Error(`${file}: not accepted by verifyWebhookSignature`);
  const capture = { provider: 'mailtrap', kind: 'mailtrap', tenant: 'default', method: 'POST', path: '/webhooks/mailtrap', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `mailtrap/${file}`, expect, events: JSON.parse(body).events.map((e) => ({ id: e.event_id, type: e.event })), why });
}
const manifest = { route: 'mailtrap', kind: 'mailtrap', secrets: [CORPUS_SECRET],
  source: 'signed with the docs\' scheme (node:crypto) and checked by mailtrap 4.10.0 verifyWebhookSignature: tests/vectors/mailtrap/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`mailtrap: ${cases.length} cases, ${captures.length} captures`);
