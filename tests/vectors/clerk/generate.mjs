// Known-answer vectors for Clerk webhooks (sent through Svix): signed with
// standardwebhooks' Webhook.sign, the library Clerk's SDK verifies with, and every
// verdict from the official SDK's verifyWebhook (@clerk/backend/webhooks).
import { writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@clerk/backend/webhooks';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/clerk/acme';
const MSG_ID = 'msg_2Yh8rXhcP4ZqZ9pL3kTq1vN7wEa';
// The documented user.created payload (trimmed): data, object, type, timestamp, instance_id.
const BODY = JSON.stringify({
  data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC', object: 'user', first_name: 'Example', last_name: 'Example',
    email_addresses: [{ email_address: 'example@example.org', id: 'idn_29w83yL7CwVlJXylYLxcslromF1', object: 'email_address' }],
    primary_email_address_id: 'idn_29w83yL7CwVlJXylYLxcslromF1', created_at: 1654012591514, updated_at: 1654012591835 },
  event_attributes: { http_request: { client_ip: '0.0.0.0', user_agent: 'Mozilla/5.0' } },
  instance_id: 'ins_123', object: 'event', timestamp: 1654012591835, type: 'user.created',
});
const TAMPERED = BODY.replace('"Example"', '"Exampla"');

const sign = (secret, ts, body) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['svix-id', MSG_ID], ['svix-timestamp', String(ts)], ['svix-signature', sigs.join(' ')]];
const SIG_HEADERS = ['svix-signature'];

async function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      const request = new Request(c.url, { method: c.method, headers: c.headers, body: c.body });
      try {
        await verifyWebhook(request, { signingSecret: s });
        return 'valid';
      } catch (e) {
        if (/Missing required webhook headers: svix-signature/.test(e.message)) return 'missing_signature';
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
const ok = { event_id: MSG_ID, event_type: 'user.created' };
const cases = [
  { name: 'user.created signed by standardwebhooks, accepted by verifyWebhook', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: svix-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'clerk',
  source: { kind: 'sdk', package: '@clerk/backend', registry: 'npm', version: '3.25.0',
    function: 'verifyWebhook (@clerk/backend/webhooks); signed with standardwebhooks 1.1.1 Webhook.sign, its dependency',
    url: 'https://clerk.com/docs/guides/development/webhooks/overview' },
  facts: {
    title: 'Clerk',
    docs: 'https://clerk.com/docs/guides/development/webhooks/overview',
    scheme: 'Svix / Standard Webhooks: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing Secret from the Clerk Dashboard (Webhooks > endpoint), "whsec_" + base64; the HMAC key is the base64-decoded part',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the message ID, the same on every retry of the message: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
