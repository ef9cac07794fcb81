// Known-answer vectors for Hugging Face Hub webhooks. Hugging Face signs
// nothing: "If you set a secret for your Webhook, it will be sent along as an
// X-Webhook-Secret HTTP header on every request"
// (https://huggingface.co/docs/hub/webhooks#webhook-secret). The verdict is a
// comparison of that header with the tenant's values, as the docs describe and
// as huggingface_hub's WebhooksServer does (`request.headers.get("x-webhook-secret")`
// compared with its webhook_secret). Also writes the corpus captures
// (tests/captures/hugging-face/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'hf-webhook-secret-7c3e9a1f5b2d4e6a';
const OTHER = 'hf-webhook-secret-0a1b2c3d4e5f6071';
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/hugging-face';
// The docs' example payload (a new Pull Request comment), trimmed:
// https://huggingface.co/docs/hub/webhooks#webhook-payloads
const discussion = (commentId, content) => JSON.stringify({
  event: { action: 'create', scope: 'discussion.comment' },
  repo: { type: 'model', name: 'openai-community/gpt2', id: '621ffdc036468d709f17434d', private: false,
    url: { web: 'https://huggingface.co/openai-community/gpt2', api: 'https://huggingface.co/api/models/openai-community/gpt2' },
    owner: { id: '628b753283ef59b5be89e937' } },
  discussion: { id: '6399f58518721fdd27fc9ca9', title: 'Update co2 emissions', status: 'open', author: { id: '61d2f90c3c2083e1c08af22d' },
    num: 19, isPullRequest: true, changes: { base: 'refs/heads/main' } },
  comment: { id: commentId, author: { id: '61d2f90c3c2083e1c08af22d' }, content, hidden: false },
  webhook: { id: '6390e855e30d9209411de93b', version: 3 },
});
const BODY = discussion('6399f58518721fdd27fc9caa', 'Add co2 emissions information to the model card');

function request({ secret = SECRET, body = BODY } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (secret !== null) headers.push(['X-Webhook-Secret', secret]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'X-Webhook-Secret matches', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one byte of the secret changed', secrets: [SECRET], ...request({ secret: SECRET.slice(0, -1) + 'b' }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Webhook-Secret removed', secrets: [SECRET], ...request({ secret: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
];
// The header value is the secret, compared as is.
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'x-webhook-secret')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) {
  if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);
}

const DOCS = 'https://huggingface.co/docs/hub/webhooks';
const out = {
  kind: 'hugging-face',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the Webhook secret sent verbatim in X-Webhook-Secret, as documented', url: DOCS + '#webhook-secret' },
  facts: {
    title: 'Hugging Face Hub',
    docs: DOCS,
    scheme: 'static header: X-Webhook-Secret equals the secret set on the webhook; the body is not signed',
    secret: 'the webhook\'s secret as typed in the Hub\'s webhook settings (ASCII), compared verbatim',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no event ID (webhook.id names the webhook, not the event); each event differs in content (updatedRefs, comment, discussion), so the body\'s SHA-256 is the ID: ' + DOCS + '#webhook-payloads',
    event_type: { json_pointers: ['/event/scope', '/event/action'], join: '.' },
    retry_horizon: 'not documented: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// Corpus: a comment, the same delivery again, another comment.
const SENT_AT = '2026-01-01T00:00:00+00:00';
const CORPUS_SECRET = 'hf-corpus-webhook-secret-4d2a9c1e';
const DIR = new URL('../../captures/hugging-face/', import.meta.url);
const FIRST = discussion('6954b2f0a1c3d5e7f9012345', 'Looks good to me');
const SECOND = discussion('6954b2f0a1c3d5e7f9012346', 'Merged, thanks!');
const shots = [
  ['0001-discussion-comment.json', FIRST, 'accepted', 'a discussion.comment create webhook: https://huggingface.co/docs/hub/webhooks#webhook-payloads'],
  ['0002-discussion-comment-again.json', FIRST, 'duplicate', 'the same delivery again (the same body, whose SHA-256 is the ID)'],
  ['0003-discussion-comment-next.json', SECOND, 'accepted', 'the next comment on the same Pull Request: another body'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const headers = [['Content-Type', 'application/json'], ['X-Webhook-Secret', CORPUS_SECRET]];
  const capture = { provider: 'hugging-face', kind: 'hugging-face', tenant: 'default', method: 'POST', path: '/webhooks/hugging-face', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: SENT_AT };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const { sha } = { sha: (await import('node:crypto')).createHash('sha256').update(body).digest('hex') };
  const j = JSON.parse(body);
  captures.push({ file: `hugging-face/${file}`, expect, events: [{ id: sha, type: `${j.event.scope}.${j.event.action}` }], why });
}
const manifest = { route: 'hugging-face', kind: 'hugging-face', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the X-Webhook-Secret header carries the configured secret (https://huggingface.co/docs/hub/webhooks#webhook-secret): tests/vectors/hugging-face/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`hugging-face: ${cases.length} cases, ${captures.length} captures`);
