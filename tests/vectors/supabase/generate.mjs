// Known-answer vectors for Supabase Auth HTTP hooks (Send Email / Send SMS): signed
// with standardwebhooks 1.0.0's Webhook.sign, and every verdict from the docs' own
// verification code (auth-hooks.mdx, HTTP tab), run unchanged below with the same
// standardwebhooks version the sample imports from esm.sh.
import { writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// The dashboard generates hook secrets as "v1,whsec_<standard base64>".
const SECRET = 'v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'v1,whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'v1,whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/supabase/acme/send-email';
const MSG_ID = 'msg_2hK9pQ4rT7vW1xY3zA6bC8dE0fG';
// The docs' Send Email hook input: user and email_data (trimmed user object).
const BODY = JSON.stringify({
  user: { id: '8484b834-f29e-4af2-bf42-80644d154f76', aud: 'authenticated', role: 'authenticated', email: 'john@soupbase.io', phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: { email: 'john@soupbase.io', email_verified: false, phone_verified: false, sub: '8484b834-f29e-4af2-bf42-80644d154f76' },
    created_at: '2024-05-14T12:56:33.821567Z', updated_at: '2024-05-14T12:56:33.825595Z', is_anonymous: false },
  email_data: { token: '305805', token_hash: '7d5b7b1964cf5d388340a7f04f1dbb5eeb6c7b52ef8270e1737a58d0', redirect_to: 'http://localhost:3000/',
    email_action_type: 'signup', site_url: 'http://localhost:9999', token_new: '', token_hash_new: '' },
});
const TAMPERED = BODY.replace('305805', '305806');

// The docs' verification, unchanged apart from taking the secret, body and headers as arguments:
//   const hookSecret = Deno.env.get('SEND_SMS_HOOK_SECRETS').replace('v1,whsec_', '')
//   const headers = Object.fromEntries(req.headers)
//   const wh = new Webhook(hookSecret)
//   const data = wh.verify(payload, headers)
function docsVerify(secret, payload, headers) {
  const hookSecret = secret.replace('v1,whsec_', '');
  const wh = new Webhook(hookSecret);
  return wh.verify(payload, headers);
}

const sign = (secret, ts, body) => new Webhook(secret.replace('v1,whsec_', '')).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['webhook-id', MSG_ID], ['webhook-timestamp', String(ts)], ['webhook-signature', sigs.join(' ')]];

function verdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    let v = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        docsVerify(s, c.body, Object.fromEntries(c.headers.map(([k, val]) => [k.toLowerCase(), val])));
        return 'valid';
      } catch (e) {
        if (e.message === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(e.message)) v = 'timestamp_out_of_tolerance';
        else if (e.message !== 'No matching signature found') throw e;
      }
    }
    return v;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'webhook-signature') });
const ts = NOW - 2;
const ok = { event_id: MSG_ID };
const cases = [
  { name: 'Send Email hook signed by standardwebhooks, accepted by the docs\' verification code', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'webhook-signature carries two signatures (old and new secret), the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured hook secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another hook secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' code says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://supabase.com/docs/guides/auth/auth-hooks';
const out = {
  kind: 'supabase',
  source: { kind: 'docs-code', package: 'standardwebhooks', registry: 'npm', version: '1.0.0',
    function: 'the docs\' HTTP hook sample: new Webhook(secret.replace("v1,whsec_", "")).verify(payload, headers); signed with Webhook.sign', url: DOCS },
  facts: {
    title: 'Supabase Auth (HTTP hooks: Send Email, Send SMS)',
    docs: DOCS,
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded part after "v1,whsec_", webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the hook secret the dashboard generates (Authentication > Hooks), "v1,whsec_<standard base64>"; strip "v1,whsec_" and base64-decode the rest',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way (standardwebhooks)',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is "the unique webhook identifier"; a hook retry re-sends the same request: ' + DOCS,
    event_type: null,
    retry_horizon: 'up to three retries with a 2 s back-off, only on 429/503 with a retry-after header, all within a 5 s budget',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
