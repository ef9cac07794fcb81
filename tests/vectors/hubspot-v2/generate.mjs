// Known-answer vectors for HubSpot's v2 request signature (workflow webhooks and
// CRM cards), signed and checked by the official SDK @hubspot/api-client.
import { writeFileSync } from 'node:fs';
import hubspot from '@hubspot/api-client';
import { withIdentity } from '../identity.mjs';

const { Signature } = hubspot;
const NOW = 1700000000;
const SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const OTHER = 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz';
const HOOK_URL = 'https://hooks.example.com/webhooks/hubspot-v2/acme?source=workflow';
// A workflow "Send a webhook" action posts the enrolled record's properties.
const BODY = JSON.stringify({ vid: 101, 'canonical-vid': 101, 'portal-id': 62515, 'is-contact': true,
  properties: { email: { value: 'jane@example.com' }, firstname: { value: 'Jane' } } });
const TAMPERED = BODY.replace('"vid":101', '"vid":102');

// What HubSpot sends: the v2 signature and the header naming its version.
function headersFor(secret, body) {
  const sig = Signature.getSignature('POST', 'v2', { clientSecret: secret, url: HOOK_URL, requestBody: body });
  return [['Content-Type', 'application/json'], ['X-HubSpot-Signature', sig], ['X-HubSpot-Signature-Version', 'v2']];
}
const SIG_HEADERS = ['x-hubspot-signature'];

// The SDK's verdict: Signature.isValid with each configured secret.
function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (!h['x-hubspot-signature']) return 'missing_signature';
  const ok = c.secrets.some((s) => Signature.isValid({ signatureVersion: 'v2', method: c.method,
    signature: h['x-hubspot-signature'], clientSecret: s, requestBody: c.body, url: c.url }));
  return ok ? 'valid' : 'invalid_signature';
}

// The README's required cases, then the SDK's verdict on each.
const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const cases = [
  { name: 'a workflow webhook signed with Signature.getSignature v2', secrets: [SECRET], ...req(SECRET), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another client secret', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'X-HubSpot-Signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'hubspot-v2',
  source: { kind: 'sdk', package: '@hubspot/api-client', registry: 'npm', version: '14.0.1',
    function: 'Signature.getSignature / Signature.isValid (signatureVersion v2)',
    url: 'https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests' },
  facts: {
    title: 'HubSpot (v2 signature)',
    docs: 'https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests',
    scheme: 'X-HubSpot-Signature = hex(SHA-256(client secret + method + full URL + raw body)), with X-HubSpot-Signature-Version: v2; a plain hash with the secret as prefix, not an HMAC',
    secret: "the app's Client secret (app settings > Auth)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'workflow webhooks and CRM card requests carry no delivery ID; an identical retry has an identical body: https://knowledge.hubspot.com/workflows/how-do-i-use-webhooks-with-hubspot-workflows',
    event_type: null,
    retry_horizon: 'workflow webhooks are retried for up to 3 days',
    retry_source: 'https://knowledge.hubspot.com/workflows/how-do-i-use-webhooks-with-hubspot-workflows',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
