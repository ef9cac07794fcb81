// Known-answer vectors for Junction (formerly Vital) webhooks. Each request
// carries svix-id, svix-timestamp and svix-signature, and Junction's docs send
// consumers to "the official Svix SDKs" to verify them
// (https://docs.junction.com/webhooks/introduction#authenticating-webhooks).
// Signed with svix 2.5.0 Webhook.sign and every verdict is its Webhook.verify.
// Also writes Junction's corpus captures (tests/captures/junction/), signed and
// checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/junction';
const MSG_ID = 'msg_2bXjunctionQe3LmT7vR1pN4sY';
// The standard event structure (https://docs.junction.com/webhooks/event-structure):
// {data, event_type, user_id, client_user_id, team_id}; its
// provider.connection.created example.
const connectionCreated = (userId, slug, name) => JSON.stringify({
  data: { source: { logo: `https://storage.googleapis.com/vital-assets/${slug}.png`, name, slug }, user_id: userId },
  event_type: 'provider.connection.created',
  user_id: userId,
  client_user_id: '01HW3FSNVCHC3B2QB5N0ZAAAVG',
  team_id: '6b74423d-0504-4470-9afb-477252ccf67a',
});
const BODY = connectionCreated('4a29dbc7-6db3-4c83-bfac-70a20a4be1b2', 'freestyle_libre_ble', 'Freestyle Libre BLE');
const TAMPERED = BODY.replace('Freestyle', 'Freestylf');

const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], ['svix-id', id], ['svix-timestamp', String(ts)], ['svix-signature', sigs.join(' ')]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // the verifier reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        new Webhook(s).verify(c.body, Object.fromEntries(c.headers));
        return 'valid';
      } catch (e) {
        if (e.message === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (e.message !== 'No matching signature found') throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(MSG_ID, sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'svix-signature') });
const ts = NOW - 2;
const cases = [
  { name: 'provider.connection.created signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: svix-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, MSG_ID, ts, BODY), sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.junction.com/webhooks/introduction';
const out = {
  kind: 'junction',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the official Svix SDK Junction\'s docs name for verification)', url: DOCS },
  facts: {
    title: 'Junction (Vital)',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing Secret (Junction Dashboard > Webhooks > Endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
    retry_source: 'https://docs.junction.com/webhooks/retry-policy',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_anVuY3Rpb24tY29ycHVzLXNpZ25pbmctc2VjcmV0';
const DIR = new URL('../../captures/junction/', import.meta.url);
const ID1 = 'msg_2cA1junctionCorpus0001xYzW';
const ID2 = 'msg_2cA1junctionCorpus0002pQrS';
const BODY2 = connectionCreated('9d0c4b2e-1f3a-4e5b-8c6d-7e8f9a0b1c2d', 'oura', 'Oura');
const shots = [
  ['0001-connection-created.json', ID1, SENT - 20, BODY, 'accepted', 'a provider.connection.created event: https://docs.junction.com/webhooks/event-structure'],
  ['0002-connection-created-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.junction.com/webhooks/retry-policy'],
  ['0003-connection-created-other-user.json', ID2, SENT, BODY2, 'accepted', 'another user\'s connection under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'junction', kind: 'junction', tenant: 'default', method: 'POST', path: '/webhooks/junction', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `junction/${file}`, expect, events: [{ id, type: JSON.parse(body).event_type }], why });
}
const manifest = { route: 'junction', kind: 'junction', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/junction/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`junction: ${cases.length} cases, ${captures.length} captures`);
