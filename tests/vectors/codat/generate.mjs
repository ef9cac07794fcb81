// Known-answer vectors for Codat webhooks. Codat's docs tell consumers to
// verify with the Svix library ("we suggest using a library called Svix"), and
// their example passes svix-id / svix-timestamp / svix-signature headers
// (https://docs.codat.io/using-the-api/webhooks/create-consumer). Signed with
// svix 2.5.0 Webhook.sign and every verdict is its Webhook.verify. Also writes
// Codat's corpus captures (tests/captures/codat/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/codat';
const MSG_ID = 'msg_2bXcodatQe3LmT7vR1pN4sY8wZ';
// The new event schema (https://docs.codat.io/using-the-api/webhooks/migration-guide),
// a read.completed event, trimmed.
const readCompleted = (id, dataType) => JSON.stringify({
  id,
  eventType: 'read.completed',
  generatedDate: '2024-08-07T12:02:32.15033Z',
  payload: {
    referenceCompany: { id: '8a210b68-6988-11ed-a1eb-0242ac120002', name: 'Toft stores',
      links: { portal: 'https://app.codat.io/companies/8a210b68-6988-11ed-a1eb-0242ac120002/summary' } },
    dataType, datasetId: '1541a5ee-0d84-4b6e-a7f7-c07c1f216333', datasetStatus: 'Complete',
  },
});
const BODY = readCompleted('a9367074-b5c3-42c4-9be4-be129f43577e', 'creditNotes');
const TAMPERED = BODY.replace('creditNotes', 'creditNoteS');

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
  { name: 'read.completed signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
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

const DOCS = 'https://docs.codat.io/using-the-api/webhooks/create-consumer';
const out = {
  kind: 'codat',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix library Codat\'s docs name for verification)', url: DOCS },
  facts: {
    title: 'Codat',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing secret (Monitor > Webhooks > Events > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried or replayed: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.codat.io/using-the-api/webhooks/troubleshooting',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_Y29kYXQtY29ycHVzLXNpZ25pbmctc2VjcmV0LTAx';
const DIR = new URL('../../captures/codat/', import.meta.url);
const ID1 = 'msg_2cA1codatCorpus0001xYzWqR';
const ID2 = 'msg_2cA1codatCorpus0002pQrStU';
const BODY2 = readCompleted('b1c2d3e4-0000-4c4c-8d8d-0123456789ab', 'invoices');
const shots = [
  ['0001-read-completed.json', ID1, SENT - 20, BODY, 'accepted', 'a read.completed event in the new schema: https://docs.codat.io/using-the-api/webhooks/migration-guide'],
  ['0002-read-completed-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.codat.io/using-the-api/webhooks/troubleshooting'],
  ['0003-read-completed-invoices.json', ID2, SENT, BODY2, 'accepted', 'another read.completed under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'codat', kind: 'codat', tenant: 'default', method: 'POST', path: '/webhooks/codat', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `codat/${file}`, expect, events: [{ id, type: JSON.parse(body).eventType }], why });
}
const manifest = { route: 'codat', kind: 'codat', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/codat/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`codat: ${cases.length} cases, ${captures.length} captures`);
