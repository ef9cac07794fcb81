// Known-answer vectors for Polar, checked by the official @polar-sh/sdk
// (webhooks.validateEvent). The SDK only verifies, so each request is built
// here and the SDK decides its verdict.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { webhooks } from '@polar-sh/sdk/2026-04';

const SECRET = 'polar_whs_TestSecret0123456789abcdefghijklmnopqrstu';
const OTHER = 'polar_whs_OtherSecret9876543210zyxwvutsrqponmlkjihg';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/polar';
const [H_ID, H_TS, H_SIG] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const MSG_ID = 'msg_2YdWc7lcBgpBV8VLnPDlVNFBJ4l';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'order.paid';
// The documented event shape: https://docs.polar.sh/integrate/webhooks/events
const BODY = JSON.stringify({
  type: 'order.paid',
  timestamp: '2023-11-14T22:13:15.000000Z',
  data: { id: '3e3d4c9a-5f8b-4b6e-9d2a-1c7f0e8b6a41', status: 'paid', total_amount: 2500, currency: 'usd' },
});

// Standard Webhooks request builder shared by the cases below: webhook-id,
// webhook-timestamp and webhook-signature ("v1,<base64 HMAC-SHA256>" over
// id + "." + timestamp + "." + body, keyed with the secret's UTF-8 bytes).
const key = (secret) => Buffer.from(secret, 'utf8'); // Polar: the secret's own UTF-8 bytes (NOTES.md)
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
  { name: 'webhook-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ ts: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ ts: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two signatures during rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => webhooks.validateEvent(c.body, headerMap(c), secret);
const classify = (e) =>
  !(e instanceof webhooks.PolarWebhookVerificationError) ? null
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
  kind: 'polar',
  source: {
    kind: 'sdk', package: '@polar-sh/sdk', registry: 'npm', version: '1.0.1',
    function: 'webhooks.validateEvent (@polar-sh/sdk/2026-04)',
    url: 'https://docs.polar.sh/integrate/webhooks/delivery',
  },
  facts: {
    title: 'Polar',
    docs: 'https://docs.polar.sh/integrate/webhooks/delivery',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64 HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body)>", key = the UTF-8 bytes of the secret as shown',
    secret: 'the endpoint secret as the Polar dashboard shows it (polar_whs_...); unlike plain Standard Webhooks it is NOT base64-decoded',
    timestamp: 'webhook-timestamp, unix seconds, signed; SDK tolerance 300 s both directions',
    event_id: { header: 'webhook-id' },
    event_id_note: 'the body carries no event ID; webhook-id is the Standard Webhooks message ID, the same on every retry: https://docs.polar.sh/integrate/webhooks/delivery',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the delivery page; use the default window',
    retry_source: 'https://docs.polar.sh/integrate/webhooks/delivery',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`polar: ${cases.length} cases`);
