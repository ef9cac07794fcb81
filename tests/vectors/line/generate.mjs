// Known-answer vectors for the LINE Messaging API, checked by the official
// @line/bot-sdk validateSignature (it only verifies: each request is built here
// and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { validateSignature } from '@line/bot-sdk';
import { withIdentity } from '../identity.mjs';

const SECRET = '8c570fa6dd201bb328f1c1eac23a96d8';
const OTHER = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/line';
const SIG_HEADER = 'x-line-signature';
const EVENT_ID = '01FZ74A0TDDPYRVKNK77XKC3ZR';
const EVENT_TYPE = 'message';
// The documented webhook body: https://developers.line.biz/en/reference/messaging-api/#request-body
const BODY = JSON.stringify({
  destination: 'xxxxxxxxxx',
  events: [{
    type: 'message',
    message: { type: 'text', id: '14353798921116', text: 'Hello, world' },
    timestamp: 1699999995000,
    source: { type: 'user', userId: 'U80696558e1aa831f7c2c2a3e7e4b1e30' },
    replyToken: '757913772c4646b784d4b7ce46d12671',
    mode: 'active',
    webhookEventId: EVENT_ID,
    deliveryContext: { isRedelivery: false },
  }],
});
const FLIP_FROM = '"Hello, world"';
const FLIP_TO = '"Hello, worle"';

// The console's Verify button: the documented request with no events.
const VERIFY = JSON.stringify({ destination: 'xxxxxxxxxx', events: [] });

const sign = (secret, signed = BODY) => crypto.createHmac('sha256', secret).update(signed).digest('base64');
function request({ b = BODY, signed = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json; charset=utf-8']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET, signed)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  // The console's Verify button: a signed request with no events, a batch of none.
  { name: 'the console\'s Verify button: events is empty', secrets: [SECRET], ...request({ b: VERIFY, signed: VERIFY }), expect: 'valid', items: [] },
].map((c) => ({ ...c, now: NOW }));

const verify = (c, secret) => validateSignature(c.body, secret, header(c, SIG_HEADER));
// The SDK's verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'line',
  source: {
    kind: 'sdk', package: '@line/bot-sdk', registry: 'npm', version: '11.2.0',
    function: 'validateSignature',
    url: 'https://developers.line.biz/en/reference/messaging-api/#signature-validation',
  },
  facts: {
    title: 'LINE Messaging API',
    docs: 'https://developers.line.biz/en/reference/messaging-api/#signature-validation',
    scheme: 'x-line-signature = base64 HMAC-SHA256(channel secret, raw body)',
    secret: "the channel secret from the LINE Developers Console (Basic settings), used as UTF-8 bytes",
    timestamp: null,
    batch: '/events',
    event_id: { json_pointer: '/webhookEventId' },
    event_id_note: 'each event of events[] (a batch) has its webhookEventId, kept on redelivery while deliveryContext.isRedelivery becomes true (the fingerprint leaves it out); the console\'s Verify button sends "events": []: https://developers.line.biz/en/reference/messaging-api/#webhook-event-objects',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'no retries unless webhook redelivery is turned on in the console; its horizon is not stated',
    retry_source: 'https://developers.line.biz/en/docs/messaging-api/receiving-messages/#webhook-redelivery',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`line: ${cases.length} cases`);
