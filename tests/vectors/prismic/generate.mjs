// Known-answer vectors for Prismic webhooks. Prismic signs nothing: "If you
// add a secret, Prismic will include it in the webhook so you can verify that
// the request came from Prismic" (https://prismic.io/docs/webhooks); the
// official client types the body with `secret: string | null` beside `type`,
// `domain` and `apiUrl` (@prismicio/client, src/types/webhook/types.ts). The
// verdict: the body's `secret` equals one of the tenant's secrets. Also writes
// the corpus captures (tests/captures/prismic/).
import { writeFileSync, mkdirSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'prismic-webhook-secret-2f8c4a1e';
const OTHER = 'prismic-webhook-secret-9b7d5e3c';
const HOOK_URL = 'https://hooks.example.com/webhooks/prismic';
// An api-update body as @prismicio/client's WebhookBodyAPIUpdate types it.
const update = (secret, masterRef, doc) => JSON.stringify({
  type: 'api-update', masterRef, releases: {}, masks: {}, tags: {}, experiments: {},
  documents: [doc], domain: 'your-repo-name', apiUrl: 'https://your-repo-name.prismic.io/api',
  ...(secret === undefined ? {} : { secret }),
});
const request = (body) => ({ method: 'POST', url: HOOK_URL, headers: [['Content-Type', 'application/json']], body, now: NOW });
const BODY = update(SECRET, 'XwNzJxIAAB4AmXrZ', 'XwNzIhIAACIAmXrK');
const cases = [
  { name: 'api-update carrying the webhook\'s secret', secrets: [SECRET], ...request(BODY), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(BODY), expect: 'valid' },
  { name: 'one byte of the secret changed', secrets: [SECRET], ...request(update(SECRET.slice(0, -1) + 'f', 'XwNzJxIAAB4AmXrZ', 'XwNzIhIAACIAmXrK')), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(BODY), expect: 'invalid_signature' },
  { name: 'the secret field removed', secrets: [SECRET], ...request(update(undefined, 'XwNzJxIAAB4AmXrZ', 'XwNzIhIAACIAmXrK')), expect: 'missing_signature' },
];
const verdict = (c) => {
  const s = JSON.parse(c.body).secret;
  return s === undefined || s === null ? 'missing_signature' : c.secrets.includes(s) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://prismic.io/docs/webhooks';
const out = {
  kind: 'prismic',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the webhook secret carried in the body\'s `secret`, as documented and as @prismicio/client types the body', url: DOCS },
  facts: {
    title: 'Prismic',
    docs: DOCS,
    scheme: 'body token: the JSON body\'s `secret` equals the secret set on the webhook; nothing is signed',
    secret: 'the webhook\'s secret as typed in Settings > Webhooks',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body carries no event ID; each publish moves masterRef and lists its documents, and a retry resends the same body',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'every 10 minutes up to 5 times',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'prismic-corpus-secret-6a0e2c8d';
const DIR = new URL('../../captures/prismic/', import.meta.url);
const B1 = update(CORPUS_SECRET, 'ZYkq3BIAACgAQx1a', 'ZYkpVxIAACIAQwz7');
const B2 = update(CORPUS_SECRET, 'ZYkr9BIAACkAQyE3', 'ZYkpVxIAACIAQwz7');
const shots = [
  ['0001-api-update.json', B1, 'accepted', 'an api-update after a publish: ' + DOCS],
  ['0002-api-update-retried.json', B1, 'duplicate', 'the same webhook re-attempted 10 minutes later (the same body): ' + DOCS],
  ['0003-api-update-next.json', B2, 'accepted', 'the next publish, under a new masterRef'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'prismic', kind: 'prismic', tenant: 'default', method: 'POST', path: '/webhooks/prismic', query: '',
    headers: [['Content-Type', 'application/json']], body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `prismic/${file}`, expect, events: [{ id: crypto.createHash('sha256').update(body).digest('hex'), type: 'api-update' }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'prismic', kind: 'prismic', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the body\'s `secret` (' + DOCS + '): tests/vectors/prismic/generate.mjs', captures }, null, 2) + '\n');
console.log(`prismic: ${cases.length} cases, ${captures.length} captures`);
