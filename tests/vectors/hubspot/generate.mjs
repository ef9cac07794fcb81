// Known-answer vectors for HubSpot's v3 request signature, signed and checked
// by the official SDK (@hubspot/api-client, Signature.getSignature / isValid).
import { writeFileSync } from 'node:fs';
import hubspot from '@hubspot/api-client';
import { withIdentity } from '../identity.mjs';

const { Signature } = hubspot;
const SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const OTHER = 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz';
const NOW = 1700000000; // unix seconds the verifier runs at
const HOOK_URL = 'https://hooks.example.com/webhooks/hubspot/acme';
// The webhooks API's documented batch shape (an array of events).
const BODY = JSON.stringify([{
  eventId: 100, subscriptionId: 12345, portalId: 62515, appId: 54321,
  occurredAt: 1699999990000, subscriptionType: 'contact.creation', attemptNumber: 0,
  objectId: 123, changeSource: 'CRM', changeFlag: 'NEW',
}]);

function sign(secret, body, tsMs) {
  return Signature.getSignature('POST', 'v3', { clientSecret: secret, url: HOOK_URL, requestBody: body, timestamp: tsMs });
}

function request(tsMs, body = BODY, secret = SECRET, withSig = true) {
  const headers = [['Content-Type', 'application/json']];
  if (withSig) headers.push(['X-HubSpot-Signature-v3', sign(secret, body, tsMs)]);
  headers.push(['X-HubSpot-Request-Timestamp', String(tsMs)]);
  return { method: 'POST', url: HOOK_URL, headers, body };
}

// The SDK's verdict for one case: isValid with each configured secret, at NOW.
function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (!h['x-hubspot-signature-v3']) return 'missing_signature';
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // isValid reads the clock itself
  try {
    for (const s of c.secrets) {
      const opts = { signatureVersion: 'v3', method: c.method, signature: h['x-hubspot-signature-v3'],
        clientSecret: s, requestBody: c.body, url: c.url, timestamp: Number(h['x-hubspot-request-timestamp']) };
      try {
        if (Signature.isValid(opts)) return 'valid';
      } catch (e) {
        if (/Timestamp is invalid/.test(e.message)) return 'timestamp_out_of_tolerance';
        throw e;
      }
    }
    return 'invalid_signature';
  } finally {
    Date.now = realNow;
  }
}

const ts = NOW * 1000 - 2000; // sent two seconds before NOW, in milliseconds
const tampered = BODY.replace('"objectId":123', '"objectId":124');
const cases = [
  { name: 'a webhooks API batch signed with Signature.getSignature v3', secrets: [SECRET], ...request(ts), expect: 'valid', event_id: '100', event_type: 'contact.creation' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...request(ts), expect: 'valid', event_id: '100', event_type: 'contact.creation' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request(ts), expect: 'invalid_signature' },
  { name: 'verified with another client secret', secrets: [OTHER], ...request(ts), expect: 'invalid_signature' },
  { name: 'X-HubSpot-Signature-v3 removed', secrets: [SECRET], ...request(ts, BODY, SECRET, false), expect: 'missing_signature' },
  { name: 'timestamp 301 seconds old', secrets: [SECRET], ...request(NOW * 1000 - 301000), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 seconds in the future', secrets: [SECRET], ...request(NOW * 1000 + 301000), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
];
cases[2].body = tampered; // headers were signed over BODY
for (const c of cases) { c.now = NOW; c.tolerance = 300; }

for (const c of cases) {
  const got = sdkVerdict(c);
  // The SDK rejects only stale timestamps (currentTime - timestamp > 5 min);
  // for the future one it must at least accept the signature itself.
  const want = c.sdk ?? c.expect;
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case expects ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'hubspot',
  source: { kind: 'sdk', package: '@hubspot/api-client', registry: 'npm', version: '14.0.1',
    function: 'Signature.getSignature / Signature.isValid (signatureVersion v3)',
    url: 'https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests' },
  facts: {
    title: 'HubSpot',
    docs: 'https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests',
    scheme: 'X-HubSpot-Signature-v3 = base64(HMAC-SHA256(client secret, method + full URL + raw body + X-HubSpot-Request-Timestamp))',
    secret: "the app's Client secret (app settings > Auth), used as UTF-8 bytes",
    timestamp: 'X-HubSpot-Request-Timestamp, unix milliseconds, signed; docs: reject if older than 5 minutes',
    batch: '',
    event_id: { json_pointer: '/eventId' },
    event_id_note: 'the body is a JSON array of up to 100 events, each with its own eventId; attemptNumber changes on every retry, so the body hash is not stable: https://developers.hubspot.com/docs/api/webhooks',
    event_type: { json_pointer: '/subscriptionType' },
    retry_horizon: 'up to 10 retries with exponential backoff, spread over about 24 hours',
    retry_source: 'https://developers.hubspot.com/docs/api/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
