// Known-answer vectors for DatoCMS webhooks. DatoCMS signs nothing: a webhook
// may carry HTTP Basic credentials (`http_basic_user`, `http_basic_password`,
// "HTTP Basic Authorization username/password") and custom headers
// (https://www.datocms.com/docs/content-management-api/resources/webhook).
// The verdict is RFC 7617: the header equals "Basic " + base64(user:password)
// for one of the tenant's user:password secrets. Also writes the corpus
// captures (tests/captures/datocms/).
import { writeFileSync, mkdirSync, } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'user:dato-s3cr3t-Pa55word';
const OTHER = 'user:another-password';
const HOOK_URL = 'https://hooks.example.com/webhooks/datocms';
// The documented "record update" payload:
// https://www.datocms.com/product-updates/introducing-enhanced-webhook-payloads-get-more-information-with-less-effort
const record = (id, title, updatedAt) => JSON.stringify({
  environment: 'main', entity_type: 'item', event_type: 'update',
  entity: { id, type: 'item', attributes: { title },
    meta: { created_at: '2023-11-14T22:00:00.000+00:00', updated_at: updatedAt, published_at: updatedAt, status: 'published' },
    relationships: { item_type: { data: { id: '7690234', type: 'item_type' } } } },
  related_entities: [{ id: '7690234', type: 'item_type', attributes: { name: 'Article', api_key: 'article' } }],
});
const BODY = record('348295724', 'Hello world', '2023-11-14T22:13:18.000+00:00');
const basic = (userPass) => `Basic ${Buffer.from(userPass).toString('base64')}`;
const request = (userPass, body = BODY) => {
  const headers = [['Content-Type', 'application/json']];
  if (userPass !== null) headers.push(['Authorization', basic(userPass)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
};
const cases = [
  { name: 'item update with the webhook\'s Basic credentials', secrets: [SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'rotation: the second configured user:password matches', secrets: [OTHER, SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'the request carries another password', secrets: [SECRET], ...request(OTHER), expect: 'invalid_signature' },
  { name: 'verified against another configured password', secrets: [OTHER], ...request(SECRET), expect: 'invalid_signature' },
  { name: 'Authorization header removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
];
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.some((s) => basic(s) === h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://www.datocms.com/docs/content-management-api/resources/webhook';
const out = {
  kind: 'datocms',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the webhook\'s http_basic_user and http_basic_password, as documented (RFC 7617)', url: DOCS },
  facts: {
    title: 'DatoCMS',
    docs: DOCS,
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(http_basic_user:http_basic_password) set on the webhook; the body is not signed',
    secret: 'the webhook\'s HTTP Basic username and password, written user:password',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no event ID; the entity with its meta.updated_at differs from one change to the next, so the body\'s SHA-256 is the ID',
    event_type: { json_pointers: ['/entity_type', '/event_type'], join: '.' },
    retry_horizon: 'auto_retry resends failed calls; the schedule is not stated: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'dato-corpus:4e8a2c6f-corpus-password';
const DIR = new URL('../../captures/datocms/', import.meta.url);
const R1 = record('412093857', 'First draft', '2025-12-31T23:59:00.000+00:00');
const R2 = record('412093857', 'Second draft', '2025-12-31T23:59:40.000+00:00');
const shots = [
  ['0001-item-update.json', R1, 'accepted', 'a record update: https://www.datocms.com/product-updates/introducing-enhanced-webhook-payloads-get-more-information-with-less-effort'],
  ['0002-item-update-retried.json', R1, 'duplicate', 'the same call resent by auto_retry (the same body): ' + DOCS],
  ['0003-item-update-next.json', R2, 'accepted', 'the next update of the same record: another body'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'datocms', kind: 'datocms', tenant: 'default', method: 'POST', path: '/webhooks/datocms', query: '',
    headers: [['Content-Type', 'application/json'], ['Authorization', basic(CORPUS_SECRET)]],
    body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const j = JSON.parse(body);
  captures.push({ file: `datocms/${file}`, expect, events: [{ id: crypto.createHash('sha256').update(body).digest('hex'), type: `${j.entity_type}.${j.event_type}` }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'datocms', kind: 'datocms', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the webhook\'s HTTP Basic credentials (' + DOCS + '): tests/vectors/datocms/generate.mjs', captures }, null, 2) + '\n');
console.log(`datocms: ${cases.length} cases, ${captures.length} captures`);
