// Known-answer vectors for Contentstack webhooks authenticated with Basic
// auth: a webhook's Authentication Method "Basic Auth" sends "HTTP Basic Auth
// Username" and "HTTP Basic Auth Password"
// (https://www.contentstack.com/docs/developers/set-up-webhooks/create-a-webhook/;
// the docs' sample request carries `Authorization: Basic dGVzdDp0ZXN0aW5n`,
// https://www.contentstack.com/docs/developers/set-up-webhooks/send-concise-webhook-payload).
// The verdict is RFC 7617: the header equals "Basic " + base64(user:password)
// for one of the tenant's user:password secrets. Also writes the corpus
// captures (tests/captures/contentstack/).
import { writeFileSync, mkdirSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// The docs' sample: "Basic dGVzdDp0ZXN0aW5n" is base64("test:testing").
const SECRET = 'test:testing';
const OTHER = 'test:another-password';
const HOOK_URL = 'https://hooks.example.com/webhooks/contentstack';
// The documented body: event, module, api_key, data (+ triggered_at)
// (https://www.contentstack.com/docs/developers/set-up-webhooks/webhook-data-format).
const entryEvent = (event, uid, version, at) => JSON.stringify({
  triggered_at: at, module: 'entry', api_key: 'blt38776c9acaae33b3', event,
  data: { entry: { title: 'Webhook Entry', url: '/webhook-entry', locale: 'en-us', uid, created_at: '2019-03-08T08:57:47.737Z', updated_at: at, _version: version, tags: [] },
    content_type: { uid: 'webhook_created', title: 'Webhook created' }, branch: { uid: 'main' } },
});
const BODY = entryEvent('update', 'blt36952eb8ea6a1234', 2, '2023-11-14T22:13:18.000Z');
const basic = (userPass) => `Basic ${Buffer.from(userPass).toString('base64')}`;
if (basic(SECRET) !== 'Basic dGVzdDp0ZXN0aW5n') throw new Error('the docs\' sample header');
const request = (userPass) => {
  const headers = [['Content-Type', 'application/json'], ['User-Agent', 'Contentstack']];
  if (userPass !== null) headers.push(['Authorization', basic(userPass)]);
  return { method: 'POST', url: HOOK_URL, headers, body: BODY, now: NOW };
};
const cases = [
  { name: 'entry update with the docs\' sample Basic credentials (Basic dGVzdDp0ZXN0aW5n)', secrets: [SECRET], ...request(SECRET), expect: 'valid' },
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

const DOCS = 'https://www.contentstack.com/docs/developers/set-up-webhooks/create-a-webhook/';
const out = {
  kind: 'contentstack',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the webhook\'s HTTP Basic Auth username and password; the docs\' sample header Basic dGVzdDp0ZXN0aW5n', url: DOCS },
  facts: {
    title: 'Contentstack',
    docs: DOCS,
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(username:password) set as the webhook\'s Basic Auth; the body is not signed by it',
    secret: 'the webhook\'s HTTP Basic Auth username and password, written user:password',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body carries no event ID; each event has its own triggered_at and entry _version',
    event_type: { json_pointers: ['/module', '/event'], join: '.' },
    retry_horizon: 'retry_policy automatic or manual; the schedule is not stated here: the default window',
    retry_source: 'https://www.contentstack.com/docs/developers/set-up-webhooks/webhook-data-format',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'cs-corpus:1d5f9b3e-corpus-password';
const DIR = new URL('../../captures/contentstack/', import.meta.url);
const E1 = entryEvent('update', 'blt0c7e3a9f5b1d2468', 3, '2025-12-31T23:59:20.000Z');
const E2 = entryEvent('publish', 'blt0c7e3a9f5b1d2468', 3, '2025-12-31T23:59:45.000Z');
const shots = [
  ['0001-entry-update.json', E1, 'accepted', 'an entry update: https://www.contentstack.com/docs/developers/set-up-webhooks/webhook-data-format'],
  ['0002-entry-update-retried.json', E1, 'duplicate', 'the same webhook retried (the same body)'],
  ['0003-entry-publish.json', E2, 'accepted', 'the publish of the same entry: another event'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'contentstack', kind: 'contentstack', tenant: 'default', method: 'POST', path: '/webhooks/contentstack', query: '',
    headers: [['Content-Type', 'application/json'], ['User-Agent', 'Contentstack'], ['Authorization', basic(CORPUS_SECRET)]],
    body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const j = JSON.parse(body);
  captures.push({ file: `contentstack/${file}`, expect, events: [{ id: crypto.createHash('sha256').update(body).digest('hex'), type: `${j.module}.${j.event}` }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'contentstack', kind: 'contentstack', secrets: [CORPUS_SECRET],
  source: 'the webhook\'s HTTP Basic Auth credentials (' + DOCS + '): tests/vectors/contentstack/generate.mjs', captures }, null, 2) + '\n');
console.log(`contentstack: ${cases.length} cases, ${captures.length} captures`);
