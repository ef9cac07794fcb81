// Known-answer vectors for Svix-sent webhooks: signed with the official SDK's
// Webhook.sign and every verdict from its Webhook.verify (svix).
import { writeFileSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/svix/acme';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
// The body an application sends through Svix: its own event JSON, here in the docs' example shape.
const BODY = JSON.stringify({ type: 'invoice.paid', id: 'evt_Wqb1k73rXprtTm7Qdlr38G', data: { id: 'invoice_1', status: 'paid', amount: 1500 } });
const TAMPERED = BODY.replace('1500', '1501');

const sign = (secret, ts, body) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts, prefix = 'svix') => [['Content-Type', 'application/json'], [`${prefix}-id`, MSG_ID], [`${prefix}-timestamp`, String(ts)], [`${prefix}-signature`, sigs.join(' ')]];

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

const req = (sigs, ts, body = BODY, prefix = 'svix') => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts, prefix), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !/-signature$/.test(k.toLowerCase())) });
const ts = NOW - 2;
const ok = { event_id: MSG_ID };
const cases = [
  { name: 'svix-* headers signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'unbranded webhook-* headers (the same signature) are accepted too', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts, BODY, 'webhook'), expect: 'valid', ...ok },
  { name: 'rotation: svix-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another endpoint secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.svix.com/receiving/verifying-payloads/how';
const out = {
  kind: 'svix',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (wrapping standardwebhooks 1.1.1)', url: DOCS },
  facts: {
    title: 'Svix (any sender that delivers through Svix)',
    docs: DOCS,
    scheme: 'svix-signature (or webhook-signature) = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, id + "." + timestamp + "." + raw body))>"; svix-* headers take precedence over webhook-*',
    secret: 'the endpoint\'s signing secret from the sender\'s Svix app portal, "whsec_" + base64; the HMAC key is the base64-decoded part',
    timestamp: 'svix-timestamp (or webhook-timestamp), unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the message ID, the same on every retry of the message (with unbranded headers it arrives as webhook-id): https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: null,
    retry_horizon: 'immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
// The definition (standard-webhooks) reads the type from the body's /type.
withIdentity(out, { eventType: { json_pointer: '/type' } });
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
