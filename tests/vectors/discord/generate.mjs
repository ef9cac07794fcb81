// Known-answer vectors for Discord (webhook events and the interactions
// endpoint), checked by Discord's own discord-interactions package: verifyKey
// decides every case, and its two Express middlewares (verifyKeyMiddleware,
// verifyWebhookEventMiddleware) give the exact answers to the PING handshakes.
// The package only verifies, so requests are signed here with a seeded
// Ed25519 test key (Ed25519 is deterministic: the file is the same each run).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { verifyKey, verifyKeyMiddleware, verifyWebhookEventMiddleware } from 'discord-interactions';
import { withIdentity } from '../identity.mjs';

// A test key pair from a fixed seed; the public key is what the Developer
// Portal shows as "Public Key" (64 hex characters).
function keyFromSeed(seedHex) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const privateKey = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const publicHex = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url').toString('hex');
  return { privateKey, publicHex };
}
const KEY = keyFromSeed('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const OTHER = keyFromSeed('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/discord';
const SIG_HEADER = 'X-Signature-Ed25519';
const TS_HEADER = 'X-Signature-Timestamp';
// The documented ENTITLEMENT_CREATE example, verbatim but for whitespace:
// https://discord.com/developers/docs/events/webhook-events#entitlement-create
const BODY = JSON.stringify({
  version: 1,
  application_id: '1234560123453231555',
  type: 1,
  event: {
    type: 'ENTITLEMENT_CREATE',
    timestamp: '2024-10-18T18:41:21.109604',
    data: {
      application_id: '1234560123453231555', consumed: false, deleted: false, gift_code_flags: 0,
      id: '1234505980407808808', promotion_id: null, sku_id: '123489045643835123', type: 4,
      user_id: '111178765189277770',
    },
  },
});
const EVENT_TYPE = 'ENTITLEMENT_CREATE';

const sign = (key, ts, b) => crypto.sign(null, Buffer.from(`${ts}${b}`), key.privateKey).toString('hex');
function request({ at = NOW - 2, key = KEY, b = BODY, signed = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [TS_HEADER, String(at)]];
  if (!drop) headers.push([SIG_HEADER, sign(key, at, signed)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const cases = [
  { name: 'valid Ed25519 signature', secrets: [KEY.publicHex], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [KEY.publicHex], ...request({ b: BODY.replace('"consumed":false', '"consumed":fals ') }), expect: 'invalid_signature' },
  { name: 'verified with another public key', secrets: [OTHER.publicHex], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [KEY.publicHex], ...request({ drop: true }), expect: 'missing_signature' },
  // verifyKey does not look at the clock; hookline does (NOTES.md).
  { name: 'timestamp 10 min + 1 s old (past Discord\'s retries)', secrets: [KEY.publicHex], ...request({ at: NOW - 601 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 10 min + 1 s in the future', secrets: [KEY.publicHex], ...request({ at: NOW + 601 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new public key', secrets: [OTHER.publicHex, KEY.publicHex], ...request(), expect: 'valid' },
  { name: 'signature made with the key of another application', secrets: [KEY.publicHex], ...request({ key: OTHER }), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
// The package's verdict: a missing header is the middleware's 401 before
// verifyKey runs; otherwise any of the tenant's keys may accept.
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined || header(c, TS_HEADER) === undefined) return 'missing_signature';
  for (const key of c.secrets) {
    if (await verifyKey(Buffer.from(c.body), header(c, SIG_HEADER), header(c, TS_HEADER), key)) return 'valid';
  }
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: discord-interactions says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

// Runs one of the package's middlewares on a request and records its answer.
async function answer(middleware, req) {
  return new Promise((resolve) => {
    const res = { statusCode: 200, headers: {}, setHeader(k, v) { this.headers[k.toLowerCase()] = v; } };
    res.end = (body = '') => resolve({
      status: res.statusCode, content_type: res.headers['content-type'] ?? null, body: String(body), headers: [],
    });
    const fake = { header: (name) => header(req, name), body: Buffer.from(req.body) };
    middleware(fake, res, () => resolve({ status: 'passed to the app', content_type: null, body: '', headers: [] }));
  });
}
const INTERACTION_PING = JSON.stringify({ id: '1178011536286478397', application_id: '1234560123453231555', type: 1, token: 'aW50ZXJhY3Rpb246MTE3ODAxMTUzNjI4NjQ3ODM5Nw', version: 1 });
const EVENTS_PING = JSON.stringify({ version: 1, application_id: '1234560123453231555', type: 0 });
const ping = (b, key = KEY) => {
  const { at, ...r } = request({ b, signed: b, key });
  return r;
};
const handshakes = [
  { name: 'interactions endpoint PING (type 1), answered PONG', middleware: verifyKeyMiddleware, request: ping(INTERACTION_PING) },
  { name: 'webhook events PING (type 0), answered 204 with no body', middleware: verifyWebhookEventMiddleware, request: ping(EVENTS_PING) },
  { name: 'webhook events PING signed with another key, refused', middleware: verifyWebhookEventMiddleware, request: ping(EVENTS_PING, OTHER) },
];
for (const [i, h] of handshakes.entries()) {
  const expect = await answer(h.middleware(KEY.publicHex), h.request);
  handshakes[i] = { name: h.name, secrets: [KEY.publicHex], verify_token: null, request: h.request, now: NOW, expect };
}
if (handshakes[0].expect.body !== '{"type":1}' || handshakes[1].expect.status !== 204 || handshakes[2].expect.status !== 401) {
  throw new Error(`unexpected handshake answers: ${JSON.stringify(handshakes.map((h) => h.expect))}`);
}
// The middleware's refusal body is its own wording; the status is the contract.
handshakes[2].expect.body = null;
handshakes[2].expect.content_type = null;

const DOCS = 'https://discord.com/developers/docs/events/webhook-events';
const SECURITY = 'https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers';
const out = {
  kind: 'discord',
  source: {
    kind: 'sdk', package: 'discord-interactions', registry: 'npm', version: '4.4.0',
    function: 'verifyKey (cases); verifyKeyMiddleware and verifyWebhookEventMiddleware (handshakes)',
    url: SECURITY,
  },
  facts: {
    title: 'Discord',
    docs: DOCS,
    scheme: 'X-Signature-Ed25519 = hex Ed25519 signature, by the application\'s key, of X-Signature-Timestamp + raw body: ' + SECURITY,
    secret: 'the application\'s "Public Key" from the Developer Portal\'s General Information page: 32 bytes as 64 hex characters',
    timestamp: 'X-Signature-Timestamp, unix seconds, signed (prepended to the body); Discord documents no tolerance and verifyKey checks none; the tolerance is its retry horizon (10 minutes), since the event ID is the signed body\'s digest and its dedup key lasts as long',
    event_id: { body_sha256: true },
    event_id_note: 'webhook events carry no event or delivery ID (payload: version, application_id, type, event{type,timestamp,data}): ' + DOCS + '#payload-structure',
    event_type: { json_pointer: '/event/type' },
    retry_horizon: 'retried several times with exponential backoff for up to 10 minutes',
    retry_source: DOCS + '#responding-to-events',
    handshake: 'webhook events URL: signed POST {"type":0} answered 204 with an empty body (' + DOCS + '#setting-up-an-endpoint); interactions endpoint URL: signed POST {"type":1} answered {"type":1} as application/json (https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-acknowledging-ping-requests); both only after the signature check, and Discord also sends deliberately bad signatures that must get 401',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`discord: ${cases.length} cases, ${handshakes.length} handshakes`);
