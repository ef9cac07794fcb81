// Known-answer vectors for Webflow, checked by the official `webflow-api` SDK's
// webhooks.verifySignature (it only verifies: each request is built here and
// the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { WebflowClient } from 'webflow-api';
import { withIdentity } from '../identity.mjs';

const SECRET = 'webflow-test-webhook-secret-0123456789abcdef';
const OTHER = 'webflow-other-webhook-secret-9876543210zyxwvu';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/webflow';
const SIG_HEADER = 'x-webflow-signature';
const EVENT_TYPE = 'form_submission';
// The documented event shape: https://developers.webflow.com/data/reference/webhooks/events/form-submission
const BODY = JSON.stringify({
  triggerType: 'form_submission',
  payload: {
    name: 'Contact Us',
    siteId: '65427cf400e02b306eaa049c',
    data: { 'First Name': 'Zaphod', 'Last Name': 'Beeblebrox', email: 'zaphod@heartofgold.ai' },
    submittedAt: '2023-11-14T22:13:15.000Z',
    id: '6321ca84df3949bfc6752327',
    formId: '65429eadebe8a9f3a30f62d0',
  },
});
// No event ID is sent: hookline uses the body's SHA-256, so the cases name none.

const sign = (secret, ms) => crypto.createHmac('sha256', secret).update(`${ms}:${BODY}`).digest('hex');
function request({ at = NOW - 5, signWith = SECRET, b = BODY, drop = false } = {}) {
  const ms = at * 1000 + 250;
  const headers = [['Content-Type', 'application/json'], ['x-webflow-timestamp', String(ms)]];
  if (!drop) headers.push([SIG_HEADER, sign(signWith, ms)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const flip = (b) => b.replace('"Zaphod"', '"Zaphoe"');
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'x-webflow-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  // The SDK checks no timestamp; Webflow's docs say to refuse ones older than 5 minutes (NOTES.md).
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const client = new WebflowClient({ accessToken: 'unused' });
const verify = (c, secret) => client.webhooks.verifySignature({ headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])), body: c.body, secret });
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
  kind: 'webflow',
  source: {
    kind: 'sdk', package: 'webflow-api', registry: 'npm', version: '3.3.4',
    function: 'WebflowClient#webhooks.verifySignature',
    url: 'https://developers.webflow.com/data/docs/working-with-webhooks',
  },
  facts: {
    title: 'Webflow',
    docs: 'https://developers.webflow.com/data/docs/working-with-webhooks',
    scheme: 'x-webflow-signature = hex HMAC-SHA256(secret, x-webflow-timestamp + ":" + raw body)',
    secret: "the OAuth app's client secret, or for a webhook created with a site token, the webhook's signing secret; used as UTF-8 bytes",
    timestamp: 'x-webflow-timestamp, unix MILLISECONDS, signed; the docs reject requests older than 5 minutes, the SDK checks none',
    event_id: { body_sha256: true },
    event_id_note: 'no delivery or event ID in the headers or the envelope (payload.id is the form submission, not present for every trigger): https://developers.webflow.com/data/docs/working-with-webhooks',
    event_type: { json_pointer: '/triggerType' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://developers.webflow.com/data/docs/working-with-webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`webflow: ${cases.length} cases`);
