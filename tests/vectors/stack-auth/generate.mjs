// Known-answer vectors for Stack Auth webhooks. Stack Auth signs the payload
// with the endpoint's secret and tells consumers to verify "using the Svix
// client library", with the svix-id / svix-timestamp / svix-signature headers
// (https://docs.stack-auth.com/docs/apps/webhooks). Signed with svix 2.5.0
// Webhook.sign and every verdict is its Webhook.verify. Also writes Stack
// Auth's corpus captures (tests/captures/stack-auth/), signed and checked the
// same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/stack-auth';
const MSG_ID = 'msg_2bXstackQe3LmT7vR1pN4sY8wZ';
// The documented payload {"type", "data"}
// (https://docs.stack-auth.com/docs/apps/webhooks), a team.created event.
const teamCreated = (id, name) => JSON.stringify({
  type: 'team.created',
  data: { id, display_name: name, profile_image_url: null, client_metadata: null, server_metadata: null, created_at_millis: 1735689600000 },
});
const BODY = teamCreated('2209422a-eef7-4668-967d-be79409972c5', 'My Team');
const TAMPERED = BODY.replace('My Team', 'My Tean');

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
  { name: 'team.created signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
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

const DOCS = 'https://docs.stack-auth.com/docs/apps/webhooks';
const out = {
  kind: 'stack-auth',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix client library Stack Auth\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Stack Auth',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the webhook endpoint\'s secret (dashboard > Webhooks > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_c3RhY2stYXV0aC1jb3JwdXMtc2lnbmluZy1zZWNyZXQ=';
const DIR = new URL('../../captures/stack-auth/', import.meta.url);
const ID1 = 'msg_2cA1stackCorpus0001xYzWqR';
const ID2 = 'msg_2cA1stackCorpus0002pQrStU';
const BODY2 = teamCreated('7c1e5a9b-3d2f-4e6a-8b0c-1d2e3f4a5b6c', 'Second Team');
const shots = [
  ['0001-team-created.json', ID1, SENT - 20, BODY, 'accepted', 'a team.created webhook: https://docs.stack-auth.com/docs/apps/webhooks'],
  ['0002-team-created-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
  ['0003-team-created-other.json', ID2, SENT, BODY2, 'accepted', 'another team.created under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'stack-auth', kind: 'stack-auth', tenant: 'default', method: 'POST', path: '/webhooks/stack-auth', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `stack-auth/${file}`, expect, events: [{ id, type: JSON.parse(body).type }], why });
}
const manifest = { route: 'stack-auth', kind: 'stack-auth', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/stack-auth/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`stack-auth: ${cases.length} cases, ${captures.length} captures`);
