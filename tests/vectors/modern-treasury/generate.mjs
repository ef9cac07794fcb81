// Known-answer vectors for Modern Treasury, signed with the official
// `modern-treasury` SDK's webhooks.getSignature and checked by its
// webhooks.validateSignature.
import fs from 'node:fs';
import ModernTreasury from 'modern-treasury';
import { withIdentity } from '../identity.mjs';

const SECRET = 'mt-test-webhook-key-0123456789abcdef';
const OTHER = 'mt-other-webhook-key-9876543210zyxwvu';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/modern-treasury';
const SIG_HEADER = 'X-Signature';
const EVENT_TYPE = 'completed';
// The documented webhook shape: https://docs.moderntreasury.com/platform/reference/webhooks
const BODY = JSON.stringify({
  event: 'completed',
  data: { id: 'a2e5c1b4-7d3f-4e8a-9b6c-0d1e2f3a4b5c', object: 'payment_order', type: 'ach', amount: 2000, direction: 'credit', currency: 'USD', status: 'completed', live_mode: false, created_at: '2023-11-14T22:00:00Z', updated_at: '2023-11-14T22:13:15Z' },
});
const FLIP_FROM = '"payment_order"';
const FLIP_TO = '"payment_ordes"';

const mt = new ModernTreasury({ apiKey: 'unused', organizationID: 'unused' });
const sign = (secret) => mt.webhooks.getSignature(BODY, { key: secret });
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], ['X-Topic', 'payment_order'], ['X-Live-Mode', 'false']];
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
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => mt.webhooks.validateSignature(c.body, header(c, SIG_HEADER), { key: secret });
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
  kind: 'modern-treasury',
  source: {
    kind: 'sdk', package: 'modern-treasury', registry: 'npm', version: '3.3.0',
    function: 'ModernTreasury#webhooks.getSignature / webhooks.validateSignature',
    url: 'https://docs.moderntreasury.com/platform/reference/webhooks',
  },
  facts: {
    title: 'Modern Treasury',
    docs: 'https://docs.moderntreasury.com/platform/reference/webhooks',
    scheme: 'X-Signature = hex HMAC-SHA256(webhook key, raw body)',
    secret: "the webhook endpoint's key from the Modern Treasury dashboard (Developers > Webhooks), used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the envelope is {event, data}; data.id is the resource, shared by all its events, so the body hash is the dedup key: https://docs.moderntreasury.com/platform/reference/webhooks',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://docs.moderntreasury.com/platform/reference/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`modern-treasury: ${cases.length} cases`);
