// Known-answer vectors for Loop Returns webhooks, decided by the lines of the
// Node.js sample in Loop's docs (https://docs.loopreturns.com/webhook-reference/validation)
// that compute and compare the signature, copied below verbatim and run
// unchanged (the Express scaffolding around them only supplies req.buffer,
// the raw body, and req.get('X-Loop-Signature')). The requests are signed
// from the page's description (base64 HMAC-SHA256 of the raw body, keyed
// with the webhook's secret, in X-Loop-Signature).
// It also writes the provider's corpus captures (tests/captures/loop-returns/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

// https://docs.loopreturns.com/webhook-reference/validation, "Code Samples" (Javascript), the handler's lines.
const DOCS_SAMPLE = `  const hmac = crypto.createHmac('sha256', '<SECRET>') // substitute secret
        .update(req.buffer, 'utf-8')
        .digest('base64');

  const signature = req.get('X-Loop-Signature');

  assert.equal(hmac, signature); // validate match`;
const require = createRequire(import.meta.url);
// The sample with its '<SECRET>' placeholder substituted, as its comment says.
const handler = (secret) => new Function('crypto', 'assert', 'req', DOCS_SAMPLE.replace("'<SECRET>'", JSON.stringify(secret)));

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const DOCS = 'https://docs.loopreturns.com/webhook-reference/validation';
const SECRET = 'loop-webhook-secret-2b7e1516';
const OTHER = 'another-loop-webhook-secret';
const CORPUS_SECRET = 'corpus-loop-returns-webhook-secret';
const HEADER = 'X-Loop-Signature';
const body = (id, at) => JSON.stringify({ topic: 'return', trigger: 'return.created', id, state: 'open', created_at: at, order_name: '#1001', currency: 'USD', total: '25.00' });
const BODY = body(10001, '2023-11-14 22:13:10');
const TAMPERED = BODY.replace('"#1001"', '"#1002"');
const sign = (secret, b) => crypto.createHmac('sha256', secret).update(b).digest('base64');
const headersFor = (sig) => [['Content-Type', 'application/json'], ...(sig === null ? [] : [[HEADER, sig]])];

function docsVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === HEADER.toLowerCase())?.[1];
  if (sig === undefined) return 'missing_signature';
  const req = { buffer: Buffer.from(c.body), get: (name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] };
  for (const s of c.secrets) {
    try {
      handler(s)(crypto, require('node:assert'), req);
      return 'valid';
    } catch (e) {
      if (e.code !== 'ERR_ASSERTION') throw e;
    }
  }
  return 'invalid_signature';
}
const req = (sig, b = BODY) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/loop-returns/acme', headers: headersFor(sig), body: b, now: NOW });
const cases = [
  { name: 'a return webhook signed with the secret, accepted by the docs\' sample', secrets: [SECRET], ...req(sign(SECRET, BODY)), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sign(SECRET, BODY)), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sign(SECRET, BODY), TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(sign(SECRET, BODY)), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, the case expects ${c.expect}`);
}
const out = withIdentity({
  kind: 'loop-returns',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'the signature lines of the Javascript sample of "Validate webhooks from Loop", run unchanged', url: DOCS },
  facts: {
    title: 'Loop Returns',
    docs: DOCS,
    scheme: 'X-Loop-Signature = base64(HMAC-SHA256(webhook secret, raw body))',
    secret: 'the webhook\'s secret from the Developer Tools page of the Loop Admin, used as text',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the validation page names no event or delivery ID: an identical resend is a duplicate by its body digest',
    event_type: null,
    retry_horizon: 'not stated on the page read',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const cbody = body(20001, '2026-01-01 00:00:00');
const id = crypto.createHash('sha256').update(cbody).digest('hex');
const dir = new URL('../../captures/loop-returns/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-return.json', SENT_AT, 'accepted', `a return webhook (${DOCS})`],
  ['0002-return-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body digest (the event ID)']];
for (const [name, at] of files) {
  const sig = sign(CORPUS_SECRET, cbody);
  if (docsVerdict({ headers: headersFor(sig), body: cbody, secrets: [CORPUS_SECRET] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'loop-returns', kind: 'loop-returns', tenant: 'default', method: 'POST', path: '/webhooks/loop-returns', query: '',
    headers: headersFor(sig), body_base64: Buffer.from(cbody).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'loop-returns', kind: 'loop-returns', secrets: [CORPUS_SECRET],
  source: 'signed from the docs\' description, checked by the docs\' own sample lines (tests/vectors/loop-returns/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `loop-returns/${name}`, expect, events: [{ id, type: '' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
