// Known-answer vectors for Documenso webhooks. Nothing is signed: "Documenso
// includes that secret in every webhook request via the X-Documenso-Secret
// header" (https://docs.documenso.com/docs/developers/webhooks/verification).
// Each case is the request that page shows (headers and
// {"event": "DOCUMENT_COMPLETED", "payload": {...}}), and the verdict is
// whether X-Documenso-Secret equals the tenant's secret.
// It also writes the provider's corpus captures (tests/captures/documenso/).
import { mkdirSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const DOCS = 'https://docs.documenso.com/docs/developers/webhooks/verification';
const SECRET = 'your_webhook_secret_here';
const OTHER = 'another_webhook_secret';
const H = 'X-Documenso-Secret';
const body = (title) => JSON.stringify({ event: 'DOCUMENT_COMPLETED', payload: { id: 42, title, status: 'COMPLETED', completedAt: '2023-11-14T22:13:15.000Z' } });
const BODY = body('Service agreement.pdf');
const request = (secret, b = BODY) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/documenso/acme',
  headers: [['Content-Type', 'application/json'], ...(secret === null ? [] : [[H, secret]])], body: b, now: NOW });
// The page's rule: compare the header with the stored secret (an empty header when none was configured).
function docsVerdict(c) {
  const got = c.headers.find(([k]) => k.toLowerCase() === H.toLowerCase())?.[1];
  if (got === undefined) return 'missing_signature';
  return c.secrets.includes(got) ? 'valid' : 'invalid_signature';
}
const cases = [
  { name: 'the docs\' request: DOCUMENT_COMPLETED with X-Documenso-Secret', secrets: [SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'rotation: the tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'X-Documenso-Secret with one character changed', secrets: [SECRET], ...request(SECRET.slice(0, -1) + 'a'), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(SECRET), expect: 'invalid_signature' },
  { name: 'X-Documenso-Secret removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' rule says ${got}, the case expects ${c.expect}`);
}
const out = withIdentity({
  kind: 'documenso',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the example request of "Webhook Verification" (X-Documenso-Secret: your_webhook_secret_here) and its documented comparison', url: DOCS },
  facts: {
    title: 'Documenso',
    docs: DOCS,
    scheme: 'no signature: X-Documenso-Secret carries the webhook\'s secret verbatim',
    secret: 'the secret configured on the webhook',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the page names no event or delivery ID: an identical resend is a duplicate by its body digest',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the page read',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'corpus-documenso-webhook-secret';
const CORPUS_BODY = body('Corpus agreement.pdf');
const id = crypto.createHash('sha256').update(CORPUS_BODY).digest('hex');
const dir = new URL('../../captures/documenso/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-DOCUMENT_COMPLETED.json', SENT_AT, 'accepted', `a DOCUMENT_COMPLETED event (${DOCS})`],
  ['0002-DOCUMENT_COMPLETED-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body digest (the event ID)']];
for (const [name, at] of files) {
  const c = request(CORPUS_SECRET, CORPUS_BODY);
  if (docsVerdict({ ...c, secrets: [CORPUS_SECRET] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'documenso', kind: 'documenso', tenant: 'default', method: 'POST', path: '/webhooks/documenso', query: '',
    headers: c.headers, body_base64: Buffer.from(CORPUS_BODY).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'documenso', kind: 'documenso', secrets: [CORPUS_SECRET],
  source: 'the docs\' request shape with the corpus secret, checked by the documented comparison (tests/vectors/documenso/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `documenso/${name}`, expect, events: [{ id, type: 'DOCUMENT_COMPLETED' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
