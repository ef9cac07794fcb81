// Known-answer vectors for Okta event hooks. Okta signs nothing: an event hook
// is created with an authScheme {type: "HEADER", key: "Authorization", value}
// and every request carries that header and value verbatim; a new hook is
// verified once with a GET carrying X-Okta-Verification-Challenge, answered
// with JSON {"verification": <that value>}. Both from the docs:
// https://developer.okta.com/docs/concepts/event-hooks/ and the Event Hooks
// API (https://developer.okta.com/docs/api/openapi/okta-management/management/tag/EventHook/).
// The verdict is a comparison of the header with the tenant's values.
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'Bearer okta-hook-3f9a7c2e5b1d4a6c8e0f';     // the authScheme value, as typed in the Admin Console
const OTHER = 'Bearer okta-hook-0a1b2c3d4e5f60718293';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/okta';
// The documented event hook request: https://developer.okta.com/docs/concepts/event-hooks/#sample-event-delivery-payload
const BODY = JSON.stringify({
  eventType: 'com.okta.event_hook',
  eventTypeVersion: '1.0',
  cloudEventsVersion: '0.1',
  source: 'https://acme.okta.com/api/v1/eventHooks/whoql0HfiLGPWc8Jx0g3',
  eventId: 'b5a188b9-5ece-4636-b041-482ffda96311',
  data: { events: [{
    uuid: '4a1b2c3d-5e6f-11ee-8c99-0242ac120002', published: '2023-11-14T22:13:18.000Z', eventType: 'user.session.start', version: '0',
    displayMessage: 'User login to Okta', severity: 'INFO',
    actor: { id: '00u1qw1mqitPHM8AJ0g7', type: 'User', alternateId: 'admin@acme.example', displayName: 'Jane Admin' },
    outcome: { result: 'SUCCESS' },
  }] },
  eventTime: '2023-11-14T22:13:18.000Z',
  contentType: 'application/json',
});

function request({ auth = SECRET } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (auth !== null) headers.push(['Authorization', auth]);
  return { method: 'POST', url: URL, headers, body: BODY };
}
const cases = [
  { name: 'Authorization value matches', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one byte of the value changed', secrets: [SECRET], ...request({ auth: SECRET.slice(0, -1) + '1' }), expect: 'invalid_signature' },
  { name: 'verified with another value', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...request({ auth: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new value', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: 'user.session.start' } : {}) }));

// The whole header value is the secret: compared as is.
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'Authorization')?.[1];
  const got = h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: ${got} != ${c.expect}`);
}

const CHALLENGE = 'X5SxEcDvUOYmSXE2o5S7jfl6bXlJXDw9evo8nRYM';
const handshakes = [{
  name: 'one-time verification: X-Okta-Verification-Challenge answered as {"verification": ...}',
  secrets: [SECRET], verify_token: null,
  request: { method: 'GET', url: URL, headers: [['X-Okta-Verification-Challenge', CHALLENGE], ['Authorization', SECRET]], body: '' },
  now: NOW,
  expect: { status: 200, content_type: 'application/json', body: JSON.stringify({ verification: CHALLENGE }), headers: [] },
}];

const DOCS = 'https://developer.okta.com/docs/concepts/event-hooks/';
const out = {
  kind: 'okta',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'event hook authScheme (HEADER) and the one-time verification request, as documented',
    url: DOCS,
  },
  facts: {
    title: 'Okta event hooks',
    docs: DOCS,
    scheme: 'static header: the Authorization header (or the header named in authScheme.key) equals the configured value; the body is not signed',
    secret: "the event hook's authentication field value (authScheme.value), compared verbatim",
    timestamp: null,
    batch: '/data/events',
    event_id: { json_pointer: '/uuid' },
    event_id_note: 'a request carries eventId and a batch of System Log events (data.events[].uuid); whether eventId stays the same on a retry is not documented: ' + DOCS,
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'one retry when the first attempt times out (3 s) or fails',
    retry_source: DOCS + '#timeout-and-retry',
    handshake: 'one-time verification: GET with X-Okta-Verification-Challenge: C answered 200 application/json {"verification": C}: ' + DOCS + '#one-time-verification-request',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`okta: ${cases.length} cases, ${handshakes.length} handshakes`);
