// Known-answer vectors for Kinde webhooks: the body is an RS256 JWT. The tokens are
// signed with jose from committed test keys, and every verdict is the official
// SDK's decodeWebhook(token, domain) (@kinde/webhooks), which fetches
// <domain>/.well-known/jwks.json; that fetch is answered from the JWKS built here,
// inside this process only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { SignJWT, exportJWK, importPKCS8 } from 'jose';
import { decodeWebhook } from '@kinde/webhooks';

const NOW = 1700000000;
const here = (f) => new URL(`./${f}`, import.meta.url);
// Test keys: generated once, then committed so the vectors stay the same.
function testKey(file) {
  if (!existsSync(here(file))) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(here(file), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  }
  return readFileSync(here(file), 'utf8');
}
const KEYS = {
  current: { pem: testKey('test-key.pem'), kid: '2a:e0:4f:7c:1b:93:d5:08:6e:aa:31:c4:5f:72:9b:e1' },
  old: { pem: testKey('test-key-old.pem'), kid: '9c:11:b2:44:e7:0d:5a:83:f6:2e:19:7b:c0:d8:63:4a' },
  other: { pem: testKey('test-key-other.pem'), kid: '51:8f:e2:0a:c7:36:9d:b4:12:6c:f0:a5:3e:87:d9:2b' },
};
const jwk = async ({ pem, kid }) => ({ ...(await exportJWK(createPublicKey(pem))), alg: 'RS256', use: 'sig', kid });
const DOMAIN = 'https://acme.kinde.com';
const OTHER_DOMAIN = 'https://globex.kinde.com';
const JWKS = {
  [`${DOMAIN}/.well-known/jwks.json`]: JSON.stringify({ keys: [await jwk(KEYS.current), await jwk(KEYS.old)] }),
  [`${OTHER_DOMAIN}/.well-known/jwks.json`]: JSON.stringify({ keys: [await jwk(KEYS.other)] }),
};
// decodeWebhook fetches the JWKS with the global fetch: answer it from JWKS, refuse anything else.
globalThis.fetch = async (url) => {
  const body = JWKS[String(url)];
  if (body === undefined) throw new Error(`unexpected fetch ${url}`);
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
};

const HOOK_URL = 'https://hooks.example.com/webhooks/kinde/acme';
const WEBHOOK_ID = 'msg_2lKvQ3xJ9b8eHcY7rT5nW1pZ0aS';
// The documented user.created payload: data.user, event_id, event_timestamp, source, timestamp, type.
const PAYLOAD = {
  data: { user: { email: 'user@example.com', first_name: 'Jane', id: 'kp_5ce676e5d6a24bc9aac2fba35a46e2c5', is_password_reset_requested: false,
    is_suspended: false, last_name: 'Doe', organizations: [{ code: 'org_7052552de68', permissions: null, roles: null }], phone: null, username: null } },
  event_id: 'event_0191b3c6b3c2e5f9d3a4c1e0f7b2a9d8',
  event_timestamp: '2023-11-14T22:13:17.512Z',
  source: 'admin',
  timestamp: '2023-11-14T22:13:18.004Z',
  type: 'user.created',
};
const sign = async ({ pem, kid }, payload = PAYLOAD) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(await importPKCS8(pem, 'RS256'));
const b64url = (s) => Buffer.from(s).toString('base64url');
const headers = [['Content-Type', 'application/jwt'], ['webhook-id', WEBHOOK_ID]];

async function sdkVerdict(c) {
  for (const domain of c.secrets) if (await decodeWebhook(c.body, domain)) return 'valid';
  // The signature is the body itself: a body that is not a three-part JWT carries none.
  return c.body.split('.').length === 3 ? 'invalid_signature' : 'missing_signature';
}

const req = (body) => ({ method: 'POST', url: HOOK_URL, headers, body, now: NOW });
const token = await sign(KEYS.current);
const [h, p, s] = token.split('.');
const tamperedPayload = b64url(JSON.stringify(PAYLOAD).replace('user@example.com', 'user@examplf.com'));
const ok = { event_id: WEBHOOK_ID, event_type: 'user.created' };
const cases = [
  { name: 'user.created JWT signed with the current key, accepted by decodeWebhook', secrets: [DOMAIN], ...req(token), expect: 'valid', ...ok },
  { name: 'key rotation: signed with the older key the JWKS still lists (kid selects it)', secrets: [DOMAIN], ...req(await sign(KEYS.old)), expect: 'valid', ...ok },
  { name: 'rotation of the configured domain: the second one verifies', secrets: [OTHER_DOMAIN, DOMAIN], ...req(token), expect: 'valid', ...ok },
  { name: 'payload changed after signing (one byte of the decoded JSON)', secrets: [DOMAIN], ...req(`${h}.${tamperedPayload}.${s}`), expect: 'invalid_signature' },
  { name: 'verified against another Kinde business\'s JWKS', secrets: [OTHER_DOMAIN], ...req(token), expect: 'invalid_signature' },
  { name: 'signed with a key the JWKS does not list, under the current kid', secrets: [DOMAIN], ...req(await sign({ ...KEYS.other, kid: KEYS.current.kid })), expect: 'invalid_signature' },
  { name: 'unsigned JWT (alg none) carrying the same payload', secrets: [DOMAIN], ...req(`${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${p}.`), expect: 'invalid_signature' },
  { name: 'the signature removed: the body is the bare JSON payload', secrets: [DOMAIN], ...req(JSON.stringify(PAYLOAD)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.kinde.com/integrate/webhooks/about-webhooks/';
const out = {
  kind: 'kinde',
  source: { kind: 'sdk', package: '@kinde/webhooks', registry: 'npm', version: '1.0.0',
    function: 'decodeWebhook(token, domain) (jose jwtVerify against <domain>/.well-known/jwks.json); tokens signed with jose 5.10.0 SignJWT', url: DOCS },
  facts: {
    title: 'Kinde',
    docs: DOCS,
    scheme: 'the body (Content-Type: application/jwt) is an RS256 JWT whose payload is the event; verify it with the key the JWT header\'s kid selects from the business\'s JWKS at <Kinde domain>/.well-known/jwks.json',
    secret: 'the Kinde business domain, e.g. https://acme.kinde.com (or a custom auth domain); the JWKS it serves is public and needs no credentials',
    timestamp: null,
    event_id: { header: 'webhook-id' },
    event_id_note: '"Webhook Request ID: found in the webhook headers as webhook-id, this is unique to a webhook and event, and will not change between attempts": ' + DOCS,
    event_type: { jwt_payload_pointer: '/type' },
    retry_horizon: 'immediately, 5 s, 30 s, 2 min, 10 min, 1 h, 4 h, then every 12 hours until 36 hours',
    retry_source: DOCS,
    handshake: null,
  },
  certs: JWKS,
  cases,
};
writeFileSync(here('vectors.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
