// Known-answer vectors for Circle's v2 webhook notifications (Wallets, Contracts,
// CPN, Gateway, StableFX): X-Circle-Signature is a base64 ECDSA_SHA_256 (P-256,
// DER) signature of the raw body, X-Circle-Key-Id names the key, and the public
// key is fetched by that ID from the product's key endpoint with the account's
// API key (Authorization: Bearer), answered as {"data": {"publicKey": <base64
// DER SPKI>, "algorithm": "ECDSA_SHA_256", ...}}.
// Circle publishes no signer and no SDK verifier: the notifications are signed
// here with node:crypto from committed test keys, and every verdict is that of
// `circleVerify` below, which is the flow of Circle's own TypeScript sample
// (https://developers.circle.com/stablefx/howtos/verify-webhook-signatures):
// fetch the key by ID with the API key, createPublicKey from the base64 DER
// SPKI, createVerify('SHA256').update(raw body).verify(key, signature, 'base64').
// The key endpoint is answered here, inside this process only, from CERTS.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createPublicKey, createSign, createVerify, generateKeyPairSync } from 'node:crypto';

const NOW = 1768513655; // 2026-01-15T21:47:35Z
const here = (f) => new URL(`./${f}`, import.meta.url);
// Test keys: generated once, then committed so the vectors stay the same.
function testKey(file) {
  if (!existsSync(here(file))) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(here(file), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  }
  return readFileSync(here(file), 'utf8');
}
const KEYS = {
  current: { pem: testKey('test-key.pem'), id: '879dc113-5ca4-4ff7-a6b7-54652083fcf8' },
  other: { pem: testKey('test-key-other.pem'), id: '2f0c9a4e-7b1d-4c3e-9a5f-6d8e1b2c3a4f' },
};
const API_KEY = 'TEST_API_KEY:0c6e3b8a1f2d4e5a9b7c:2d9f4a6b8c1e3f5a7b9d';
const WALLETS = 'https://api.circle.com/v2/notifications/publicKey/';
const CPN = 'https://api.circle.com/v2/cpn/notifications/publicKey/';
const answer = ({ pem, id }) => JSON.stringify({ data: { id, algorithm: 'ECDSA_SHA_256',
  publicKey: createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64'),
  createDate: '2026-01-15T21:47:35.107250Z' } });
// What each key URL answers (to a request carrying the API key).
const CERTS = {
  [WALLETS + KEYS.current.id]: answer(KEYS.current),
  [WALLETS + KEYS.other.id]: answer(KEYS.other),
  [CPN + KEYS.current.id]: answer(KEYS.current),
};
// The key endpoint: 401 without the API key, 404 for a key ID it does not know.
async function keyEndpoint(url, { headers }) {
  if (headers.Authorization !== `Bearer ${API_KEY}`) return new Response('{"code":401}', { status: 401 });
  const body = CERTS[url];
  return body === undefined ? new Response('{"code":404}', { status: 404 })
    : new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

// The verifier: Circle's documented flow, as its TypeScript sample writes it.
async function circleVerify(rawBody, signature, keyId, endpoint, apiKey) {
  const response = await keyEndpoint(`${endpoint}${keyId}`, {
    headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}` },
  });
  if (!response.ok) return false;
  const { data } = await response.json();
  const publicKey = createPublicKey({ key: Buffer.from(data.publicKey, 'base64'), format: 'der', type: 'spki' });
  const verifier = createVerify('SHA256');
  verifier.update(rawBody);
  verifier.end();
  return verifier.verify(publicKey, signature, 'base64');
}

const HOOK_URL = 'https://hooks.example.com/webhooks/circle';
const NOTIFICATION_ID = 'a5d2f3c1-6b7e-4f8a-9c0d-1e2f3a4b5c6d';
// The documented v2 envelope (https://developers.circle.com/wallets/webhook-notifications):
// subscriptionId, notificationId, notificationType, notification, timestamp, version 2.
const PAYLOAD = {
  subscriptionId: '3d7c5e1a-9b2f-4a6c-8d0e-f1a2b3c4d5e6',
  notificationId: NOTIFICATION_ID,
  notificationType: 'transactions.inbound',
  notification: { id: 'c8e1f4a2-7d3b-4e9c-a6f0-b2d5c8e1f4a7', blockchain: 'MATIC-AMOY', tokenId: '7adb2b7d-c9cd-5164-b2d4-b73b088274dc',
    walletId: '0189a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', state: 'COMPLETE', amounts: ['1.25'], transactionType: 'INBOUND',
    txHash: '0x4a6f1c2b3d5e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708', createDate: '2026-01-15T21:47:30Z', updateDate: '2026-01-15T21:47:34Z' },
  timestamp: '2026-01-15T21:47:35.107Z',
  version: 2,
};
const BODY = JSON.stringify(PAYLOAD);
const sign = ({ pem }, body = BODY) => createSign('SHA256').update(body).sign(pem, 'base64');
// The same signature with s replaced by n - s (high S): ECDSA verifies both.
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
function highS(b64) {
  const der = Buffer.from(b64, 'base64');
  const rLen = der[3]; const r = der.subarray(4, 4 + rLen);
  const s = BigInt('0x' + der.subarray(6 + rLen).toString('hex'));
  const s2 = s > N / 2n ? s : N - s;
  let sHex = s2.toString(16); if (sHex.length % 2) sHex = '0' + sHex;
  let sBuf = Buffer.from(sHex, 'hex'); if (sBuf[0] & 0x80) sBuf = Buffer.concat([Buffer.from([0]), sBuf]);
  const seq = Buffer.concat([Buffer.from([2, r.length]), r, Buffer.from([2, sBuf.length]), sBuf]);
  return Buffer.concat([Buffer.from([0x30, seq.length]), seq]).toString('base64');
}
const headers = (sig, keyId) => [['Content-Type', 'application/json'],
  ...(sig === null ? [] : [['X-Circle-Signature', sig]]), ...(keyId === null ? [] : [['X-Circle-Key-Id', keyId]])];
const req = (sig, keyId = KEYS.current.id, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headers(sig, keyId), body, now: NOW });

// A tenant secret is the API key, or "cpn API_KEY" for CPN's endpoint.
const endpointOf = (secret) => (secret.startsWith('cpn ') ? [CPN, secret.slice(4)] : [WALLETS, secret]);
async function sdkVerdict(c) {
  const get = (n) => c.headers.find(([k]) => k === n)?.[1];
  const sig = get('X-Circle-Signature'); const keyId = get('X-Circle-Key-Id');
  if (sig === undefined || keyId === undefined) return 'missing_signature';
  for (const secret of c.secrets) {
    const [endpoint, apiKey] = endpointOf(secret);
    if (await circleVerify(c.body, sig, keyId, endpoint, apiKey)) return 'valid';
  }
  return 'invalid_signature';
}

const good = sign(KEYS.current);
const ok = { event_id: NOTIFICATION_ID, event_type: 'transactions.inbound' };
const tampered = BODY.replace('"1.25"', '"9.25"');
const cases = [
  { name: 'transactions.inbound signed with the key X-Circle-Key-Id names (Wallets endpoint)', secrets: [API_KEY], ...req(good), expect: 'valid', ...ok },
  { name: 'the same notification, the key fetched from the CPN endpoint ("cpn API_KEY")', secrets: [`cpn ${API_KEY}`], ...req(good), expect: 'valid', ...ok },
  { name: 'two secrets (CPN and Wallets endpoints): either endpoint\'s key verifies', secrets: [`cpn ${API_KEY}`, API_KEY], ...req(good), expect: 'valid', ...ok },
  { name: 'the signature in its high-S form (node:crypto verifies it)', secrets: [API_KEY], ...req(highS(good)), expect: 'valid', ...ok },
  { name: 'signed by another key under the same key ID', secrets: [API_KEY], ...req(sign(KEYS.other)), expect: 'invalid_signature' },
  { name: 'signed by the current key, naming the other key\'s ID', secrets: [API_KEY], ...req(good, KEYS.other.id), expect: 'invalid_signature' },
  { name: 'body changed after signing (an amount)', secrets: [API_KEY], ...req(good, KEYS.current.id, tampered), expect: 'invalid_signature' },
  { name: 'signature over another body (a valid signature, wrong message)', secrets: [API_KEY], ...req(sign(KEYS.current, tampered)), expect: 'invalid_signature' },
  { name: 'signature not base64 DER', secrets: [API_KEY], ...req('bm90IGEgc2lnbmF0dXJl'), expect: 'invalid_signature' },
  { name: 'no X-Circle-Signature', secrets: [API_KEY], ...req(null), expect: 'missing_signature' },
  { name: 'no X-Circle-Key-Id', secrets: [API_KEY], ...req(good, null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' verifier says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developers.circle.com/api-reference/verify-webhook-signatures';
const out = {
  kind: 'circle',
  source: { kind: 'docs', package: 'node:crypto', registry: null, version: process.versions.node,
    function: 'the docs\' verification flow (StableFX TypeScript sample: createPublicKey(base64 DER SPKI) + createVerify(\'SHA256\').verify(key, signature, \'base64\')), the key fetched by X-Circle-Key-Id with Authorization: Bearer <API key>; signed with createSign(\'SHA256\') over committed P-256 test keys',
    url: DOCS },
  facts: {
    title: 'Circle',
    docs: DOCS,
    scheme: 'X-Circle-Signature: base64 ECDSA_SHA_256 (P-256, DER) signature of the raw body; X-Circle-Key-Id: the UUID of the key, fetched from the product\'s key endpoint (/v2/notifications/publicKey/{id}, CPN /v2/cpn/..., StableFX /v2/stablefx/...) with Authorization: Bearer <API key>, answered as {"data":{"publicKey":<base64 DER SPKI>,"algorithm":"ECDSA_SHA_256"}}',
    secret: 'the Circle API key (PREFIX:ID:SECRET), or "cpn API_KEY" / "stablefx API_KEY" for those products\' key endpoints; it authenticates the key fetch only',
    timestamp: null,
    event_id: { json_pointer: '/notificationId' },
    event_id_note: '"Uniquely identifies the notification. The same ID is reused if Circle retries delivery, so use it to deduplicate": https://developers.circle.com/wallets/webhook-notifications',
    event_type: { json_pointer: '/notificationType' },
    retry_horizon: 'at least once, retried on a non-2xx answer; no schedule published',
    retry_source: 'https://developers.circle.com/api-reference/webhooks',
    handshake: null,
  },
  certs: CERTS,
  cases,
};
writeFileSync(here('vectors.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
