// Known-answer vectors for Cloudinary notification signatures, signed by the official
// SDK's utils.webhook_signature and checked by utils.verifyNotificationSignature (cloudinary).
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { v2 as cloudinary } from 'cloudinary';

const NOW = 1700000000;
const SECRET = 'a676b67565c6767a6767d6767f676fe1';
const OTHER = 'Xq7Lm2Np9Rs4Tu6Vw8Yz1Ab3Cd5Ef7Gh';
const HOOK_URL = 'https://hooks.example.com/webhooks/cloudinary/acme';
// An upload notification as Cloudinary posts it to notification_url.
const BODY = JSON.stringify({
  notification_type: 'upload', timestamp: '2023-11-14T22:13:15+00:00', request_id: '799b5d1c07e0c4ae4ccae0e4e5bd1b33',
  asset_id: '3515c6000a548515f1134043f9785c2f', public_id: 'gotjephlnz2jgiu20zni', version: 1700000000,
  width: 1920, height: 1080, format: 'jpg', resource_type: 'image', bytes: 352653,
  secure_url: 'https://res.cloudinary.com/demo/image/upload/v1700000000/gotjephlnz2jgiu20zni.jpg',
});
const TAMPERED = BODY.replace('352653', '352654');

const sign = (secret, body, ts, alg) => cloudinary.utils.webhook_signature(body, ts, { api_secret: secret, signature_algorithm: alg });
const headersFor = (secret, body, ts, alg) => [['Content-Type', 'application/json'], ['X-Cld-Timestamp', String(ts)], ['X-Cld-Signature', sign(secret, body, ts, alg)]];
const SIG_HEADERS = ['x-cld-signature'];

function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (!h['x-cld-signature']) return 'missing_signature';
  const realNow = Date.now;
  try {
    const verify = (s, at) => {
      Date.now = () => at * 1000; // verifyNotificationSignature reads the clock itself
      cloudinary.config({ api_secret: s, signature_algorithm: c.alg });
      // valid_for left to its default (7200 s): the definition's tolerance is the SDK's.
      return cloudinary.utils.verifyNotificationSignature(c.body, Number(h['x-cld-timestamp']), h['x-cld-signature']);
    };
    if (c.secrets.some((s) => verify(s, c.now))) return 'valid';
    // false covers both a stale timestamp and a bad signature: ask again at the send time.
    if (c.secrets.some((s) => verify(s, Number(h['x-cld-timestamp'])))) return 'timestamp_out_of_tolerance';
    return 'invalid_signature';
  } finally {
    Date.now = realNow;
  }
}

const req = (secret, ts, body = BODY, alg = 'sha1') => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body, ts, alg), body, now: NOW, alg });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW - 5;
const ok = { event_type: 'upload', event_id: crypto.createHash('sha256').update(BODY).digest('hex') };
const cases = [
  { name: 'an upload notification signed by utils.webhook_signature (SHA-1)', secrets: [SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured API secret verifies', secrets: [OTHER, SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another API secret', secrets: [OTHER], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'X-Cld-Signature removed', secrets: [SECRET], ...strip(req(SECRET, ts)), expect: 'missing_signature' },
  { name: 'an account set to SHA-256: signed with signature_algorithm sha256', secrets: [SECRET], ...req(SECRET, ts, BODY, 'sha256'), expect: 'valid', ...ok },
  { name: 'SHA-256, verified with another API secret', secrets: [OTHER], ...req(SECRET, ts, BODY, 'sha256'), expect: 'invalid_signature' },
  { name: 'SHA-256, one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts, BODY, 'sha256'), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'X-Cld-Timestamp 7190 seconds old: inside the SDK default valid_for', secrets: [SECRET], ...req(SECRET, NOW - 7190), expect: 'valid', ...ok },
  { name: 'X-Cld-Timestamp 7201 seconds old', secrets: [SECRET], ...req(SECRET, NOW - 7201), expect: 'timestamp_out_of_tolerance' },
  { name: 'X-Cld-Timestamp 7201 seconds in the future', secrets: [SECRET], ...req(SECRET, NOW + 7201), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  // verifyNotificationSignature checks only staleness; for the future case it must accept the signature.
  const want = c.sdk ?? c.expect;
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case expects ${want}`);
  delete c.sdk;
  delete c.alg;
}

const out = {
  kind: 'cloudinary',
  source: { kind: 'sdk', package: 'cloudinary', registry: 'npm', version: '2.11.0',
    function: 'utils.webhook_signature / utils.verifyNotificationSignature', url: 'https://cloudinary.com/documentation/notification_signatures' },
  facts: {
    title: 'Cloudinary',
    docs: 'https://cloudinary.com/documentation/notification_signatures',
    scheme: 'X-Cld-Signature = hex(SHA-1(raw body + X-Cld-Timestamp + API secret)); a plain hash with the secret appended, not an HMAC (hex SHA-256 instead when the account is set to it; the digest length tells which)',
    secret: "the product environment's API secret (Console > Settings > API Keys)",
    timestamp: 'X-Cld-Timestamp, unix seconds, signed; the SDK rejects it when older than valid_for (default 7200 s) and does not check the future',
    event_id: { body_sha256: true },
    event_id_note: 'notifications carry no delivery ID that the docs promise to keep across retries; an identical resend has an identical body',
    event_type: { json_pointer: '/notification_type' },
    retry_horizon: 'the pages consulted give no retry schedule; keep the default window',
    retry_source: 'https://cloudinary.com/documentation/notifications',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
