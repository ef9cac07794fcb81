// Known-answer vectors for Bland AI webhooks, decided by the verification
// function printed in Bland's docs (https://docs.bland.ai/tutorials/webhook-signing),
// copied below verbatim and run unchanged. The requests are signed from the
// docs' description (hex HMAC-SHA256 of the request body, keyed with the
// account's webhook signing secret, in X-Webhook-Signature); the docs'
// function must accept every valid case and refuse every other one.
// It also writes the provider's corpus captures (tests/captures/bland-ai/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

// https://docs.bland.ai/tutorials/webhook-signing, "Verifying Webhooks" (Node.js).
const DOCS_SAMPLE = `const crypto = require('node:crypto');

function verifyWebhookSignature(key, data, signature) {

	const expectedSignature = crypto.createHmac('sha256', key)
        .update(data)
        .digest('hex');

	return expectedSignature === signature;
}`;
const verifyWebhookSignature = new Function('require', `${DOCS_SAMPLE}\nreturn verifyWebhookSignature;`)(createRequire(import.meta.url));

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const KEY = 'bland_whsk_5c1e9a7d3f2b4e6a8c0d1f3e5a7b9c2d';
const OTHER = 'bland_whsk_00000000000000000000000000000000';
const CORPUS_KEY = 'corpus-bland-ai-webhook-signing-secret';
const HEADER = 'X-Webhook-Signature';
// A post-call webhook body (compact JSON, as the docs' sample re-serializes
// the parsed body with JSON.stringify before hashing it).
const BODY = JSON.stringify({
  call_id: 'c9a1f0e2-7b3d-4c5e-9f81-2a6b4d8e0c13', c_id: 'c9a1f0e2-7b3d-4c5e-9f81-2a6b4d8e0c13', to: '+15555550123', from: '+15555550188',
  call_length: 1.25, completed: true, created_at: '2023-11-14T22:11:03.000Z', status: 'completed', answered_by: 'human',
  summary: 'The caller asked for opening hours.', variables: { now: 'Tuesday, November 14, 2023 10:11 PM' },
});
const TAMPERED = BODY.replace('"human"', '"humen"');
const sign = (key, body) => crypto.createHmac('sha256', key).update(body).digest('hex');
const headersFor = (sig) => [['Content-Type', 'application/json'], ...(sig ? [[HEADER, sig]] : [])];

// The docs' handler calls verifyWebhookSignature(secret, JSON.stringify(req.body), header).
function docsVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === HEADER.toLowerCase())?.[1];
  if (sig === undefined) return 'missing_signature';
  const data = JSON.stringify(JSON.parse(c.body));
  return c.secrets.some((s) => verifyWebhookSignature(s, data, sig)) ? 'valid' : 'invalid_signature';
}

const req = (sig, body = BODY) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/bland-ai/acme', headers: headersFor(sig), body, now: NOW });
const cases = [
  { name: 'a post-call webhook signed with the signing secret, accepted by the docs\' verifyWebhookSignature', secrets: [KEY], ...req(sign(KEY, BODY)), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, KEY], ...req(sign(KEY, BODY)), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [KEY], ...req(sign(KEY, BODY), TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(sign(KEY, BODY)), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [KEY], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' function says ${got}, the case expects ${c.expect}`);
}

const out = withIdentity({
  kind: 'bland-ai',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'verifyWebhookSignature (Node.js sample of "Webhook signing", run unchanged)',
    url: 'https://docs.bland.ai/tutorials/webhook-signing' },
  facts: {
    title: 'Bland AI',
    docs: 'https://docs.bland.ai/tutorials/webhook-signing',
    scheme: 'X-Webhook-Signature = hex(HMAC-SHA256(webhook signing secret, request body))',
    secret: 'the webhook signing secret made under Account Settings > Keys in the Dev Portal, used as text',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the signing page names no event or delivery ID: an identical resend is a duplicate by its body digest',
    event_type: null,
    retry_horizon: 'not stated on the page read',
    retry_source: 'https://docs.bland.ai/tutorials/webhook-signing',
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const id = crypto.createHash('sha256').update(BODY).digest('hex');
const dir = new URL('../../captures/bland-ai/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-post-call.json', SENT_AT, 'accepted', 'a post-call webhook (https://docs.bland.ai/tutorials/webhook-signing)'],
  ['0002-post-call-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body digest (the event ID)']];
for (const [name, at] of files) {
  const sig = sign(CORPUS_KEY, BODY);
  if (docsVerdict({ headers: headersFor(sig), body: BODY, secrets: [CORPUS_KEY] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'bland-ai', kind: 'bland-ai', tenant: 'default', method: 'POST', path: '/webhooks/bland-ai', query: '',
    headers: headersFor(sig), body_base64: Buffer.from(BODY).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'bland-ai', kind: 'bland-ai', secrets: [CORPUS_KEY],
  source: 'signed from the docs\' description, checked by the docs\' own verifyWebhookSignature sample (tests/vectors/bland-ai/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `bland-ai/${name}`, expect, events: [{ id, type: '' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
