// Known-answer vectors for Strapi webhooks. Strapi signs nothing; its docs'
// "Securing your webhooks" sends "a header with an authentication token",
// `Authorization: 'Bearer my-very-secured-token'`, set on each webhook in the
// admin panel or as `webhooks.defaultHeaders` in ./config/server
// (https://docs.strapi.io/cms/backend-customization/webhooks). The verdict: the
// Authorization header equals one of the tenant's values. Also writes the
// corpus captures (tests/captures/strapi/).
import { writeFileSync, mkdirSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'Bearer my-very-secured-token';
const OTHER = 'Bearer another-token-5e1d9c7b';
const HOOK_URL = 'https://hooks.example.com/webhooks/strapi';
// The docs' entry.create payload: event, createdAt, model, uid, entry.
const entry = (event, id, at, city) => JSON.stringify({
  event, createdAt: at, model: 'address', uid: 'api::address.address',
  entry: { id, documentId: 'a1b2c3d4e5f6g7h8i9j0klmn', geolocation: {}, city, postal_code: null, category: null, full_name: null, createdAt: at, updatedAt: at, cover: null, images: [] },
});
const BODY = entry('entry.create', 1, '2023-11-14T22:13:18.649Z', 'Paris');
const request = (auth) => {
  const headers = [['Content-Type', 'application/json']];
  if (auth !== null) headers.push(['Authorization', auth]);
  return { method: 'POST', url: HOOK_URL, headers, body: BODY, now: NOW };
};
const cases = [
  { name: 'entry.create with the configured Authorization header', secrets: [SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'tenant holds the old and the new value', secrets: [OTHER, SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'one byte of the token changed', secrets: [SECRET], ...request(SECRET.slice(0, -1) + 'x'), expect: 'invalid_signature' },
  { name: 'verified with another value', secrets: [OTHER], ...request(SECRET), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
];
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://docs.strapi.io/cms/backend-customization/webhooks';
const out = {
  kind: 'strapi',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the Authorization header of "Securing your webhooks" (webhooks.defaultHeaders), as documented', url: DOCS },
  facts: {
    title: 'Strapi',
    docs: DOCS,
    scheme: 'static header: Authorization equals the value set on the webhook (or in webhooks.defaultHeaders), e.g. "Bearer <token>"; the body is not signed',
    secret: 'the whole Authorization value, e.g. "Bearer my-very-secured-token"',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no event ID; each event has its own createdAt and entry.updatedAt',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not documented: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'Bearer strapi-corpus-token-3c9e7a1f';
const DIR = new URL('../../captures/strapi/', import.meta.url);
const E1 = entry('entry.create', 7, '2025-12-31T23:59:10.000Z', 'Lyon');
const E2 = entry('entry.publish', 7, '2025-12-31T23:59:50.000Z', 'Lyon');
const shots = [
  ['0001-entry-create.json', E1, 'accepted', 'an entry.create webhook: ' + DOCS],
  ['0002-entry-create-again.json', E1, 'duplicate', 'the same delivery again (the same body, whose SHA-256 is the ID)'],
  ['0003-entry-publish.json', E2, 'accepted', 'the entry.publish of the same entry: another event'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'strapi', kind: 'strapi', tenant: 'default', method: 'POST', path: '/webhooks/strapi', query: '',
    headers: [['Content-Type', 'application/json'], ['Authorization', CORPUS_SECRET]], body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `strapi/${file}`, expect, events: [{ id: crypto.createHash('sha256').update(body).digest('hex'), type: JSON.parse(body).event }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'strapi', kind: 'strapi', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the Authorization header of Strapi\'s "Securing your webhooks" (' + DOCS + '): tests/vectors/strapi/generate.mjs', captures }, null, 2) + '\n');
console.log(`strapi: ${cases.length} cases, ${captures.length} captures`);
