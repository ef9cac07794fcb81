// Known-answer vectors for Honeybadger's Webhook integration. Honeybadger
// signs nothing: "Every webhook we send already includes a Honeybadger-Token
// header you can use to verify that the request came from us"
// (https://docs.honeybadger.io/guides/integrations/webhook/), the account's
// token described under "Authenticating requests from Honeybadger"
// (https://docs.honeybadger.io/resources/security/#authenticating-requests-from-honeybadger).
// The verdict is a comparison of that header with the tenant's values, as the
// docs describe. Also writes the corpus captures (tests/captures/honeybadger/).
import crypto from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://docs.honeybadger.io/guides/integrations/webhook/';
const TOKEN_DOCS = 'https://docs.honeybadger.io/resources/security/#authenticating-requests-from-honeybadger';
const SECRET = 'hb-token-3f7a1c9e5b2d4086';
const OTHER = 'hb-token-0a9b8c7d6e5f4132';
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/honeybadger';
// The docs' `occurred` example (https://docs.honeybadger.io/guides/integrations/webhook/),
// with the fault's counters as parameters.
const occurred = (faultId, notices, last) => JSON.stringify({
  event: 'occurred', message: '[Crywolf/test] RuntimeError - oops',
  fault: { id: faultId, project_id: 1717, klass: 'RuntimeError', component: null, action: null, environment: 'development',
    resolved: true, ignored: false, created_at: '2014-01-08T18:55:48Z', comments_count: 1, message: 'oops',
    notices_count: notices, last_notice_at: last },
});
const BODY = occurred(3151009, 9, '2014-01-08T19:02:21Z');

function request({ secret = SECRET, body = BODY } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (secret !== null) headers.push(['Honeybadger-Token', secret]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'the docs\' occurred payload with Honeybadger-Token matching', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one byte of the token changed', secrets: [SECRET], ...request({ secret: SECRET.slice(0, -1) + '7' }), expect: 'invalid_signature' },
  { name: 'verified with another token', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Honeybadger-Token removed', secrets: [SECRET], ...request({ secret: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new token', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
];
// The header value is the token, compared as is.
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'honeybadger-token')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) {
  if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);
}

const out = {
  kind: 'honeybadger',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the account\'s Honeybadger-Token sent verbatim on every webhook, as documented', url: DOCS },
  facts: {
    title: 'Honeybadger',
    docs: DOCS,
    scheme: 'static header: Honeybadger-Token equals the account\'s token (' + TOKEN_DOCS + '); the body is not signed',
    secret: 'the Honeybadger-Token value shown in the account\'s security settings, compared verbatim',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no event or delivery ID (fault.id names the error, shared by all its events); counters such as fault.notices_count and last_notice_at change between events, so the body\'s SHA-256 is the ID',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not documented: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// Corpus: an error occurred, the same delivery again, the error occurring once more.
const CORPUS_SECRET = 'hb-corpus-token-6c2e8a4f1d3b';
const DIR = new URL('../../captures/honeybadger/', import.meta.url);
const FIRST = occurred(3151010, 1, '2025-12-31T23:58:00Z');
const SECOND = occurred(3151010, 2, '2025-12-31T23:59:30Z');
const shots = [
  ['0001-occurred.json', FIRST, 'accepted', `an occurred event, as the docs' example: ${DOCS}`],
  ['0002-occurred-again.json', FIRST, 'duplicate', 'the same delivery again (the same body, whose SHA-256 is the ID)'],
  ['0003-occurred-next.json', SECOND, 'accepted', 'the same fault occurring again: notices_count and last_notice_at differ, another event'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const headers = [['Content-Type', 'application/json'], ['Honeybadger-Token', CORPUS_SECRET]];
  const capture = { provider: 'honeybadger', kind: 'honeybadger', tenant: 'default', method: 'POST', path: '/webhooks/honeybadger', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const sha = crypto.createHash('sha256').update(body).digest('hex');
  captures.push({ file: `honeybadger/${file}`, expect, events: [{ id: sha, type: JSON.parse(body).event }], why });
}
const manifest = { route: 'honeybadger', kind: 'honeybadger', secrets: [CORPUS_SECRET],
  source: `nothing is signed: the Honeybadger-Token header carries the account's token (${DOCS}): tests/vectors/honeybadger/generate.mjs`, captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`honeybadger: ${cases.length} cases, ${captures.length} captures`);
