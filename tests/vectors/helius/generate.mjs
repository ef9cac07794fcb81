// Known-answer vectors for Helius webhooks. Nothing is signed: "Set an
// authorization header when creating or updating the webhook. Helius echoes
// this value in the Authorization header when sending data to your webhook
// endpoint" (https://www.helius.dev/docs/faqs/webhooks). Each case is such a
// request (an enhanced-transaction webhook: a JSON array of transactions) and
// the verdict is whether its Authorization header equals the tenant's value.
// It also writes the provider's corpus captures (tests/captures/helius/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const DOCS = 'https://www.helius.dev/docs/faqs/webhooks';
const AUTH = 'Bearer helius-webhook-auth-7f3c9a1e5b2d';
const OTHER = 'Bearer another-webhook-auth-value';
// An enhanced webhook delivery: an array of parsed transactions, each with its
// signature (the transaction's ID) and type.
const tx = (signature, type, slot) => ({ description: 'HXs... transferred 0.1 SOL to 9xQ...', type, source: 'SYSTEM_PROGRAM', fee: 5000,
  feePayer: 'HXsKP7wrBWaQ8T2Vtjry3Nj3oUgwYcqq9vrHDM12G664', signature, slot, timestamp: 1699999990,
  nativeTransfers: [{ fromUserAccount: 'HXsKP7wrBWaQ8T2Vtjry3Nj3oUgwYcqq9vrHDM12G664', toUserAccount: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', amount: 100000000 }] });
const BODY = JSON.stringify([
  tx('5wHu1qwD7q4T1dKjD3VnLnYvGkPqA9hXcAtz8gRaCqK9eB4kKMhNfS3hBq6ZcG2tx1UeWJtQkYz1xP4eVfP8oNk', 'TRANSFER', 231283901),
  tx('3nVvQm8hM2tBn4sRkq7xYc1ZpLw9D5aFgUeTj6HkXoPr2CzGvNbS8yQdWmEiKaJuLx3fRhTsBqPnYc4oVgZ7Ue9', 'TRANSFER', 231283902),
]);
const H = 'Authorization';
const request = (auth, body = BODY) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/helius/acme',
  headers: [['Content-Type', 'application/json'], ...(auth === null ? [] : [[H, auth]])], body, now: NOW });
function docsVerdict(c) {
  const auth = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  if (auth === undefined) return 'missing_signature';
  return c.secrets.includes(auth) ? 'valid' : 'invalid_signature';
}
const cases = [
  { name: 'an enhanced webhook of two transactions, Authorization echoing the configured value', secrets: [AUTH], ...request(AUTH), expect: 'valid' },
  { name: 'rotation: the tenant holds the old and the new value', secrets: [OTHER, AUTH], ...request(AUTH), expect: 'valid' },
  { name: 'Authorization with one character changed', secrets: [AUTH], ...request(AUTH.slice(0, -1) + 'e'), expect: 'invalid_signature' },
  { name: 'verified with another configured value', secrets: [OTHER], ...request(AUTH), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [AUTH], ...request(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' rule says ${got}, the case expects ${c.expect}`);
}
const out = withIdentity({
  kind: 'helius',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the authorization header set on the webhook, echoed verbatim in Authorization', url: DOCS },
  facts: {
    title: 'Helius (Solana webhooks)',
    docs: DOCS,
    scheme: 'no signature: the Authorization header must equal the authHeader value set on the webhook',
    secret: 'the webhook\'s authHeader value, whole (for example "Bearer ..."), as Helius echoes it',
    timestamp: null,
    event_id: { json_pointer: '/signature' },
    event_id_note: 'an enhanced webhook delivers an array of transactions; each transaction\'s signature is its unique ID on chain',
    event_type: { json_pointer: '/type' },
    batch: '',
    retry_horizon: 'not stated on the page read',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_AUTH = 'Bearer corpus-helius-auth-header';
const dir = new URL('../../captures/helius/', import.meta.url);
mkdirSync(dir, { recursive: true });
const items = JSON.parse(BODY).map((t) => ({ id: t.signature, type: t.type }));
const files = [['0001-two-transfers.json', SENT_AT, 'accepted', `two enhanced transactions in one delivery (${DOCS})`],
  ['0002-two-transfers-resent.json', SENT_AT + 60, 'duplicate', 'the same delivery resent: each transaction\'s signature already seen']];
for (const [name, at] of files) {
  const c = request(CORPUS_AUTH);
  if (docsVerdict({ ...c, secrets: [CORPUS_AUTH] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'helius', kind: 'helius', tenant: 'default', method: 'POST', path: '/webhooks/helius', query: '',
    headers: c.headers, body_base64: Buffer.from(BODY).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'helius', kind: 'helius', secrets: [CORPUS_AUTH],
  source: 'an enhanced-transaction delivery with the corpus Authorization value, checked by the documented comparison (tests/vectors/helius/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `helius/${name}`, expect, events: items, why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
