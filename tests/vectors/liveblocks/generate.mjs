// Known-answer vectors for Liveblocks, checked by the official @liveblocks/node
// SDK's WebhookHandler#verifyRequest (Standard Webhooks; it only verifies, so
// each request is built here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { WebhookHandler } from '@liveblocks/node';

const SECRET = 'whsec_' + Buffer.from('liveblocks-test-secret-012345678').toString('base64');
const OTHER = 'whsec_' + Buffer.from('liveblocks-other-secret-98765432').toString('base64');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/liveblocks';
const [H_ID, H_TS, H_SIG] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const MSG_ID = 'msg_2YdaA9s0KfYp3w5UoH6rC1tXb8e';
const EVENT_ID = MSG_ID;
const EVENT_TYPE = 'userEntered';
// The documented event shape: https://liveblocks.io/docs/platform/webhooks#UserEnteredEvent
const BODY = JSON.stringify({
  type: 'userEntered',
  data: { projectId: '605a50b01a36d5ea7a2e9104', roomId: 'examples-hero-21-07-2022', connectionId: 4, userId: 'user-123', userInfo: null, enteredAt: '2023-11-14T22:13:15.000Z', numActiveUsers: 8 },
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
const flip = (b) => b.replace(/"type":"(.)/, (m, ch) => m.slice(0, -1) + (ch === "v" ? "w" : "v"));
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

const verify = (c, secret) => new WebhookHandler(secret).verifyRequest({ headers: headerMap(c), rawBody: c.body });
const classify = (e) =>
  /Invalid webhook-signature header/.test(e.message) ? 'missing_signature'
  : /Timestamp too old|Timestamp in the future/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /Invalid signature/.test(e.message) ? 'invalid_signature'
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
  kind: 'liveblocks',
  source: {
    kind: 'sdk', package: '@liveblocks/node', registry: 'npm', version: '3.24.2',
    function: 'WebhookHandler#verifyRequest',
    url: 'https://liveblocks.io/docs/platform/webhooks',
  },
  facts: {
    title: 'Liveblocks',
    docs: 'https://liveblocks.io/docs/platform/webhooks',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body)>"',
    secret: 'the endpoint\'s webhook secret from the Liveblocks dashboard, "whsec_<base64>"',
    timestamp: 'webhook-timestamp, unix seconds, signed; tolerance 300 s both directions',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id identifies the message and is kept on retries: https://liveblocks.io/docs/platform/webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://liveblocks.io/docs/platform/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`liveblocks: ${cases.length} cases`);
