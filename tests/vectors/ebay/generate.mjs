// Known-answer vectors for eBay's Notification API pushes (Marketplace Account
// Deletion and the other topics): X-EBAY-SIGNATURE is base64 of the JSON
// {"alg":"ecdsa","kid":<key ID>,"signature":<base64 DER ECDSA>,"digest":"SHA1"};
// the key is fetched by kid from the Notification API's getPublicKey
// (GET https://api.ebay.com/commerce/notification/v1/public_key/{kid}, sandbox
// api.sandbox.ebay.com) with "Authorization: bearer <application token>", the
// token obtained with the app's client ID and secret (client-credentials grant,
// POST /identity/v1/oauth2/token, scope https://api.ebay.com/oauth/api_scope).
//
// Every verdict here is eBay's own SDK's: event-notification-nodejs-sdk 1.0.3
// (its dependency ebay-oauth-nodejs-client makes the token call), run unchanged
// behind the SDK's example server (express.json() + EventNotificationSDK.process,
// examples/example.js): 204 valid, 412 signature mismatch, 500 anything else.
// Its two HTTPS calls are answered by a local server started here (a throwaway
// CA made with the openssl CLI; https.globalAgent connects to it, TLS verified
// against that CA under eBay's host names), which records them so that the
// token call and the key call are checked too.
// The notifications are signed here with node:crypto (createSign('sha1'), P-256,
// DER) from committed test keys; eBay publishes no signer.
//
// Run: npm ci && node generate.mjs (Node 20). Writes vectors.json.
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey, createSign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import https from 'node:https';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
for (const v of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']) delete process.env[v];
const here = (f) => new URL(`./${f}`, import.meta.url);
const NOW = 1768513655; // 2026-01-15T21:47:35Z

// Test keys: generated once, then committed so the vectors stay the same.
function testKey(file) {
  if (!existsSync(here(file))) {
    execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', here(file).pathname]);
  }
  return readFileSync(here(file), 'utf8');
}
const KEYS = {
  current: { pem: testKey('test-key.pem'), kid: '9936261a-7d7b-4621-a0f1-96ccb428af49' },
  other: { pem: testKey('test-key-other.pem'), kid: '2b8e4c1d-5a6f-4e3b-9c7d-0f1e2d3c4b5a' },
};
// A sandbox app's notifications name sandbox keys: the current key under an ID of its own.
KEYS.sandbox = { pem: KEYS.current.pem, kid: 'c07d4e2a-8b1f-4a6e-b3c5-7d9e0f1a2b3c' };
const CLIENT_ID = 'HooklineT-vectors-PRD-5a1b2c3d4-e5f6a7b8';
const CLIENT_SECRET = 'PRD-a1b2c3d4e5f6-a7b8-c9d0-e1f2-a3b4';
const SANDBOX_ID = 'HooklineT-vectors-SBX-9f8e7d6c5-b4a3f2e1';
const SANDBOX_SECRET = 'SBX-f1e2d3c4b5a6-9788-6a5b-4c3d-2e1f';
const TOKEN = 'v^1.1#i^1#p^1#r^0#I^3#f^0#t^H4sIAAAAAAAAAOVYa2wUVRTe7bYlBYqJEkBEsw4gDzO7d2Z3Z3cmdHVLt7A8+tpSSxHKnZk725Hdme3M3bZbiJSaoEFNiCaYiIKJmCBqQhSjQWOID2JMJFETY/gBRomPIIlR';
const SANDBOX_TOKEN = 'v^1.1#i^1#f^0#p^1#r^0#I^3#t^H4sIAAAAAAAAAOVYf2wTVRxv121kjmGIChExlgMSRq7tu+td2zu3xQ4GlLBuWbcpI2Te3b3bbmvvurvXdR1';
const EXPIRES_IN = 7200;
const PROD = 'https://api.ebay.com/commerce/notification/v1/public_key/';
const SANDBOX = 'https://api.sandbox.ebay.com/commerce/notification/v1/public_key/';
// getPublicKey's answer: the PEM with its line breaks taken out, as eBay serves
// it (the SDK's formatKey puts two back), and the algorithm and digest.
const answer = ({ pem }) => {
  const spki = createPublicKey(pem).export({ type: 'spki', format: 'pem' });
  const flat = spki.replace(/\n/g, '');
  return JSON.stringify({ key: flat, algorithm: 'ECDSA', digest: 'SHA1' });
};
const CERTS = {
  [PROD + KEYS.current.kid]: answer(KEYS.current),
  [PROD + KEYS.other.kid]: answer(KEYS.other),
  [SANDBOX + KEYS.sandbox.kid]: answer(KEYS.sandbox),
  // The sandbox serves another key under the production key's ID: a tenant
  // with both secrets verifies with whichever key signed.
  [SANDBOX + KEYS.current.kid]: answer(KEYS.other),
};

// --- the local stand-in for api.ebay.com and api.sandbox.ebay.com ----------
const dir = mkdtempSync(join(tmpdir(), 'ebay-vectors-'));
const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=vectors CA');
ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=api.ebay.com');
writeFileSync(join(dir, 'ext'), 'subjectAltName=DNS:api.ebay.com,DNS:api.sandbox.ebay.com\n');
ssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.pem', '-days', '2', '-extfile', 'ext');
const CA = readFileSync(join(dir, 'ca.pem'));
const calls = [];
const creds = { 'api.ebay.com': [CLIENT_ID, CLIENT_SECRET, TOKEN], 'api.sandbox.ebay.com': [SANDBOX_ID, SANDBOX_SECRET, SANDBOX_TOKEN] };
const ebay = https.createServer({ key: readFileSync(join(dir, 'srv.key')), cert: readFileSync(join(dir, 'srv.pem')) }, (req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const host = req.headers.host.replace(/:\d+$/, '');
    calls.push({ host, method: req.method, path: req.url, authorization: req.headers.authorization, body });
    const [id, secret, token] = creds[host];
    const json = (status, value) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(value)); };
    if (req.method === 'POST' && req.url === '/identity/v1/oauth2/token') {
      const basic = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return json(401, { error: 'invalid_client', error_description: 'client authentication failed' });
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'https://api.ebay.com/oauth/api_scope') return json(400, { error: 'invalid_request' });
      return json(200, { access_token: token, expires_in: EXPIRES_IN, token_type: 'Application Access Token' });
    }
    const prefix = '/commerce/notification/v1/public_key/';
    if (req.method === 'GET' && req.url.startsWith(prefix)) {
      if (req.headers.authorization?.toLowerCase() !== `bearer ${token}`.toLowerCase()) return json(401, { errors: [{ errorId: 1001 }] });
      const key = CERTS[`https://${host}${req.url}`];
      return key === undefined ? json(404, { errors: [{ errorId: 195000, message: 'Resource not found' }] })
        : (res.writeHead(200, { 'Content-Type': 'application/json' }), res.end(key));
    }
    json(404, {});
  });
});
await new Promise((ok) => ebay.listen(0, '127.0.0.1', ok));
const EBAY_PORT = ebay.address().port;
// Every https connection of this process (the OAuth client's https.request, the
// SDK's axios) goes to the stand-in, verified as the host it asked for.
const connect = https.globalAgent.createConnection;
https.globalAgent.createConnection = function (opts, cb) {
  const servername = opts.servername || opts.host;
  if (servername !== 'api.ebay.com' && servername !== 'api.sandbox.ebay.com') throw new Error(`unexpected host ${servername}`);
  return connect.call(this, { ...opts, host: '127.0.0.1', port: EBAY_PORT, servername, ca: CA }, cb);
};

// --- the SDK, behind its example server --------------------------------------
const express = require('express');
const EventNotificationSDK = require('event-notification-nodejs-sdk');
const SDK_CONFIG = {
  PRODUCTION: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, devId: 'devId', redirectUri: 'redirectUri', baseUrl: 'api.ebay.com' },
  SANDBOX: { clientId: SANDBOX_ID, clientSecret: SANDBOX_SECRET, devId: 'devId', redirectUri: 'redirectUri', baseUrl: 'api.sandbox.ebay.com' },
};
const HOOK_URL = 'https://hooks.example.com/webhooks/ebay';
const VERIFICATION_TOKEN = 'hookline-vectors_verification-token-0123456789';
const app = express();
app.use(express.json());
// As examples/example.js, the environment from the path.
for (const environment of ['PRODUCTION', 'SANDBOX']) {
  app.post(`/${environment}`, (req, res) => {
    EventNotificationSDK.process(req.body, req.headers['x-ebay-signature'], SDK_CONFIG, environment)
      .then((code) => res.status(code).send())
      .catch(() => res.status(500).send());
  });
}
app.get('/PRODUCTION', (req, res) => {
  try {
    const challengeResponse = EventNotificationSDK.validateEndpoint(req.query.challenge_code,
      { endpoint: HOOK_URL, verificationToken: VERIFICATION_TOKEN });
    res.status(200).send({ challengeResponse });
  } catch (e) {
    res.status(500).send();
  }
});
const server = await new Promise((ok) => { const s = app.listen(0, '127.0.0.1', () => ok(s)); });
const SDK_PORT = server.address().port;
// The SDK's answer to a request: its status, and the eBay calls it made.
function sdk(environment, { method = 'POST', headers, body = '', query = '' }) {
  const before = calls.length;
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port: SDK_PORT, method, path: `/${environment}${query}`, headers: Object.fromEntries(headers) }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => ok({ status: res.statusCode, body: text, calls: calls.slice(before) }));
    });
    req.on('error', fail);
    req.end(body);
  });
}
// Console noise of the SDK (its message processor logs the user, its error
// paths log and answer 500).
const log = console.log;
console.error = () => {};
console.log = () => {};

// --- the notifications --------------------------------------------------------
const NOTIFICATION_ID = '49feeaeb-4982-42d9-a377-9645b8479411_33f7e043-fed8-442b-9d44-791923bd9a6d';
const TOPIC = 'MARKETPLACE_ACCOUNT_DELETION';
// The envelope of the SDK's test data (test/test.json) and of eBay's
// Marketplace Account Deletion page: metadata.topic, notification.notificationId.
const payload = (data = {}) => ({
  metadata: { topic: TOPIC, schemaVersion: '1.0', deprecated: false },
  notification: {
    notificationId: NOTIFICATION_ID,
    eventDate: '2026-01-15T21:47:33.462Z',
    publishDate: '2026-01-15T21:47:35.107Z',
    publishAttemptCount: 1,
    data: { username: 'test_user', userId: 'ma8vp1jySJC', eiasToken: 'nY+sHZ2PrBmdj6wVnY+sEZ2PrA2dj6wJnY+gAZGEpwmdj6x9nY+seQ==', ...data },
  },
});
const BODY = JSON.stringify(payload());
const sign = ({ pem }, text) => createSign('sha1').update(text).sign(pem, 'base64');
const header = (signature, kid = KEYS.current.kid, extra = {}) =>
  Buffer.from(JSON.stringify({ alg: 'ecdsa', kid, signature, digest: 'SHA1', ...extra })).toString('base64');
// What the SDK verifies: JSON.stringify of what express.json() parsed.
const stringified = (raw) => JSON.stringify(JSON.parse(raw));
// The same signature with s replaced by n - s (high S): OpenSSL verifies both.
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
const SECRET = `${CLIENT_ID}:${CLIENT_SECRET}`;
const SANDBOX_SECRET_LINE = `sandbox ${SANDBOX_ID}:${SANDBOX_SECRET}`;
const headers = (sig) => [['Content-Type', 'application/json'], ...(sig === null ? [] : [['X-EBAY-SIGNATURE', sig]])];
const ok = { event_id: NOTIFICATION_ID, event_type: TOPIC };

// Bodies whose bytes differ from JSON.stringify of their parse: what the SDK
// verifies is the latter.
const PRETTY = JSON.stringify(payload(), null, 2) + '\n';
const ESCAPES = BODY.replace('"test_user"', '"t\\u00e9st\\/us\\u0065r \\u2028 \\ud83d\\ude00 \\u007f \\u001f \\t"');
const LITERALS = BODY.replace('"test_user"', '"tést/user \u2028 😀"');
const NUMBERS = BODY.replace('"publishAttemptCount":1', '"publishAttemptCount":1.0,"n":[1e21,1E2,-0,0.1,1e-7,1.5e-7,123456789012345678901,12345678901234567890,5e-324,1.7976931348623157e308,100000000000000000000,0.000001,2.50,-1.25e+3,9007199254740993]');
const INDEX_KEYS = BODY.replace('"data":{', '"data":{"b":1,"10":2,"2":3,"01":4,"4294967294":5,"4294967295":6,"-1":7,"0":8,');
const DUPLICATE = BODY.replace('"userId":"ma8vp1jySJC"', '"userId":"someone_else","userId":"ma8vp1jySJC"');
const LONE = BODY.replace('"test_user"', '"test\\ud800user"');
const LONE_UPPER = BODY.replace('"test_user"', '"test\\uD800user"');
const tampered = BODY.replace('ma8vp1jySJC', 'ma8vp1jySJD');

const good = sign(KEYS.current, BODY);
const reserialized = (raw) => header(sign(KEYS.current, stringified(raw)));
const cases = [
  { name: 'MARKETPLACE_ACCOUNT_DELETION signed with the key kid names (production)', secrets: [SECRET], env: 'PRODUCTION', sig: header(good), expect: 'valid', ...ok },
  { name: 'the same notification to a sandbox app (key from api.sandbox.ebay.com)', secrets: [SANDBOX_SECRET_LINE], env: 'SANDBOX', sig: header(good, KEYS.sandbox.kid), expect: 'valid', ...ok },
  { name: 'two secrets (sandbox, production): either environment\'s key verifies (the sandbox has another key under this kid)', secrets: [SANDBOX_SECRET_LINE, SECRET], env: 'PRODUCTION', sig: header(good), expect: 'valid', ...ok },
  { name: 'the signature in its high-S form', secrets: [SECRET], env: 'PRODUCTION', sig: header(highS(good)), expect: 'valid', ...ok },
  { name: 'alg and digest of the header other than ecdsa/SHA1 (the SDK reads neither)', secrets: [SECRET], env: 'PRODUCTION', sig: header(good, KEYS.current.kid, { alg: 'RSA', digest: 'SHA256' }), expect: 'valid', ...ok },
  { name: 'a pretty-printed body, signed over its JSON.stringify (the SDK verifies that)', secrets: [SECRET], env: 'PRODUCTION', body: PRETTY, sig: reserialized(PRETTY), expect: 'valid', ...ok },
  { name: 'escapes JSON.stringify writes otherwise (\\/, \\u00e9, \\u2028, a surrogate pair, DEL, controls), signed over its JSON.stringify', secrets: [SECRET], env: 'PRODUCTION', body: ESCAPES, sig: reserialized(ESCAPES), expect: 'valid', ...ok },
  { name: 'non-ASCII, / and U+2028 literal: JSON.stringify keeps them, so raw bytes and re-serialization agree', secrets: [SECRET], env: 'PRODUCTION', body: LITERALS, sig: header(sign(KEYS.current, LITERALS)), expect: 'valid', ...ok },
  { name: 'numbers JavaScript prints otherwise (1.0, 1e21, -0, 2^53+1, ...), signed over its JSON.stringify', secrets: [SECRET], env: 'PRODUCTION', body: NUMBERS, sig: reserialized(NUMBERS), expect: 'valid', ...ok },
  { name: 'array-index keys, which JSON.stringify of a parsed object writes first in ascending order, signed over its JSON.stringify', secrets: [SECRET], env: 'PRODUCTION', body: INDEX_KEYS, sig: reserialized(INDEX_KEYS), expect: 'valid', ...ok },
  { name: 'a pretty-printed body signed over its own bytes: the SDK refuses it (412), hookline verifies the raw bytes too', secrets: [SECRET], env: 'PRODUCTION', body: PRETTY, sig: header(sign(KEYS.current, PRETTY)), expect: 'valid', ...ok,
    deviation: 'hookline also accepts a signature over the raw bytes, which are then exactly what was signed' },
  { name: 'a duplicate key, signed over its JSON.stringify (the last one kept): the SDK accepts it, hookline refuses it', secrets: [SECRET], env: 'PRODUCTION', body: DUPLICATE, sig: reserialized(DUPLICATE), expect: 'invalid_signature',
    deviation: 'a body with a duplicate key is never verified over a re-serialization: what a handler reads (the first or the last?) would not be what was signed' },
  { name: 'a lone surrogate escape as JSON.stringify writes it (\\ud800): the raw bytes are what was signed', secrets: [SECRET], env: 'PRODUCTION', body: LONE, sig: reserialized(LONE), expect: 'valid', ...ok },
  { name: 'a lone surrogate escape JSON.stringify writes otherwise (\\uD800), signed over its JSON.stringify: the SDK accepts it, hookline refuses it', secrets: [SECRET], env: 'PRODUCTION', body: LONE_UPPER, sig: reserialized(LONE_UPPER), expect: 'invalid_signature',
    deviation: 'a lone surrogate is no Unicode text: hookline does not re-serialize a body holding one, so only a signature over its raw bytes verifies it' },
  { name: 'signed by another key under the same kid', secrets: [SECRET], env: 'PRODUCTION', sig: header(sign(KEYS.other, BODY)), expect: 'invalid_signature' },
  { name: 'signed by the current key, naming the other key\'s kid', secrets: [SECRET], env: 'PRODUCTION', sig: header(good, KEYS.other.kid), expect: 'invalid_signature' },
  { name: 'body changed after signing (the userId)', secrets: [SECRET], env: 'PRODUCTION', body: tampered, sig: header(good), expect: 'invalid_signature' },
  { name: 'signature over another body (a valid signature, wrong message)', secrets: [SECRET], env: 'PRODUCTION', sig: header(sign(KEYS.current, tampered)), expect: 'invalid_signature' },
  { name: 'signed with SHA-256 instead of SHA-1', secrets: [SECRET], env: 'PRODUCTION', sig: header(createSign('sha256').update(BODY).sign(KEYS.current.pem, 'base64')), expect: 'invalid_signature' },
  { name: 'X-EBAY-SIGNATURE not base64 JSON (the SDK answers 500)', secrets: [SECRET], env: 'PRODUCTION', sig: Buffer.from('not json').toString('base64'), expect: 'invalid_signature' },
  { name: 'no X-EBAY-SIGNATURE (the SDK answers 500)', secrets: [SECRET], env: 'PRODUCTION', sig: null, expect: 'missing_signature' },
];
// The SDK's verdict, as hookline's vocabulary says it.
const verdict = (status) => ({ 204: 'valid', 412: 'invalid_signature' }[status] ?? `status ${status}`);
const out = [];
for (const c of cases) {
  const body = c.body ?? BODY;
  const got = await sdk(c.env, { headers: headers(c.sig), body });
  let sdkSays = verdict(got.status);
  if (got.status === 500 && c.sig === null) sdkSays = 'missing_signature';
  if (got.status === 500 && c.sig !== null) sdkSays = 'invalid_signature';
  const hooklineDiffers = c.deviation !== undefined;
  if ((sdkSays === c.expect) === hooklineDiffers) {
    throw new Error(`${c.name}: the SDK answers ${got.status} (${sdkSays}), the case expects ${c.expect}${hooklineDiffers ? ' as a deviation' : ''}`);
  }
  // Every fetch the SDK made: the token (Basic client credentials, the
  // client-credentials grant and scope), then the key by kid with the token.
  for (const call of got.calls) {
    const host = call.host;
    const [id, secret, token] = creds[host];
    if (call.method === 'POST') {
      if (call.path !== '/identity/v1/oauth2/token' || call.authorization !== `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
        || call.body !== 'grant_type=client_credentials&scope=https%3A%2F%2Fapi.ebay.com%2Foauth%2Fapi_scope') throw new Error(`${c.name}: token call ${JSON.stringify(call)}`);
    } else if (!call.path.startsWith('/commerce/notification/v1/public_key/') || call.authorization !== `bearer ${token}`) {
      throw new Error(`${c.name}: key call ${JSON.stringify(call)}`);
    }
  }
  const { env, sig, body: _, deviation, ...rest } = c;
  out.push({ ...rest, sdk_status: got.status, ...(deviation ? { deviation } : {}), method: 'POST', url: HOOK_URL, headers: headers(sig), body, now: NOW,
    sdk_calls: got.calls.map(({ host, method, path }) => `${method} https://${host}${path}`) });
}

// JSON.stringify's output for the re-serialization's edge cases, for the unit
// tests of hookline's re-serializer.
const STRINGIFY = [NUMBERS, INDEX_KEYS, ESCAPES, LITERALS, PRETTY, '{"a":[],"b":{},"c":[{}],"d":"","e":null,"f":true,"g":false, "h" : [ 1 , -2.5e-10 ] }',
  '{"x":0.1,"y":0.2,"z":0.30000000000000004,"w":1e300,"v":123e-20,"u":1.0e+21,"t":999999999999999999999,"s":1e-6,"r":1.234e-6,"q":-1e-7}']
  .map((raw) => ({ raw, stringified: stringified(raw) }));

// The endpoint challenge: the SDK's validateEndpoint, behind the example's GET.
const CHALLENGE = 'a8628072-3d33-45ee-9004-bee86830a22d';
const challenge = await sdk('PRODUCTION', { method: 'GET', headers: [], query: `?challenge_code=${CHALLENGE}` });
const expectHash = createHash('sha256').update(CHALLENGE + VERIFICATION_TOKEN + HOOK_URL).digest('hex');
if (challenge.status !== 200 || JSON.parse(challenge.body).challengeResponse !== expectHash) throw new Error(`challenge: ${challenge.status} ${challenge.body}`);
const handshakes = [
  { name: 'GET ?challenge_code= answered with hex SHA-256(challengeCode + verificationToken + endpoint) (the SDK\'s validateEndpoint)', secrets: [SECRET], verify_token: VERIFICATION_TOKEN,
    request: { method: 'GET', url: `${HOOK_URL}?challenge_code=${CHALLENGE}`, headers: [], body: '' }, now: NOW,
    expect: { status: 200, content_type: 'application/json', body: challenge.body } },
  { name: 'no verify_token configured: refused', secrets: [SECRET],
    request: { method: 'GET', url: `${HOOK_URL}?challenge_code=${CHALLENGE}`, headers: [], body: '' }, now: NOW,
    expect: { status: 403, code: 'handshake_refused' } },
];

const SDK_URL = 'https://github.com/eBay/event-notification-nodejs-sdk';
const sdkVersion = require('event-notification-nodejs-sdk/package.json').version;
const oauthVersion = require('ebay-oauth-nodejs-client/package.json').version;
const file = {
  kind: 'ebay',
  source: { kind: 'sdk', package: 'event-notification-nodejs-sdk', registry: 'npm', version: sdkVersion,
    function: `EventNotificationSDK.process behind the SDK's example server (express.json()), its token call by ebay-oauth-nodejs-client ${oauthVersion} and its key call answered by a local HTTPS stand-in for api.ebay.com / api.sandbox.ebay.com; validateEndpoint for the challenge; signed with createSign('sha1') over committed P-256 test keys (node ${process.versions.node})`,
    url: SDK_URL },
  facts: {
    title: 'eBay',
    docs: 'https://developer.ebay.com/marketplace-account-deletion',
    scheme: 'X-EBAY-SIGNATURE: base64 of {"alg":"ecdsa","kid":<key ID>,"signature":<base64 DER ECDSA P-256 over SHA-1>,"digest":"SHA1"}; the SDK verifies over JSON.stringify of the parsed body; the key from GET https://api.ebay.com/commerce/notification/v1/public_key/{kid} (sandbox api.sandbox.ebay.com) with Authorization: bearer <application token>, answered as {"key":"-----BEGIN PUBLIC KEY-----<base64>-----END PUBLIC KEY-----","algorithm":"ECDSA","digest":"SHA1"}; the token from POST /identity/v1/oauth2/token with Basic <client ID:client secret>, grant_type=client_credentials, scope=https://api.ebay.com/oauth/api_scope',
    secret: 'CLIENT_ID:CLIENT_SECRET (the app\'s keyset: App ID and Cert ID), or "sandbox CLIENT_ID:CLIENT_SECRET" for a sandbox app; it authenticates the token call only',
    timestamp: null,
    event_id: { json_pointer: '/notification/notificationId' },
    event_type: { json_pointer: '/metadata/topic' },
    handshake: 'GET ?challenge_code= answered {"challengeResponse": hex SHA-256(challengeCode + verificationToken + endpoint)}',
  },
  certs: CERTS,
  // What each token URL answers to the client credentials above (the
  // local stand-in's answer): for tests that serve the token endpoint too.
  tokens: Object.fromEntries(Object.entries(creds).map(([host, [, , token]]) => [`https://${host}/identity/v1/oauth2/token`,
    JSON.stringify({ access_token: token, expires_in: EXPIRES_IN, token_type: 'Application Access Token' })])),
  client_credentials: Object.fromEntries(Object.entries(creds).map(([host, [id, secret]]) => [host, `${id}:${secret}`])),
  cases: out,
  handshakes,
  stringify: STRINGIFY,
};
writeFileSync(here('vectors.json'), JSON.stringify(file, null, 2) + '\n');
log(`wrote ${out.length} cases, ${handshakes.length} handshakes, ${STRINGIFY.length} stringify pairs; SDK calls: ${calls.length}`);
server.close(); ebay.close();
process.exit(0);
