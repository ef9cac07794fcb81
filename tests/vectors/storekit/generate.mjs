// Known-answer vectors for storekit webhooks, which carry svix-id /
// svix-timestamp / svix-signature headers
// (https://storekit.com/docs/developers/webhooks/payload-format); storekit's
// docs recommend "the official Svix libraries for verification"
// (https://storekit.com/docs/developers/webhooks/verifying-signatures).
// Signed with that library (svix 2.5.0, Webhook.sign) and every verdict is
// its Webhook.verify. Also writes storekit's corpus captures
// (tests/captures/storekit/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://storekit.com/docs/developers/webhooks/verifying-signatures';
const PAYLOAD = 'https://storekit.com/docs/developers/webhooks/payload-format';
const NOW = 1700000000;
const SECRET = 'whsec_c3RvcmVraXQtdmVjdG9yLXNlY3JldC0wMQ==';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/storekit';
const MSG_ID = 'msg_2gR8storekitVector0001cD';
// The documented payload: {"event", "data"}, here the docs' order.created
// example (PAYLOAD), trimmed, with the order as a parameter.
const order = (event, id, code, total) => JSON.stringify({ event, data: {
  id, code, total, tip: 250, orderType: 'Pickup', asap: true, createdAt: '2024-01-15T10:30:00Z',
  customer: { firstName: 'John', lastName: 'Doe', email: 'john@example.com', phone: '+44123456789' },
  items: [{ name: 'Margherita Pizza', price: 1200, quantity: 1, modifiers: [] }],
  venue: { id: 1234, name: 'My Restaurant', slug: 'my-restaurant' },
} });
const BODY = order('order.created', 'ord_abc123', 'A1B2', 2500);
const TAMPERED = BODY.replace('"total":2500', '"total":2501');

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
  { name: 'order.created signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
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

const RETRIES = 'https://docs.svix.com/retries';
const out = {
  kind: 'storekit',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix library storekit\'s docs recommend)', url: DOCS },
  facts: {
    title: 'storekit',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s signing secret in the storekit dashboard, "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated by storekit; the Svix schedule its headers come from retries for about 28 hours',
    retry_source: RETRIES,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: an order created, its retry (the same message ID,
// signed again later) and another order.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_c3RvcmVraXQtY29ycHVzLXNlY3JldC0wMQ==';
const DIR = new URL('../../captures/storekit/', import.meta.url);
const ID1 = 'msg_2gR8storekitCorpus0001xY';
const ID2 = 'msg_2gR8storekitCorpus0002pQ';
const B1 = order('order.created', 'ord_def456', 'C3D4', 1800);
const B2 = order('order.created', 'ord_ghi789', 'E5F6', 3100);
const shots = [
  ['0001-order-created.json', ID1, SENT - 20, B1, 'accepted', `an order.created webhook: ${PAYLOAD}`],
  ['0002-order-created-retried.json', ID1, SENT, B1, 'duplicate', `the same message resent after a failure, the same svix-id and a new timestamp: ${RETRIES}`],
  ['0003-order-created-next.json', ID2, SENT, B2, 'accepted', 'another order, under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'storekit', kind: 'storekit', tenant: 'default', method: 'POST', path: '/webhooks/storekit', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `storekit/${file}`, expect, events: [{ id, type: JSON.parse(body).event }], why });
}
const manifest = { route: 'storekit', kind: 'storekit', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/storekit/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`storekit: ${cases.length} cases, ${captures.length} captures`);
