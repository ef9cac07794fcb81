// Known-answer vectors for FusionAuth signed webhooks, checked by FusionAuth's
// own example listener, github.com/FusionAuth/fusionauth-example-javascript-webhooks
// (signature-verify/app.js, jose ^4): its check is copied below with the
// remote JWKS replaced by the tenant's key, and decides every verdict. The
// JWT is signed here with jose's SignJWT (HS256 is deterministic).
// FusionAuth's client libraries have no webhook verifier.
import fs from 'node:fs';
import crypto from 'node:crypto';
import * as jose from 'jose';

const SECRET = 'fa-hmac-webhook-signing-key-0123456789abcdef';   // an HMAC key from Key Master
const OTHER = 'fa-hmac-webhook-signing-key-fedcba9876543210';
const KID = 'd4b9a2f1-5c3e-4e8b-9f0a-1b2c3d4e5f60';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/fusionauth';
const SIG_HEADER = 'X-FusionAuth-Signature-JWT';
// The documented user.create event: https://fusionauth.io/docs/extend/events-and-webhooks/events/user-create
const EVENT_ID = 'e502168a-b469-45d9-a079-fd45f83e0406';
const BODY = JSON.stringify({
  event: {
    applicationId: '10000000-0000-0002-0000-000000000001', createInstant: 1699999998123, id: EVENT_ID,
    info: { ipAddress: '192.0.2.10', userAgent: 'Mozilla/5.0' }, tenantId: '31626538-3731-3762-3664-303931343339', type: 'user.create',
    user: { active: true, email: 'jane@example.com', id: '00000000-0000-0001-0000-000000000001', insertInstant: 1699999998120, tenantId: '31626538-3731-3762-3664-303931343339', username: 'jane', verified: true },
  },
});

const key = (s) => new TextEncoder().encode(s);
const bodyHash = (b) => crypto.createHash('sha256').update(b).digest('base64');
async function jwt(secret, claim = bodyHash(BODY)) {
  return new jose.SignJWT({ request_body_sha256: claim }).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: KID }).sign(key(secret));
}
async function request({ secret = SECRET, b = BODY, drop = false, claim } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, await jwt(secret, claim)]);
  return { method: 'POST', url: URL, headers, body: b };
}

// --- FusionAuth's example (signature-verify/app.js), its check; a key for the remote JWKS ---
async function exampleAccepts(signatureJwt, hashPayload, verificationKey) {
  const jwt = Buffer.from(signatureJwt || '', 'utf8');
  try {
    const { payload, protectedHeader } = await jose.jwtVerify(jwt, verificationKey);
    const body_sha256 = crypto.createHash('sha256').update(hashPayload).digest('base64');
    if (payload.request_body_sha256 === body_sha256) {
      return true;
    } else {
      return false;
    }
  } catch (err) {
    return false;
  }
}
// ------------------------------------------------------------------------------------------

const cases = [
  { name: 'valid HS256 JWT whose request_body_sha256 matches', secrets: [SECRET], ...(await request()), expect: 'valid' },
  { name: 'one body byte changed (request_body_sha256 no longer matches)', secrets: [SECRET], ...(await request({ b: BODY.replace('jane@', 'jame@') })), expect: 'invalid_signature' },
  { name: 'verified with another HMAC key', secrets: [OTHER], ...(await request()), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...(await request({ drop: true })), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new key', secrets: [OTHER, SECRET], ...(await request()), expect: 'valid' },
  { name: 'JWT validly signed but for another body', secrets: [SECRET], ...(await request({ claim: bodyHash('{"event":{}}') })), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: 'user.create' } : {}) }));

// An unsigned ("alg":"none") token must never pass: jose refuses it.
{
  const unsigned = new jose.UnsecuredJWT({ request_body_sha256: bodyHash(BODY) }).encode();
  cases.push({ name: 'unsigned JWT (alg none) with the right body hash', secrets: [SECRET], method: 'POST', url: URL,
    headers: [['Content-Type', 'application/json'], [SIG_HEADER, unsigned]], body: BODY, now: NOW, expect: 'invalid_signature' });
}

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  const sig = header(c, SIG_HEADER);
  let got = 'missing_signature';
  if (sig !== undefined) {
    got = 'invalid_signature';
    for (const s of c.secrets) if (await exampleAccepts(sig, Buffer.from(c.body), key(s))) got = 'valid';
  }
  if (got !== c.expect) throw new Error(`${c.name}: FusionAuth's example says ${got}, the case says ${c.expect}`);
}

const DOCS = 'https://fusionauth.io/docs/extend/events-and-webhooks/signing';
const out = {
  kind: 'fusionauth',
  source: {
    kind: 'docs-code', package: 'jose', registry: 'npm', version: '4.15.9',
    function: "FusionAuth/fusionauth-example-javascript-webhooks signature-verify/app.js (FusionAuth's example), its jose.jwtVerify + request_body_sha256 check run with the tenant's key",
    url: DOCS,
  },
  facts: {
    title: 'FusionAuth',
    docs: DOCS,
    scheme: 'X-FusionAuth-Signature-JWT: a JWT signed with the webhook\'s signing key (HMAC HS256/384/512, or RSA/EC with the public key in FusionAuth\'s JWKS), whose request_body_sha256 claim is base64 SHA-256 of the raw body',
    secret: 'for HMAC keys: the key\'s secret from Settings > Key Master, used as UTF-8 bytes (asymmetric keys: NOTES.md)',
    timestamp: null,
    event_id: { json_pointer: '/event/id' },
    event_id_note: 'every event has a unique id: https://fusionauth.io/docs/extend/events-and-webhooks/events/',
    event_type: { json_pointer: '/event/type' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: 'https://fusionauth.io/docs/extend/events-and-webhooks/',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`fusionauth: ${cases.length} cases`);
