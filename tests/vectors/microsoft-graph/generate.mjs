// Known-answer vectors for Microsoft Graph change notifications (webhooks).
// Graph signs nothing for basic notifications: each notification in the body
// carries the subscription's clientState, which "must match the value
// originally submitted with the subscription creation request", and a new
// notification URL is validated with POST ?validationToken=, answered 200
// text/plain with the URL-decoded token within 10 s. Both from the docs
// (microsoftgraph/microsoft-graph-docs-contrib):
// https://learn.microsoft.com/graph/change-notifications-delivery-webhooks
// The verdict is that comparison; the handshake answer is the decoded token.
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'hookline-graph-client-state-5f2c0b7e';
const OTHER = 'hookline-graph-client-state-0a1b2c3d';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/microsoft-graph';
// The documented change notification collection, one message created.
const item = (clientState, id = 'lsgTZMr9KwAAA') => ({
  id,
  subscriptionId: '7f105c7d-2dc5-4530-97cd-4e7ae6534c07',
  subscriptionExpirationDateTime: '2023-11-17T22:11:09.952Z',
  ...(clientState === undefined ? {} : { clientState }),
  changeType: 'created',
  resource: 'Users/7a2d5c5f-1b39-4f6a-9a0a-2b3c4d5e6f70/Messages/AAMkADY2NGQwYTY0AAA=',
  tenantId: '84bd8158-6d4d-4958-8b9f-9d6445542f95',
  resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.id': 'Users/7a2d5c5f-1b39-4f6a-9a0a-2b3c4d5e6f70/Messages/AAMkADY2NGQwYTY0AAA=', '@odata.etag': 'W/"CQAAABYAAADkrWGo7bouTKlsgTZMr9KwAAAUWRHf"', id: 'AAMkADY2NGQwYTY0AAA=' },
});
const body = (...items) => JSON.stringify({ value: items });
const request = (b) => ({ method: 'POST', url: URL, headers: [['Content-Type', 'application/json; charset=utf-8']], body: b });

const cases = [
  { name: 'clientState matches', secrets: [SECRET], ...request(body(item(SECRET))), expect: 'valid' },
  { name: 'one byte of clientState changed', secrets: [SECRET], ...request(body(item(SECRET.slice(0, -1) + 'f'))), expect: 'invalid_signature' },
  { name: 'verified with another clientState', secrets: [OTHER], ...request(body(item(SECRET))), expect: 'invalid_signature' },
  { name: 'clientState removed', secrets: [SECRET], ...request(body(item(undefined))), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new clientState', secrets: [OTHER, SECRET], ...request(body(item(SECRET))), expect: 'valid' },
  { name: 'two notifications, both with the clientState', secrets: [SECRET], ...request(body(item(SECRET), item(SECRET, 'lsgTZMr9KwAAB'))), expect: 'valid' },
  { name: 'two notifications, the second with a wrong clientState', secrets: [SECRET], ...request(body(item(SECRET), item(OTHER, 'lsgTZMr9KwAAB'))), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: 'created' } : {}) }));

// Every notification in the collection must carry one of the tenant's values.
function verdict(c) {
  const states = JSON.parse(c.body).value.map((n) => n.clientState);
  if (states.some((s) => s === undefined)) return 'missing_signature';
  return states.every((s) => c.secrets.includes(s)) ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: ${got} != ${c.expect}`);
}

// Validation: POST ?validationToken=<URL-encoded>; answer the decoded token.
const TOKEN = 'Validation: Testing client application reachability for subscription Request-Id: 5a6b7c8d-1e2f-4a3b-9c4d-5e6f7a8b9c0d';
const handshakes = [{
  name: 'notificationUrl validation: the URL-decoded validationToken as text/plain',
  secrets: [SECRET], verify_token: null,
  request: { method: 'POST', url: `${URL}?validationToken=${encodeURIComponent(TOKEN)}`, headers: [['Content-Type', 'text/plain; charset=utf-8']], body: '' },
  now: NOW,
  expect: { status: 200, content_type: 'text/plain', body: decodeURIComponent(encodeURIComponent(TOKEN)), headers: [] },
}];

const DOCS = 'https://learn.microsoft.com/graph/change-notifications-delivery-webhooks';
const out = {
  kind: 'microsoft-graph',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'clientState comparison and notificationUrl validation as documented (microsoftgraph/microsoft-graph-docs-contrib, concepts/change-notifications-delivery-webhooks.md)',
    url: DOCS,
  },
  facts: {
    title: 'Microsoft Graph change notifications',
    docs: DOCS,
    scheme: 'token inside the body: every /value/N/clientState must equal the clientState given when the subscription was created; nothing is signed',
    secret: 'the clientState string the tenant chose when creating the subscription (up to 128 characters)',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a POST is a collection of notifications that may span several subscriptions: ' + DOCS + '#change-notification-example',
    event_type: { json_pointer: '/value/0/changeType' },
    retry_horizon: 'resent multiple times for up to 4 hours when no 2xx arrives within 3 s',
    retry_source: DOCS + '#processing-the-change-notification',
    handshake: 'notificationUrl validation: POST ?validationToken=<URL-encoded> (Content-Type text/plain, empty body) answered within 10 s with 200, Content-Type text/plain and the URL-decoded token as the body: ' + DOCS + '#notificationurl-validation',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`microsoft-graph: ${cases.length} cases, ${handshakes.length} handshakes`);
