// Known-answer vectors for ClickUp webhooks, from the documentation's own
// Node.js sample on https://developer.clickup.com/docs/webhooksignature, run
// unchanged. ClickUp publishes no SDK verifier. The sample computes the
// signature; the doc says to compare it with X-Signature, which is all the
// verdict below adds.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';
const require = createRequire(import.meta.url);

// --- the documentation's sample, verbatim ---------------------------------
function docSample() {
const crypto = require('crypto');

const key = 'secret'; // from the webhook object, stored in your DB
const body = '{"webhook_id":"7689a169-a000-4985-8676-6902b96d6627","event":"taskCreated","task_id":"c0j"}';

const hash = crypto.createHmac('sha256', key).update(body);
const signature = hash.digest('hex');
return { key, body, signature };
}
// ---------------------------------------------------------------------------

// The same lines with the key and body as arguments (nothing else changed).
function sign(key, body) {
  const crypto = require('crypto');
  const hash = crypto.createHmac('sha256', key).update(body);
  const signature = hash.digest('hex');
  return signature;
}

const DOC = docSample();
const SECRET = '0J5M6QZ3V4Q2X8T9B1N7C6R5W2K4H8YDLFGPA3UE9ZS0MJQ1TV7XBN2C5R8W6K4H';
const OTHER = 'H4K6W8R5C2NBX7VT1QJM0SZ9EU3APGFLDY8H4K2W5R6C7N1B9T8X2Q4V3Z6QM5J0';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/clickup';
const SIG_HEADER = 'X-Signature';
// The documented taskStatusUpdated shape (https://developer.clickup.com/docs/webhooktaskpayloads),
// compact as ClickUp sends it.
const BODY = JSON.stringify({
  event: 'taskStatusUpdated',
  history_items: [{ id: '2800787622195652847', type: 1, date: '1642736652800', field: 'status', parent_id: '162641285', data: { status_type: 'custom' }, source: null, user: { id: 183, username: 'John', email: 'john@company.com', color: '#7b68ee', initials: 'J', profilePicture: null }, before: { status: 'to do', color: '#f9d900', type: 'open', orderindex: 0 }, after: { status: 'in progress', color: '#7C4DFF', orderindex: 1, type: 'custom' } }],
  task_id: '1vj37mc',
  webhook_id: '7fa3ec74-69a8-4530-a251-8a13730bd204',
});

function request({ key = SECRET, body = BODY, sigBody = body, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(key, sigBody)]);
  return { method: 'POST', url: URL, headers, body };
}
const flip = (b) => b.replace('"1vj37mc"', '"1vj37md"');
const cases = [
  { name: "the documentation's own example (key 'secret', its body)", secrets: [DOC.key], method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], [SIG_HEADER, DOC.signature]], body: DOC.body, expect: 'valid', event_type: 'taskCreated' },
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid', event_type: 'taskStatusUpdated' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ body: flip(BODY), sigBody: BODY }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_type: 'taskStatusUpdated' },
].map((c) => ({ ...c, now: NOW }));

// The verdict: the sample's signature for the body and the tenant's secret,
// compared with the header, as the doc says.
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
function verdict(c) {
  const got = header(c, SIG_HEADER);
  if (got === undefined) return 'missing_signature';
  return c.secrets.some((s) => sign(s, c.body) === got) ? 'valid' : 'invalid_signature';
}
if (sign(DOC.key, DOC.body) !== DOC.signature) throw new Error('the parameterised lines differ from the sample');
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the sample says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'clickup',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'Node.js example (crypto.createHmac sha256, hex)',
    url: 'https://developer.clickup.com/docs/webhooksignature',
  },
  facts: {
    title: 'ClickUp',
    docs: 'https://developer.clickup.com/docs/webhooksignature',
    scheme: 'X-Signature = hex HMAC-SHA256(webhook secret, raw body)',
    secret: "the webhook's `secret`, returned when the webhook is created through the API (Create Webhook)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries webhook_id, task_id and history_items[].id, but the docs promise no ID kept across retries, so the body hash is used: https://developer.clickup.com/docs/webhooks',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated in the pages reachable here; use the default window',
    retry_source: 'https://developer.clickup.com/docs/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`clickup: ${cases.length} cases`);
