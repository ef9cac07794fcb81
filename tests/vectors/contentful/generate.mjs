// Known-answer vectors for Contentful webhook request verification, signed by the
// official toolkit's signRequest and checked by its verifyRequest (@contentful/node-apps-toolkit).
import { writeFileSync } from 'node:fs';
import { signRequest, verifyRequest } from '@contentful/node-apps-toolkit';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// Signing secrets are exactly 64 characters of [0-9a-zA-Z+/=_-].
const SECRET = 'qlfkupAwYA4ZkNnmBzmNypFqSRWOwhpGRFwQFn5iPNAGHSYdvwed1C77n0Eiaz19';
const OTHER = 'Zx8dk2PpQ7wLmN4vB6tY1uH3jK5gF9sD0aE2rT4yU6iO8pA1sD3fG5hJ7kL9zX0c';
const HOST = 'https://hooks.example.com';
const PATH = '/webhooks/contentful/acme?env=master';
// An Entry publish: Contentful posts the entity, its sys block first.
const BODY = JSON.stringify({
  sys: { type: 'Entry', id: '5KsDBWseXY6QegucYAoacS', space: { sys: { type: 'Link', linkType: 'Space', id: 'yadj1kx9rmg0' } },
    environment: { sys: { id: 'master', type: 'Link', linkType: 'Environment' } },
    contentType: { sys: { type: 'Link', linkType: 'ContentType', id: 'product' } },
    revision: 3, createdAt: '2023-11-14T21:00:00.000Z', updatedAt: '2023-11-14T22:13:18.000Z' },
  fields: { productName: { 'en-US': 'SoSo Wall Clock' } },
});
const TAMPERED = BODY.replace('SoSo', 'SoSO');
// The headers Contentful sends with every webhook call; all of them are signed here.
const WEBHOOK_HEADERS = {
  'Content-Type': 'application/vnd.contentful.management.v1+json',
  'X-Contentful-Topic': 'ContentManagement.Entry.publish',
  'X-Contentful-Webhook-Name': 'Publish to hookline',
};

function headersFor(secret, body, tsMs) {
  const signed = signRequest(secret, { method: 'POST', path: PATH, headers: { ...WEBHOOK_HEADERS }, body }, tsMs);
  return [...Object.entries(WEBHOOK_HEADERS), ...Object.entries(signed)];
}
const SIG_HEADERS = ['x-contentful-signature'];

function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers);
  if (!c.headers.some(([k]) => k.toLowerCase() === 'x-contentful-signature')) return 'missing_signature';
  const path = c.url.slice(HOST.length);
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // verifyRequest reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        if (verifyRequest(s, { method: c.method, path, headers, body: c.body }, c.tolerance)) return 'valid';
      } catch (e) {
        if (e.constructor.name !== 'ExpiredRequestException') throw e;
        verdict = 'timestamp_out_of_tolerance';
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (secret, tsMs, body = BODY) => ({ method: 'POST', url: HOST + PATH, headers: headersFor(secret, body, tsMs), body, now: NOW, tolerance: 30 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW * 1000 - 1200;
const ok = { event_type: 'ContentManagement.Entry.publish' };
const cases = [
  { name: 'an Entry publish signed by signRequest, accepted by verifyRequest', secrets: [SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'a signed header changed after signing', secrets: [SECRET], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'x-contentful-signature removed', secrets: [SECRET], ...strip(req(SECRET, ts)), expect: 'missing_signature' },
  { name: 'x-contentful-timestamp 31 seconds old', secrets: [SECRET], ...req(SECRET, NOW * 1000 - 31000), expect: 'timestamp_out_of_tolerance' },
  { name: 'x-contentful-timestamp 31 seconds in the future', secrets: [SECRET], ...req(SECRET, NOW * 1000 + 31000), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
];
cases[3].headers = cases[3].headers.map(([k, v]) => [k, k === 'X-Contentful-Topic' ? 'ContentManagement.Entry.unpublish' : v]);
for (const c of cases) {
  const got = sdkVerdict(c);
  // verifyRequest rejects only stale requests; for the future one it must accept the signature.
  const want = c.sdk ?? c.expect;
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case expects ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'contentful',
  source: { kind: 'sdk', package: '@contentful/node-apps-toolkit', registry: 'npm', version: '3.16.1',
    function: 'signRequest / verifyRequest', url: 'https://www.contentful.com/developers/docs/webhooks/request-verification/' },
  facts: {
    title: 'Contentful',
    docs: 'https://www.contentful.com/developers/docs/webhooks/request-verification/',
    scheme: 'x-contentful-signature = hex(HMAC-SHA256(signing secret, METHOD + "\\n" + encoded path?query + "\\n" + "name:value" of each header named in x-contentful-signed-headers (lowercased, trimmed, sorted, joined with ";") + "\\n" + raw body))',
    secret: 'the space\'s webhook signing secret (Settings > Webhooks > Enable request verification), exactly 64 characters, used as UTF-8 text',
    timestamp: 'x-contentful-timestamp, unix milliseconds, always among the signed headers; verifyRequest rejects a request older than its ttl (default 30 s) and does not check the future',
    event_id: { body_sha256: true },
    event_id_note: 'the body is the entity itself (sys.id, sys.revision); no delivery ID is documented, and a retry resends the same body',
    event_type: { header: 'X-Contentful-Topic' },
    retry_horizon: 'the pages consulted give no retry schedule; keep the default window',
    retry_source: 'https://www.contentful.com/developers/docs/webhooks/overview/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);

// A capture for the corpus (tests/captures/import_vectors.py moves it there): the publish event
// sent to the corpus's route for the `default` tenant, signed by signRequest for that path and
// accepted by verifyRequest before it is written.
const CAPTURE_PATH = '/webhooks/contentful?env=master';
const captureHeaders = [...Object.entries(WEBHOOK_HEADERS), ...Object.entries(
  signRequest(SECRET, { method: 'POST', path: CAPTURE_PATH, headers: { ...WEBHOOK_HEADERS }, body: BODY }, ts))];
if (sdkVerdict({ method: 'POST', url: HOST + CAPTURE_PATH, headers: captureHeaders, body: BODY, secrets: [SECRET], now: NOW, tolerance: 30 }) !== 'valid') {
  throw new Error('capture refused by verifyRequest');
}
writeFileSync(new URL('./capture.json', import.meta.url), JSON.stringify({
  provider: 'contentful', kind: 'contentful', tenant: 'default', method: 'POST', path: '/webhooks/contentful', query: 'env=master',
  headers: captureHeaders, body_base64: Buffer.from(BODY).toString('base64'), received_at: '2023-11-14T22:13:20+00:00',
  secret: SECRET,
}, null, 2) + '\n');
