// Known-answer vectors for Upstash QStash, checked by the official
// @upstash/qstash Receiver#verify. QStash signs with an HS256 JWT; the SDK only
// verifies, so each token is built here with `jose` (the SDK's own JWT
// dependency, pinned by its lock file) and the SDK decides every verdict.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { Receiver } from '@upstash/qstash';
import { withIdentity } from '../identity.mjs';

const CURRENT = 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r';
const NEXT = 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs';
const OTHER = 'sig_3nA8PdnhsZB6DVzB1wjE8S6rZ7ee';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/upstash-qstash';
const SIG_HEADER = 'Upstash-Signature';
const EVENT_ID = 'msg_26hZCxZCuWyyTWPmSVBrNC1RADwpgWxPcak2rQD51EMjFMuzcW7qYXpPiZdrz1N';
// QStash forwards the publisher's body unchanged: any bytes the publisher chose.
const BODY = JSON.stringify({ orderId: 'ord_1042', action: 'send-receipt' });

const b64url = (buf) => buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const bodyHash = (b) => b64url(crypto.createHash('sha256').update(b).digest());
// The claims QStash documents: https://upstash.com/docs/qstash/howto/signature
async function token({ key = CURRENT, iat = NOW - 5, sub = URL, b = BODY } = {}) {
  return new SignJWT({ body: bodyHash(b) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('Upstash').setSubject(sub).setIssuedAt(iat).setNotBefore(iat).setExpirationTime(iat + 300)
    .setJti('jwt_' + crypto.createHash('sha256').update(`${key}${iat}${sub}`).digest('hex').slice(0, 20))
    .sign(new TextEncoder().encode(key));
}
async function request({ b = BODY, drop = false, ...t } = {}) {
  const headers = [['Content-Type', 'application/json'], ['Upstash-Message-Id', EVENT_ID], ['Upstash-Retried', '0']];
  if (!drop) headers.push([SIG_HEADER, await token(t)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"ord_1042"', '"ord_1043"');
const cases = [
  { name: 'valid JWT signed with the current signing key', secrets: [CURRENT, NEXT], ...(await request()), expect: 'valid' },
  { name: 'one body byte changed (body claim no longer matches)', secrets: [CURRENT, NEXT], ...(await request({ b: flip(BODY) })), expect: 'invalid_signature' },
  { name: 'verified with other signing keys', secrets: [OTHER, OTHER], ...(await request()), expect: 'invalid_signature' },
  { name: 'Upstash-Signature removed', secrets: [CURRENT, NEXT], ...(await request({ drop: true })), expect: 'missing_signature' },
  { name: 'JWT expired (issued 301 s ago, exp = iat + 300)', secrets: [CURRENT, NEXT], ...(await request({ iat: NOW - 301 })), expect: 'timestamp_out_of_tolerance' },
  { name: 'JWT not yet valid (nbf 301 s in the future)', secrets: [CURRENT, NEXT], ...(await request({ iat: NOW + 301 })), expect: 'timestamp_out_of_tolerance' },
  { name: 'signed with the next signing key after a rotation', secrets: [CURRENT, NEXT], ...(await request({ key: NEXT })), expect: 'valid' },
  { name: 'JWT subject is another URL', secrets: [CURRENT, NEXT], ...(await request({ sub: 'https://hooks.example.com/webhooks/other' })), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, tolerance: 0, ...(c.expect === 'valid' ? { event_id: EVENT_ID } : {}) }));

// The SDK's verdict with the clock at c.now: Receiver with each of the tenant's
// signing keys, checking the URL the message was sent to.
async function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k === SIG_HEADER)?.[1];
  if (sig === undefined) return 'missing_signature'; // the caller's check: verify takes the header's value
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [c.now * 1000])); }
    static now() { return c.now * 1000; }
  };
  try {
    // One key at a time (as current and next), so the error names that key's reason.
    const reasons = [];
    for (const key of c.secrets) {
      try {
        await new Receiver({ currentSigningKey: key, nextSigningKey: key, devMode: false }).verify({ signature: sig, body: c.body, url: c.url });
        return 'valid';
      } catch (e) {
        if (e.name !== 'SignatureError') throw e;
        reasons.push(/"exp" claim|"nbf" claim/.test(e.message) ? 'timestamp_out_of_tolerance' : 'invalid_signature');
      }
    }
    return reasons.includes('timestamp_out_of_tolerance') ? 'timestamp_out_of_tolerance' : 'invalid_signature';
  } finally {
    globalThis.Date = RealDate;
  }
}
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'upstash-qstash',
  source: {
    kind: 'sdk', package: '@upstash/qstash', registry: 'npm', version: '2.12.0',
    function: 'Receiver#verify',
    url: 'https://upstash.com/docs/qstash/howto/signature',
  },
  facts: {
    title: 'Upstash QStash',
    docs: 'https://upstash.com/docs/qstash/howto/signature',
    scheme: 'Upstash-Signature = HS256 JWT keyed with the signing key (UTF-8), claims iss "Upstash", sub = destination URL, iat/nbf/exp, jti, body = base64url(SHA-256(raw body)) (padding ignored); accept the current or the next signing key',
    secret: 'the two signing keys from the QStash console, current first, then next ("sig_...")',
    timestamp: 'the JWT nbf and exp claims (unix seconds), checked with no extra clock tolerance by the SDK',
    event_id: { header: 'Upstash-Message-Id' },
    event_id_note: 'Upstash-Message-Id is the message ID, kept on every retry (Upstash-Retried counts them): https://upstash.com/docs/qstash/howto/receiving',
    event_type: null,
    retry_horizon: 'configurable per message (Upstash-Retries); delay min(1 day, e^(2.5 n)) seconds between attempts',
    retry_source: 'https://upstash.com/docs/qstash/features/retry',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`upstash-qstash: ${cases.length} cases`);
