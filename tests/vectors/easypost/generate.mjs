// Known-answer vectors for EasyPost, checked by the official @easypost/api
// SDK's Utils.validateWebhook (it only verifies: each request is built here and
// the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import EasyPostClient from '@easypost/api';

const SECRET = 'easypost-test-webhook-secret-0123';
const OTHER = 'easypost-other-webhook-secret-987';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/easypost';
const SIG_HEADER = 'X-Hmac-Signature';
const EVENT_ID = 'evt_d5d8d9f0a1b211eeb8d2ac1f6bc53342';
const EVENT_TYPE = 'tracker.updated';
// The documented event shape: https://docs.easypost.com/docs/webhooks
// Weights are written as floats, as EasyPost sends them (NOTES.md).
const BODY = JSON.stringify({
  id: EVENT_ID,
  object: 'Event',
  mode: 'test',
  description: 'tracker.updated',
  previous_attributes: { status: 'pre_transit' },
  pending_urls: [],
  completed_urls: [],
  created_at: '2023-11-14T22:13:15Z',
  updated_at: '2023-11-14T22:13:15Z',
  result: { id: 'trk_c8e0edb5bb284caa934a0d3db23a148z', object: 'Tracker', mode: 'test', tracking_code: 'EZ4000000004', status: 'in_transit', weight: 17.5, carrier: 'USPS' },
}).replace('"weight":17.5', '"weight": 136.0');
const FLIP_FROM = '"in_transit"';
const FLIP_TO = '"in_transiu"';

const sign = (secret) => 'hmac-sha256-hex=' + crypto.createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8')).update(BODY, 'utf8').digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const client = new EasyPostClient('EZTK_unused');
const verify = (c, secret) => {
  try {
    client.Utils.validateWebhook(Buffer.from(c.body), Object.fromEntries(c.headers), secret);
    return true;
  } catch (e) {
    if (/did not originate from EasyPost/.test(e.message)) return false;
    throw e;
  }
};
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
  kind: 'easypost',
  source: {
    kind: 'sdk', package: '@easypost/api', registry: 'npm', version: '8.9.0',
    function: 'EasyPostClient#Utils.validateWebhook',
    url: 'https://docs.easypost.com/docs/webhooks',
  },
  facts: {
    title: 'EasyPost',
    docs: 'https://docs.easypost.com/docs/webhooks',
    scheme: 'X-Hmac-Signature = "hmac-sha256-hex=" + hex HMAC-SHA256(NFKD-normalised webhook secret as UTF-8, raw body)',
    secret: 'the webhook_secret set when the webhook is created (dashboard or API), NFKD-normalised before use',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'the Event id, the same on every retry of that event: https://docs.easypost.com/docs/webhooks',
    event_type: { json_pointer: '/description' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://docs.easypost.com/docs/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`easypost: ${cases.length} cases`);
