// Known-answer vectors for Resend, checked by the official `resend` SDK's
// webhooks.verify (Resend signs with Svix; the SDK only verifies, so each
// request is built here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { Resend } from 'resend';

const SECRET = 'whsec_' + Buffer.from('resend-test-signing-secret-01234').toString('base64');
const OTHER = 'whsec_' + Buffer.from('resend-other-signing-secret-9876').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/resend';
const [H_ID, H_TS, H_SIG] = ['svix-id', 'svix-timestamp', 'svix-signature'];
const MSG_ID = 'msg_2YdXsh1l5LO2VZ4Q2lh8Y5f0ZbQ';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'email.delivered';
// The documented event shape: https://resend.com/docs/dashboard/webhooks/event-types
const BODY = JSON.stringify({
  type: 'email.delivered',
  created_at: '2023-11-14T22:13:15.000Z',
  data: {
    created_at: '2023-11-14T22:13:10.000Z',
    email_id: '56761188-7520-42d8-8898-ff6fc54ce618',
    from: 'Acme <onboarding@resend.dev>',
    to: ['delivered@resend.dev'],
    subject: 'Sending this example',
  },
});

// Standard Webhooks request builder shared by the cases below: webhook-id,
// webhook-timestamp and webhook-signature ("v1,<base64 HMAC-SHA256>" over
// id + "." + timestamp + "." + body, keyed with the base64 after "whsec_").
const key = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const sign = (secret, id, ts, b) => 'v1,' + crypto.createHmac('sha256', key(secret)).update(`${id}.${ts}.${b}`).digest('base64');
function request({ ts = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [H_ID, MSG_ID], [H_TS, String(ts)]];
  if (!drop) headers.push([H_SIG, signWith.map((s) => sign(s, MSG_ID, ts, BODY)).join(' ')]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(/"type":"(.)/, (m, ch) => m.slice(0, -1) + (ch === 'x' ? 'y' : 'x'));
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ ts: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ ts: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two signatures during rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const resend = new Resend('re_unused');
const verify = (c, secret) => {
  const h = headerMap(c);
  return resend.webhooks.verify({ payload: c.body, headers: { id: h['svix-id'], timestamp: h['svix-timestamp'], signature: h['svix-signature'] }, webhookSecret: secret });
};
const classify = (e) =>
  e.name !== 'WebhookVerificationError' ? null
  : /Missing required headers/.test(e.message) ? 'missing_signature'
  : /too old|too new/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /No matching signature/.test(e.message) ? 'invalid_signature'
  : null;
// Run the SDK's verifier with the clock fixed at the case's `now`, trying the
// tenant's secrets one at a time; the script stops on any disagreement, and on
// any error the SDK's own messages do not explain.
const headerMap = (c) => Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
async function sdkVerdict(c) {
  const RealDate = Date;
  const fixed = c.now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try {
    let last = null;
    for (const secret of c.secrets) {
      try {
        if ((await verify(c, secret)) === false) throw new Error('verifier returned false');
        return 'valid';
      } catch (e) {
        last = e;
      }
    }
    const verdict = classify(last);
    if (!verdict) throw last;
    return verdict;
  } finally {
    globalThis.Date = RealDate;
  }
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'resend',
  source: {
    kind: 'sdk', package: 'resend', registry: 'npm', version: '6.38.0',
    function: 'Resend#webhooks.verify (standardwebhooks 1.1.1 underneath)',
    url: 'https://resend.com/docs/dashboard/webhooks/verify-webhooks-requests',
  },
  facts: {
    title: 'Resend',
    docs: 'https://resend.com/docs/dashboard/webhooks/verify-webhooks-requests',
    scheme: 'Svix / Standard Webhooks with svix-* header names: svix-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body)>"',
    secret: 'the webhook signing secret as the dashboard shows it, "whsec_<base64>"',
    timestamp: 'svix-timestamp, unix seconds, signed; tolerance 300 s both directions',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the message ID, the same on every retry: https://resend.com/docs/dashboard/webhooks/introduction',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'retries after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h (about 17.6 hours in all)',
    retry_source: 'https://resend.com/docs/dashboard/webhooks/introduction',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`resend: ${cases.length} cases`);
