// Known-answer vectors for incident.io webhooks, which are "powered by Svix"
// and arrive with unbranded webhook-id / webhook-timestamp / webhook-signature
// headers (https://docs.incident.io/api-reference/webhooks). Signed with the
// Svix client library the docs point to (svix 2.5.0, Webhook.sign) and every
// verdict is its Webhook.verify. Also writes incident.io's corpus captures
// (tests/captures/incident-io/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/incident-io';
const MSG_ID = 'msg_2bX9kQe3LmT7vR1pN4sY8wZ0aC6';
// The documented shape: {"event_type": T, T: {...}}
// (https://docs.incident.io/api-reference/follow-up-v2/updated-public), trimmed.
const followUp = (id, status) => JSON.stringify({
  event_type: 'public_incident.follow_up_updated_v2',
  'public_incident.follow_up_updated_v2': {
    id, incident_id: '01FCNDV6P870EA6S7TK1DSYDG0', title: 'Cat is stuck in the tree',
    description: 'Call the fire brigade', status, labels: ['bug', 'urgent'],
    created_at: '2021-08-17T13:28:57.801578Z', updated_at: '2021-08-17T13:28:57.801578Z',
  },
});
const BODY = followUp('01FCNDV6P870EA6S7TK1DSYDG0', 'outstanding');
const TAMPERED = BODY.replace('outstanding', 'outstandinh');

const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], ['webhook-id', id], ['webhook-timestamp', String(ts)], ['webhook-signature', sigs.join(' ')]];

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
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'webhook-signature') });
const ts = NOW - 2;
const cases = [
  { name: 'public_incident.follow_up_updated_v2 signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: webhook-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, MSG_ID, ts, BODY), sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.incident.io/api-reference/webhooks';
const out = {
  kind: 'incident-io',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix client library incident.io\'s docs name)', url: DOCS },
  facts: {
    title: 'incident.io',
    docs: DOCS,
    scheme: 'Svix / Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the Signing secret of the webhook endpoint (Settings > Webhooks), "whsec_" + base64',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'resent with backoff over the next 24 hours (Svix schedule, about 28 hours in all)',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_aW5jaWRlbnQtaW8tY29ycHVzLXNlY3JldC0wMQ==';
const DIR = new URL('../../captures/incident-io/', import.meta.url);
const ID1 = 'msg_2cA1incidentCorpus0001xYzW';
const ID2 = 'msg_2cA1incidentCorpus0002pQrS';
const BODY2 = followUp('01FCNDV6P870EA6S7TK1DSYDG1', 'completed');
const shots = [
  ['0001-follow-up-updated.json', ID1, SENT - 20, BODY, 'accepted', 'a public_incident.follow_up_updated_v2 webhook: https://docs.incident.io/api-reference/follow-up-v2/updated-public'],
  ['0002-follow-up-updated-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message resent after a failure, the same webhook-id and a new timestamp: https://docs.incident.io/api-reference/webhooks'],
  ['0003-follow-up-completed.json', ID2, SENT, BODY2, 'accepted', 'another follow-up update under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'incident-io', kind: 'incident-io', tenant: 'default', method: 'POST', path: '/webhooks/incident-io', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `incident-io/${file}`, expect, events: [{ id, type: JSON.parse(body).event_type }], why });
}
const manifest = { route: 'incident-io', kind: 'incident-io', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/incident-io/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`incident-io: ${cases.length} cases, ${captures.length} captures`);
