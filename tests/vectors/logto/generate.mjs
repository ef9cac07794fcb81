// Known-answer vectors for Logto webhooks, decided by the verification
// function printed in Logto's docs (https://docs.logto.io/developers/webhooks/secure-webhooks),
// copied below verbatim and run unchanged (TypeScript, transpiled by the
// `typescript` package, which only erases its types). The requests are signed
// from the docs' description (hex HMAC-SHA256 of the raw body, keyed with the
// webhook's signing key, in logto-signature-sha-256); the docs' function
// must accept every valid case and refuse every other one.
// It also writes the provider's corpus captures (tests/captures/logto/).
import { mkdirSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import ts from 'typescript';
import { withIdentity } from '../identity.mjs';

// https://docs.logto.io/developers/webhooks/secure-webhooks, "Verify the signature" (Node.js).
const DOCS_SAMPLE = `import { createHmac } from 'node:crypto';

export const verify = (signingKey: string, rawBody: Buffer[], expectedSignature: string) => {
  const hmac = createHmac('sha256', signingKey);
  hmac.update(rawBody);
  const signature = hmac.digest('hex');
  return signature === expectedSignature;
};`;
const js = ts.transpileModule(DOCS_SAMPLE, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
const { verify } = await import(`data:text/javascript;base64,${Buffer.from(js).toString('base64')}`);

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const KEY = 'whsk_3kZq8bV1xN4mR7tY2pL9sD6fG0hJ5cA1';
const OTHER = 'whsk_0000000000000000000000000000000000';
const CORPUS_KEY = 'corpus-logto-webhook-signing-key';
const URL_ = 'https://hooks.example.com/webhooks/logto/acme';
// A PostRegister interaction hook body, with the fields of
// https://docs.logto.io/developers/webhooks/webhooks-request.
const BODY = JSON.stringify({
  hookId: 'hk8xq2w5e7r9', event: 'PostRegister', createdAt: '2023-11-14T22:13:15.000Z', interactionEvent: 'Register',
  sessionId: 'sess_7Yb2Qm4Lz9', userAgent: 'Mozilla/5.0', userIp: '203.0.113.7', userId: 'u1x2c3v4b5n6',
  user: { id: 'u1x2c3v4b5n6', username: 'jane', primaryEmail: 'jane@example.com', name: 'Jane Doe', createdAt: '2023-11-14T22:13:14.000Z', isSuspended: false },
  applicationId: 'app_9k8j7h6g', application: { id: 'app_9k8j7h6g', type: 'SPA', name: 'Example app' },
});
const TAMPERED = BODY.replace('"jane"', '"jamo"');
const sign = (key, body) => crypto.createHmac('sha256', key).update(body).digest('hex');
const HEADER = 'logto-signature-sha-256';
const headersFor = (sig) => [['content-type', 'application/json'], ['user-agent', 'Logto (https://logto.io/)'], ...(sig ? [[HEADER, sig]] : [])];

function docsVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === HEADER)?.[1];
  if (sig === undefined) return 'missing_signature';
  return c.secrets.some((s) => verify(s, Buffer.from(c.body), sig)) ? 'valid' : 'invalid_signature';
}

const req = (sig, body = BODY) => ({ method: 'POST', url: URL_, headers: headersFor(sig), body, now: NOW });
const cases = [
  { name: 'PostRegister signed with the signing key, accepted by the docs\' verify', secrets: [KEY], ...req(sign(KEY, BODY)), expect: 'valid' },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, KEY], ...req(sign(KEY, BODY)), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [KEY], ...req(sign(KEY, BODY), TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another signing key', secrets: [OTHER], ...req(sign(KEY, BODY)), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [KEY], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' verify says ${got}, the case expects ${c.expect}`);
}

const out = withIdentity({
  kind: 'logto',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'verify (Node.js sample of "Secure webhooks", run unchanged after TypeScript type erasure by typescript 5.9.3)',
    url: 'https://docs.logto.io/developers/webhooks/secure-webhooks' },
  facts: {
    title: 'Logto',
    docs: 'https://docs.logto.io/developers/webhooks/secure-webhooks',
    scheme: 'logto-signature-sha-256 = hex(HMAC-SHA256(signing key, raw body))',
    secret: 'the webhook\'s signing key (Console > Webhooks > the webhook\'s details), used as text',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body carries no event or delivery ID (hookId names the webhook, not the event: https://docs.logto.io/developers/webhooks/webhooks-request); its createdAt makes each event\'s body distinct, so the body digest identifies it and a resend of the same body is a duplicate',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the pages read',
    retry_source: 'https://docs.logto.io/developers/webhooks/webhooks-request',
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus: the event, then the same request resent (a duplicate).
const id = crypto.createHash('sha256').update(BODY).digest('hex');
const dir = new URL('../../captures/logto/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-PostRegister.json', SENT_AT, 'accepted', 'a PostRegister event (https://docs.logto.io/developers/webhooks/webhooks-request)'],
  ['0002-PostRegister-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body, so the same body digest (the event ID)']];
for (const [name, at] of files) {
  const sig = sign(CORPUS_KEY, BODY);
  if (docsVerdict({ headers: headersFor(sig), body: BODY, secrets: [CORPUS_KEY] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'logto', kind: 'logto', tenant: 'default', method: 'POST', path: '/webhooks/logto', query: '',
    headers: headersFor(sig), body_base64: Buffer.from(BODY).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'logto', kind: 'logto', secrets: [CORPUS_KEY],
  source: 'signed from the docs\' description, checked by the docs\' own verify sample (tests/vectors/logto/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `logto/${name}`, expect, events: [{ id, type: 'PostRegister' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
