// Known-answer vectors for Privy webhooks. Privy uses Svix for its webhooks
// (svix-id / svix-timestamp / svix-signature) and its server SDK verifies them:
// PrivyClient.verifyWebhook in @privy-io/server-auth 1.32.5
// (https://docs.privy.io/user-management/users/webhooks/handling-events).
// Signed with svix 1.99.1 Webhook.sign (the SDK's own dependency) and every
// verdict is PrivyClient.verifyWebhook's. Also writes Privy's corpus captures
// (tests/captures/privy/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { PrivyClient } from '@privy-io/server-auth';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/privy';
const MSG_ID = 'msg_2bXprivyQe3LmT7vR1pN4sY8wZ';
// The documented user.created payload
// (https://docs.privy.io/user-management/users/webhooks/handling-events), compact
// as Privy sends it (the SDK verifies JSON.stringify of the parsed body).
const userCreated = (id, email, at) => JSON.stringify({
  type: 'user.created',
  user: { created_at: at, has_accepted_terms: false, id, is_guest: false,
    linked_accounts: [{ address: email, first_verified_at: at, latest_verified_at: at, type: 'email', verified_at: at }],
    mfa_methods: [] },
});
const BODY = userCreated('did:privy:cfbsvtqo2c22202mo08847jdux2z', 'ada@example.com', 969628260);
const TAMPERED = BODY.replace('ada@', 'adb@');

const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], ['svix-id', id], ['svix-timestamp', String(ts)], ['svix-signature', sigs.join(' ')]];

const client = new PrivyClient('cm0privyvectorsapp00000000', 'privy-vectors-app-secret');
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name)?.[1];

// PrivyClient.verifyWebhook logs the underlying svix error and rethrows a
// generic one; the logged error tells the verdicts apart.
async function sdkVerdict(c) {
  const realNow = Date.now;
  const realError = console.error;
  Date.now = () => c.now * 1000; // the verifier reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      let cause;
      console.error = (_msg, e) => { cause = e; };
      try {
        await client.verifyWebhook(JSON.parse(c.body),
          { id: header(c, 'svix-id'), timestamp: header(c, 'svix-timestamp'), signature: header(c, 'svix-signature') }, s);
        return 'valid';
      } catch (e) {
        const why = cause?.message ?? e.message;
        if (why === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(why)) verdict = 'timestamp_out_of_tolerance';
        else if (why !== 'No matching signature found') throw cause ?? e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
    console.error = realError;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(MSG_ID, sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'svix-signature') });
const ts = NOW - 2;
const cases = [
  { name: 'user.created signed by Webhook.sign, accepted by PrivyClient.verifyWebhook', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: svix-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, MSG_ID, ts, BODY), sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.privy.io/user-management/users/webhooks/handling-events';
const out = {
  kind: 'privy',
  source: { kind: 'sdk', package: '@privy-io/server-auth', registry: 'npm', version: '1.32.5',
    function: 'PrivyClient.verifyWebhook (every verdict); signed by its dependency svix 1.99.1 Webhook.sign', url: DOCS },
  facts: {
    title: 'Privy',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the webhook signing key (Dashboard > Configuration > Webhooks), "whsec_" + base64',
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
const CORPUS_SECRET = 'whsec_cHJpdnktY29ycHVzLXNpZ25pbmctc2VjcmV0LTAx';
const DIR = new URL('../../captures/privy/', import.meta.url);
const ID1 = 'msg_2cA1privyCorpus0001xYzWqR';
const ID2 = 'msg_2cA1privyCorpus0002pQrStU';
const BODY2 = userCreated('did:privy:clz8corpus0000000000000002', 'grace@example.com', 1767225600);
const shots = [
  ['0001-user-created.json', ID1, SENT - 20, BODY, 'accepted', 'a user.created webhook: https://docs.privy.io/user-management/users/webhooks/handling-events'],
  ['0002-user-created-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
  ['0003-user-created-other.json', ID2, SENT, BODY2, 'accepted', 'another user.created under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (await sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by PrivyClient.verifyWebhook`);
  const capture = { provider: 'privy', kind: 'privy', tenant: 'default', method: 'POST', path: '/webhooks/privy', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `privy/${file}`, expect, events: [{ id, type: JSON.parse(body).type }], why });
}
const manifest = { route: 'privy', kind: 'privy', secrets: [CORPUS_SECRET],
  source: 'signed by svix 1.99.1 Webhook.sign and checked by @privy-io/server-auth 1.32.5 PrivyClient.verifyWebhook: tests/vectors/privy/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`privy: ${cases.length} cases, ${captures.length} captures`);
