// Known-answer vectors for Fireblocks webhooks v2: Fireblocks-Webhook-Signature is a
// detached JWS (RS512, "header..signature") over the raw body, checked with the key
// its kid picks from https://keys.fireblocks.io/.well-known/jwks.json:
// https://developers.fireblocks.com/reference/validating-webhooks
// Fireblocks has no verifier package; every verdict is the docs' JWKS example's
// steps, with the library it imports (jose): reinsert the base64url raw body as the
// payload, then compactVerify against the JWKS. The docs use createRemoteJWKSet on
// that URL; here the same set is built locally (createLocalJWKSet) from committed
// test keys, since Fireblocks' keys cannot sign for us. The signatures are made by
// jose's CompactSign with the payload then removed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { CompactSign, compactVerify, createLocalJWKSet, exportJWK, importPKCS8 } from 'jose';

const here = (f) => new URL(`./${f}`, import.meta.url);
function testKey(file) {
  if (!existsSync(here(file))) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(here(file), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  }
  return readFileSync(here(file), 'utf8');
}
const KEYS = {
  current: { pem: testKey('test-key.pem'), kid: 'webhook-key-2025-01' },
  old: { pem: testKey('test-key-old.pem'), kid: 'webhook-key-2024-07' },
  other: { pem: testKey('test-key-other.pem'), kid: 'webhook-key-2025-01' },
};
const jwk = async ({ pem, kid }) => ({ kty: 'RSA', kid, use: 'sig', alg: 'RS512', ...(await exportJWK(createPublicKey(pem))) });
const JWKS_URL = 'https://keys.fireblocks.io/.well-known/jwks.json';
const JWKS = { keys: [await jwk(KEYS.current), await jwk(KEYS.old)] };
const localJwks = createLocalJWKSet(JWKS);

// The docs' steps: "Detached JWS format: header..signature (no payload)", reconstruct
// the full JWS with the base64url raw body, verify against the JWKS.
async function verifyWebhookJWKS(rawBody, jwsSignature) {
  try {
    const [header, , sig] = jwsSignature.split('.');
    const payload = Buffer.from(rawBody).toString('base64url');
    await compactVerify(`${header}.${payload}.${sig}`, localJwks, { algorithms: ['RS512'] });
    return true;
  } catch {
    return false;
  }
}

const sign = async ({ pem, kid }, body, alg = 'RS512') => {
  const jws = await new CompactSign(new TextEncoder().encode(body))
    .setProtectedHeader({ alg, kid })
    .sign(await importPKCS8(pem, alg));
  const [h, , s] = jws.split('.');
  return `${h}..${s}`;
};

// The docs' transaction.created example (IDs filled in).
const EVENT_ID = '4b8a5c1e-2f3d-4e6a-9b7c-1d2e3f4a5b6c';
const body = (over = {}) => JSON.stringify({
  id: EVENT_ID,
  resourceId: '9f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f',
  workspaceId: '1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d',
  eventType: 'transaction.created',
  createdAt: 1754229343763,
  data: { id: '9f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f', assetId: 'XRP_TEST', amount: 11, status: 'SUBMITTED', operation: 'TRANSFER' },
  ...over,
});
const BODY = body();
const HOOK_URL = 'https://hooks.example.com/webhooks/fireblocks/acme';
const SECRET = 'https://keys.fireblocks.io';
const req = (signature, b = BODY) => ({
  secrets: [SECRET], method: 'POST', url: HOOK_URL,
  headers: signature === null ? [['Content-Type', 'application/json']]
    : [['Content-Type', 'application/json'], ['Fireblocks-Webhook-Signature', signature]],
  body: b, now: 1754229344,
});
const ok = { event_id: EVENT_ID, event_type: 'transaction.created' };
const good = await sign(KEYS.current, BODY);
const [gh, , gs] = good.split('.');
const attached = `${gh}.${Buffer.from(body({ eventType: 'transaction.updated' })).toString('base64url')}.${gs}`;
const cases = [
  { name: 'transaction.created signed with the current key', ...req(good), expect: 'valid', ...ok },
  { name: 'key rotation: signed with the older key the JWKS still lists (kid picks it)', ...req(await sign(KEYS.old, BODY)), expect: 'valid', ...ok },
  { name: 'body changed after signing (eventType)', ...req(good, body({ eventType: 'transaction.updated' })), expect: 'invalid_signature' },
  { name: 'signed with a key the JWKS does not list, under the current kid', ...req(await sign(KEYS.other, BODY)), expect: 'invalid_signature' },
  { name: 'RS256 instead of RS512', ...req(await sign(KEYS.current, BODY, 'RS256')), expect: 'invalid_signature' },
  { name: 'a payload inside the JWS instead of the body', ...req(attached), expect: 'invalid_signature' },
  { name: 'no Fireblocks-Webhook-Signature header', ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const sig = c.headers.find(([k]) => k === 'Fireblocks-Webhook-Signature');
  if (!sig) continue;
  // A JWS that carries a payload is not the detached form the docs describe.
  const detached = sig[1].split('.')[1] === '';
  const got = detached && (await verifyWebhookJWKS(Buffer.from(c.body), sig[1])) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the docs' check says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developers.fireblocks.com/reference/validating-webhooks';
const out = {
  kind: 'fireblocks',
  source: { kind: 'docs-code', package: 'jose', registry: 'npm', version: '5.10.0',
    function: "the docs' verifyWebhookJWKS steps: reinsert the base64url raw body into the detached JWS, jose compactVerify against the JWKS (createLocalJWKSet standing in for createRemoteJWKSet); signed with jose CompactSign, payload removed",
    url: DOCS },
  facts: {
    title: 'Fireblocks (webhooks v2)',
    docs: DOCS,
    scheme: 'Fireblocks-Webhook-Signature = detached JWS "header..signature", RS512 over the raw body, the key picked by kid from the JWKS at https://keys.fireblocks.io/.well-known/jwks.json',
    secret: 'the origin of the workspace region\'s JWKS, https://keys.fireblocks.io for US production (the keys are public)',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'id: "Unique identifier of the object": https://developers.fireblocks.com/reference/webhook-notification-structure',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: null,
    retry_source: null,
    handshake: null,
  },
  certs: { [JWKS_URL]: JSON.stringify(JWKS) },
  cases,
};
writeFileSync(here('vectors.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
