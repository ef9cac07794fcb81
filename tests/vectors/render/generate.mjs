// Known-answer vectors for Render webhooks, which follow Standard Webhooks:
// webhook-id / webhook-timestamp / webhook-signature headers
// (https://render.com/docs/webhooks). Render's own example receiver
// (github.com/render-examples/webhook-receiver) verifies them with the
// `standardwebhooks` package's Webhook.verify; the vectors are signed with
// that package's Webhook.sign (1.1.1) and every verdict is its Webhook.verify.
// Also writes Render's corpus captures (tests/captures/render/), signed and
// checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// Render's dashboard shows the secret with its whsec_ prefix; the example
// receiver passes it to `new Webhook(secret)` as is.
const SECRET = 'whsec_cmVuZGVyLXZlY3RvcnMtc2lnbmluZy1rZXktMDE=';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/render';
const MSG_ID = 'evt-d1a2b3c4e5f6a7b8c9d0';
// The payload shape of the example receiver's WebhookPayload and of Render's
// events: {type, timestamp, data: {id, serviceId, serviceName, status}}.
const event = (type, id, status, at) => JSON.stringify({
  type, timestamp: at,
  data: { id, serviceId: 'srv-cukouhrtq21c73e9scng', serviceName: 'backend-api', status },
});
const BODY = event('deploy_ended', 'evj-cukouhrtq21c73e9scng', 'succeeded', '2023-11-14T22:13:18.000000Z');
const TAMPERED = BODY.replace('succeeded', 'succeedec');

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
  { name: 'deploy_ended signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
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

const DOCS = 'https://render.com/docs/webhooks';
const out = {
  kind: 'render',
  source: { kind: 'sdk', package: 'standardwebhooks', registry: 'npm', version: '1.1.1',
    function: 'Webhook.sign / Webhook.verify (the verifier of Render\'s example receiver, render-examples/webhook-receiver)', url: DOCS },
  facts: {
    title: 'Render',
    docs: DOCS,
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the webhook\'s signing secret from the Render Dashboard (Integrations > Webhooks), "whsec_" + base64',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id identifies the message and stays the same on its retries (Standard Webhooks: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md)',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'up to eight attempts with exponential backoff, the last about 33 hours after the first',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: a delivery, its retry (same webhook-id, signed again
// later) and the next event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_cmVuZGVyLWNvcnB1cy1zaWduaW5nLXNlY3JldC0x';
const DIR = new URL('../../captures/render/', import.meta.url);
const ID1 = 'evt-corpus-render-0001';
const ID2 = 'evt-corpus-render-0002';
const STARTED = event('deploy_started', 'evj-corpusrender000001', 'started', '2025-12-31T23:58:00.000000Z');
const ENDED = event('deploy_ended', 'evj-corpusrender000001', 'succeeded', '2025-12-31T23:59:30.000000Z');
const shots = [
  ['0001-deploy-started.json', ID1, SENT - 60, STARTED, 'accepted', 'a deploy_started webhook: https://render.com/docs/webhooks'],
  ['0002-deploy-started-retried.json', ID1, SENT - 30, STARTED, 'duplicate', 'the same message retried (same webhook-id, new timestamp and signature): https://render.com/docs/webhooks'],
  ['0003-deploy-ended.json', ID2, SENT, ENDED, 'accepted', 'the deploy_ended that follows, under its own webhook-id'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'render', kind: 'render', tenant: 'default', method: 'POST', path: '/webhooks/render', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `render/${file}`, expect, events: [{ id, type: JSON.parse(body).type }], why });
}
const manifest = { route: 'render', kind: 'render', secrets: [CORPUS_SECRET],
  source: 'signed by standardwebhooks 1.1.1 Webhook.sign and checked by its Webhook.verify (the verifier of Render\'s example receiver): tests/vectors/render/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`render: ${cases.length} cases, ${captures.length} captures`);
