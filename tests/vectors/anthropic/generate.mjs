// Known-answer vectors for Anthropic (Claude Platform) webhooks: every verdict is
// the official @anthropic-ai/sdk client.beta.webhooks.unwrap's; the requests are
// signed with standardwebhooks' Webhook.sign, the library unwrap verifies with
// (the SDK's dependency).
import { writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { Webhook } from 'standardwebhooks';

const NOW = 1700000000;
const SECRET = 'whsec_' + Buffer.from('anthropic-test-signing-key-0123').toString('base64');
const OLD = 'whsec_' + Buffer.from('anthropic-old-signing-key-45678').toString('base64');
const OTHER = 'whsec_' + Buffer.from('anthropic-other-signing-key-999').toString('base64');
const HOOK_URL = 'https://hooks.example.com/webhooks/anthropic/acme';
const MSG_ID = 'msg_2cGq8Mw3Zl0Aq4Wo6Su9It5Gh7B';
const EVENT_ID = 'wevt_01JB2X7Q9R3S5T7V9W1Y3Z5A7C';
// A BetaWebhookEvent as the SDK types it: id, created_at, type "event", data with its own type.
const BODY = JSON.stringify({
  type: 'event',
  id: EVENT_ID,
  created_at: '2023-11-14T22:13:18Z',
  data: { type: 'session.created', id: 'sesn_01JB2X7Q9R3S5T7V9W1Y3Z5A7D', organization_id: '8f2c1a9e-3b4d-4e5f-a6b7-c8d9e0f1a2b3' },
});
const TAMPERED = BODY.replace('session.created', 'session.createe');

const client = new Anthropic({ apiKey: 'unused' });
const sign = (secret, ts, body) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['webhook-id', MSG_ID], ['webhook-timestamp', String(ts)], ['webhook-signature', sigs.join(' ')]];
const SIG_HEADERS = ['webhook-signature'];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const key of c.secrets) {
      try {
        client.beta.webhooks.unwrap(c.body, { headers: Object.fromEntries(c.headers), key });
        return 'valid';
      } catch (e) {
        if (/Missing required headers/.test(e.message)) return 'missing_signature';
        if (/timestamp too (old|new)/i.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/No matching signature/.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW - 2;
const ok = { event_id: EVENT_ID, event_type: 'session.created' };
const cases = [
  { name: 'session.created signed by standardwebhooks, accepted by client.beta.webhooks.unwrap', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: "rotation: webhook-signature carries the old and the new key's signatures, the tenant holds only the new", secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing key', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'anthropic',
  source: { kind: 'sdk', package: '@anthropic-ai/sdk', registry: 'npm', version: '1.12.0',
    function: 'client.beta.webhooks.unwrap; signed with standardwebhooks 1.1.1 Webhook#sign, its dependency',
    url: 'https://platform.claude.com/docs/en/api/typescript/beta/webhooks/unwrap' },
  facts: {
    title: 'Anthropic (Claude Platform)',
    docs: 'https://platform.claude.com/docs/en/api/typescript/beta/webhooks/unwrap',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded key after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the webhook signing key (ANTHROPIC_WEBHOOK_SIGNING_KEY), "whsec_" + base64; the HMAC key is the base64-decoded part',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way (standardwebhooks)',
    event_id: { json_pointer: '/id' },
    event_id_note: "the body's id is the \"Unique event identifier for idempotency\" (BetaWebhookEvent in the SDK's types and reference)",
    event_type: { json_pointer: '/data/type' },
    retry_horizon: 'not stated on the pages consulted; keep the default window',
    retry_source: 'https://platform.claude.com/docs/en/api/typescript/beta/webhooks/unwrap',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
