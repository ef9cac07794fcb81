// Known-answer vectors for Datasaur webhooks, from the worked example of
// Datasaur's "Webhook Signature" page
// (https://docs.datasaur.ai/integrations/webhook-notifications/webhook-signature):
// request body '{"body":"sample"}', secret 'secret', signature
// "0278b1a603de4c561ac0feb960354d0d00e8846b74813d81bddb43ad45bff767"
// (X-Datasaur-Signature: HMAC-SHA256(secret, body), hex), copied verbatim. The
// page's own Node.js sample, run below unchanged, reproduces it; the other
// cases change one thing each.
// It also writes the provider's corpus captures (tests/captures/datasaur/).
import { mkdirSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://docs.datasaur.ai/integrations/webhook-notifications/webhook-signature';
// The page's sample, verbatim.
const DOCS_SAMPLE = `const requestBody = '{"body":"sample"}';
const secret = 'secret'
const signature = crypto.createHmac('sha256', secret).update(requestBody).digest('hex');`;
const docs = new Function('crypto', `${DOCS_SAMPLE}\nreturn { requestBody, secret, signature };`)(crypto);
const PRINTED = '0278b1a603de4c561ac0feb960354d0d00e8846b74813d81bddb43ad45bff767';
if (docs.signature !== PRINTED) throw new Error(`the docs' sample gives ${docs.signature}, the page prints ${PRINTED}`);

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const HEADER = 'X-Datasaur-Signature';
const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');
const headersFor = (sig) => [['Content-Type', 'application/json'], ...(sig === null ? [] : [[HEADER, sig]])];
const req = (sig, body = docs.requestBody) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/datasaur/acme', headers: headersFor(sig), body, now: NOW });
const cases = [
  { name: 'the page\'s worked example: body {"body":"sample"}, secret "secret"', secrets: [docs.secret], ...req(PRINTED), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: ['another-secret', docs.secret], ...req(PRINTED), expect: 'valid' },
  { name: 'one body byte changed', secrets: [docs.secret], ...req(PRINTED, '{"body":"sampla"}'), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: ['another-secret'], ...req(PRINTED), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [docs.secret], ...req(null), expect: 'missing_signature' },
];
// The verdicts: the docs' HMAC over each case's body with each secret, compared with the header.
for (const c of cases) {
  const sig = c.headers.find(([k]) => k === HEADER)?.[1];
  const got = sig === undefined ? 'missing_signature' : c.secrets.some((s) => sign(s, c.body) === sig) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: ${got}, expected ${c.expect}`);
}
const out = withIdentity({
  kind: 'datasaur',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the worked example of "Webhook Signature" (body {"body":"sample"}, secret "secret", its printed signature), reproduced by the page\'s Node.js sample', url: DOCS },
  facts: {
    title: 'Datasaur',
    docs: DOCS,
    scheme: 'X-Datasaur-Signature = hex(HMAC-SHA256(secret, body))',
    secret: 'the secret given when the webhook was registered',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the page names no event or delivery ID: an identical resend is a duplicate by its body digest',
    event_type: null,
    retry_horizon: 'not stated on the page read',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'corpus-datasaur-webhook-secret';
const body = docs.requestBody; // the page's example body, signed with the corpus secret
const id = crypto.createHash('sha256').update(body).digest('hex');
const dir = new URL('../../captures/datasaur/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-notification.json', SENT_AT, 'accepted', `the page's example body (${DOCS})`],
  ['0002-notification-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body digest (the event ID)']];
for (const [name, at] of files) {
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'datasaur', kind: 'datasaur', tenant: 'default', method: 'POST', path: '/webhooks/datasaur', query: '',
    headers: headersFor(sign(CORPUS_SECRET, body)), body_base64: Buffer.from(body).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'datasaur', kind: 'datasaur', secrets: [CORPUS_SECRET],
  source: 'signed with the page\'s own sample computation (tests/vectors/datasaur/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `datasaur/${name}`, expect, events: [{ id, type: '' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
