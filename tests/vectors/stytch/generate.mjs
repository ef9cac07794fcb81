// Known-answer vectors for Stytch. Stytch delivers webhooks through Svix and
// its docs verify them with the `svix` library
// (https://stytch.com/docs/guides/webhooks/getting-started): each case is signed
// with svix's Webhook#sign and checked by its Webhook#verify, as the docs do.
import fs from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const SECRET = 'whsec_' + Buffer.from('stytch-test-signing-secret-01234').toString('base64');
const OTHER = 'whsec_' + Buffer.from('stytch-other-signing-secret-9876').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/stytch';
const [H_ID, H_TS, H_SIG] = ['svix-id', 'svix-timestamp', 'svix-signature'];
const MSG_ID = 'msg_2YdbF1tNqTz9aH7cV5xK3mJ8pLq';
const EVENT_ID = 'event-test-ad1a5c2e-4f6b-4c3d-9e8f-0a1b2c3d4e5f';
// The documented event shape: https://stytch.com/docs/guides/webhooks/events
const BODY = JSON.stringify({
  project_id: 'project-test-6c20cd16-73d5-44f7-852c-9a7e7b2ccf62',
  event_id: EVENT_ID,
  action: 'CREATE',
  object_type: 'user',
  source: 'DIRECT',
  id: 'user-test-16d9ba61-97a1-4ba4-9720-b03761dc50c6',
  timestamp: '2023-11-14T22:13:15Z',
  user: { user_id: 'user-test-16d9ba61-97a1-4ba4-9720-b03761dc50c6', status: 'active', emails: [{ email: 'sandbox@stytch.com', verified: true }] },
});

// Svix's own signer, one signature per secret, space-separated during rotation.
const sign = (secret, ts) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), BODY);
function request({ ts = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [H_ID, MSG_ID], [H_TS, String(ts)]];
  if (!drop) headers.push([H_SIG, signWith.map((s) => sign(s, ts)).join(' ')]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"sandbox@stytch.com"', '"sandbox@stytch.con"');
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ ts: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ ts: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two signatures during rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID } : {}) }));

const verify = (c, secret) => new Webhook(secret).verify(c.body, headerMap(c));
const classify = (e) =>
  e.name !== 'WebhookVerificationError' ? null
  : /Missing required headers/.test(e.message) ? 'missing_signature'
  : /too old|too new/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /No matching signature/.test(e.message) ? 'invalid_signature'
  : null;
// Run the verifier with the clock fixed at the case's `now`, trying the
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
  kind: 'stytch',
  source: {
    kind: 'docs-code', package: 'svix', registry: 'npm', version: '1.99.1',
    function: 'svix Webhook#sign / Webhook#verify, as Stytch\'s docs use it',
    url: 'https://stytch.com/docs/guides/webhooks/getting-started',
  },
  facts: {
    title: 'Stytch',
    docs: 'https://stytch.com/docs/guides/webhooks/getting-started',
    scheme: 'Svix: svix-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body)>"',
    secret: 'the webhook endpoint\'s signing secret from the Stytch dashboard (Webhooks), "whsec_<base64>"',
    timestamp: 'svix-timestamp, unix seconds, signed; tolerance 300 s both directions',
    event_id: { json_pointer: '/event_id' },
    event_id_note: 'event_id identifies the event (svix-id the message, also stable on retries): https://stytch.com/docs/guides/webhooks/events',
    event_type: null,
    retry_horizon: 'Svix retry schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 28 hours)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`stytch: ${cases.length} cases`);
