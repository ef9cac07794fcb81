// Known-answer vectors for Notion webhooks, signed with the official
// @notionhq/client signWebhookPayload and checked by its verifyWebhookSignature.
import fs from 'node:fs';
import { signWebhookPayload, verifyWebhookSignature } from '@notionhq/client';

const SECRET = 'secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl';
const OTHER = 'secret_Zk2b9QWe8rTy7uIo6pAs5dFg4hJk3lZx2cVb1nMq0wE';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/notion';
const SIG_HEADER = 'X-Notion-Signature';
const EVENT_ID = '367cba44-b6f3-4c92-81e7-6a2e9659efd4';
const EVENT_TYPE = 'page.created';
// The documented event shape: https://developers.notion.com/reference/webhooks-events-delivery
const BODY = JSON.stringify({
  id: EVENT_ID,
  timestamp: '2023-11-14T22:13:15.285Z',
  workspace_id: '13950b26-c203-4f3b-b97d-93ec06319565',
  workspace_name: 'Quantify Labs',
  subscription_id: '29d75c0d-5546-4414-8459-7b7a92f1fc4b',
  integration_id: '0ef2e755-4912-8096-91c1-00376a88a5ca',
  type: 'page.created',
  authors: [{ id: 'c7c11cca-1d73-471d-9b6e-bdef51470190', type: 'person' }],
  accessible_by: [{ id: '556a1abf-4f08-40c6-878a-75890d2a88ba', type: 'person' }],
  attempt_number: 1,
  entity: { id: '153104cd-477e-809d-8dc4-ff2d96ae3090', type: 'page' },
  data: { parent: { id: '13950b26-c203-4f3b-b97d-93ec06319565', type: 'space' } },
});
const FLIP_FROM = '"Quantify Labs"';
const FLIP_TO = '"Quantify Labt"';

const sigs = { [SECRET]: await signWebhookPayload({ body: BODY, verificationToken: SECRET }) };
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sigs[SECRET]]);
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

const verify = (c, secret) => verifyWebhookSignature({ body: c.body, signature: header(c, SIG_HEADER), verificationToken: secret });
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

// When a subscription is created Notion POSTs one unsigned request carrying the
// verification token; the user copies it into the integration's settings.
const handshakes = [{
  name: 'subscription verification request (unsigned, carries the token)',
  secrets: [],
  verify_token: null,
  request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/json']], body: JSON.stringify({ verification_token: SECRET }) },
  now: NOW,
  expect: { status: 200, content_type: null, body: '', headers: [] },
}];

const out = {
  kind: 'notion',
  source: {
    kind: 'sdk', package: '@notionhq/client', registry: 'npm', version: '5.26.0',
    function: 'signWebhookPayload / verifyWebhookSignature',
    url: 'https://developers.notion.com/reference/webhooks',
  },
  facts: {
    title: 'Notion',
    docs: 'https://developers.notion.com/reference/webhooks',
    scheme: 'X-Notion-Signature = "sha256=" + hex HMAC-SHA256(verification_token, raw body)',
    secret: 'the subscription\'s verification_token ("secret_..."), which Notion sends once to the endpoint when the subscription is created',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event ID stays the same on retries while attempt_number grows, so the body hash would not dedup: https://developers.notion.com/reference/webhooks-events-delivery',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://developers.notion.com/reference/webhooks-events-delivery',
    handshake: 'on subscription, one unsigned POST {"verification_token": "secret_..."}: answer 200 and show the token to the operator, who pastes it into Notion and configures it as the tenant\'s secret: https://developers.notion.com/reference/webhooks#step-2-verifying-the-subscription',
  },
  cases,
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`notion: ${cases.length} cases, ${handshakes.length} handshake`);
