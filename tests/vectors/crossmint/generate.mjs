// Known-answer vectors for Crossmint webhooks, which are sent through Svix
// with svix-id / svix-timestamp / svix-signature headers; Crossmint's docs
// verify them with "the Svix open-source library"
// (https://docs.crossmint.com/introduction/platform/webhooks/verify-webhooks).
// Signed with that library (svix 2.5.0, Webhook.sign) and every verdict is
// its Webhook.verify. Also writes Crossmint's corpus captures
// (tests/captures/crossmint/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://docs.crossmint.com/introduction/platform/webhooks/verify-webhooks';
const NOW = 1700000000;
const SECRET = 'whsec_Y3Jvc3NtaW50LXZlY3Rvci1zZWNyZXQtMDE=';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/crossmint';
const MSG_ID = 'msg_2fQ7crossmintVector0001aB';
// The documented user webhook shape: {"type", "status", "data"}
// (https://docs.crossmint.com/authentication/webhooks).
const userEvent = (type, data) => JSON.stringify({ type, status: 'success', data });
const BODY = userEvent('users.created', { userId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', email: 'test@test.com' });
const TAMPERED = BODY.replace('test@test.com', 'test@tesu.com');

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
  { name: 'users.created signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
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

const RETRIES = 'https://docs.crossmint.com/introduction/platform/webhooks/add-endpoint';
const out = {
  kind: 'crossmint',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix library Crossmint\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Crossmint',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing Secret in the Crossmint Console (Integrate > Webhooks), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: '8 attempts on the Svix schedule (about 28 hours)',
    retry_source: RETRIES,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: a user created, its retry (the same message ID,
// signed again later) and the user's update.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_Y3Jvc3NtaW50LWNvcnB1cy1zZWNyZXQtMDE=';
const DIR = new URL('../../captures/crossmint/', import.meta.url);
const ID1 = 'msg_2fQ7crossmintCorpus0001xY';
const ID2 = 'msg_2fQ7crossmintCorpus0002pQ';
const USER = '7c1e5a3b-9d2f-4e6a-8b0c-1d2e3f4a5b6c';
const B1 = userEvent('users.created', { userId: USER, email: 'ada@example.com' });
const B2 = userEvent('users.updated', { actionId: '5f0e9d8c', userId: USER, oldEmail: 'ada@example.com', newEmail: 'ada.l@example.com' });
const shots = [
  ['0001-users-created.json', ID1, SENT - 20, B1, 'accepted', 'a users.created webhook: https://docs.crossmint.com/authentication/webhooks'],
  ['0002-users-created-retried.json', ID1, SENT, B1, 'duplicate', `the same message resent after a failure, the same svix-id and a new timestamp: ${RETRIES}`],
  ['0003-users-updated.json', ID2, SENT, B2, 'accepted', 'the user\'s email updated, under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'crossmint', kind: 'crossmint', tenant: 'default', method: 'POST', path: '/webhooks/crossmint', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `crossmint/${file}`, expect, events: [{ id, type: JSON.parse(body).type }], why });
}
const manifest = { route: 'crossmint', kind: 'crossmint', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/crossmint/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`crossmint: ${cases.length} cases, ${captures.length} captures`);
