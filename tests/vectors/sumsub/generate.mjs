// Known-answer vectors for Sumsub webhooks, from Sumsub's own receiver example,
// github.com/SumSubstance/agent-skills (commit 6e09e75,
// skills/sumsub-integrate-websdk/examples/webhook-verify.js): its ALG_MAP and
// verifySumsubWebhook are copied below unchanged (the secret read from a variable
// instead of the environment) and decide every case. Sumsub publishes no SDK that
// verifies webhooks.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

let SUMSUB_WEBHOOK_SECRET;
// --- webhook-verify.js, verbatim ---
const ALG_MAP = {
  HMAC_SHA1_HEX:   'sha1',
  HMAC_SHA256_HEX: 'sha256',
  HMAC_SHA512_HEX: 'sha512',
};

function verifySumsubWebhook(rawBody, headers) {
  const algName = headers['x-payload-digest-alg'] || 'HMAC_SHA256_HEX';
  const alg = ALG_MAP[algName];
  if (!alg) return { ok: false, reason: `unknown algorithm: ${algName}` };

  const expectedHex = headers['x-payload-digest'];
  if (!expectedHex) return { ok: false, reason: 'missing x-payload-digest header' };

  const actualHex = crypto.createHmac(alg, SUMSUB_WEBHOOK_SECRET).update(rawBody).digest('hex');

  const actualBuf   = Buffer.from(actualHex,   'hex');
  const expectedBuf = Buffer.from(expectedHex, 'hex');
  if (actualBuf.length !== expectedBuf.length) return { ok: false, reason: 'length mismatch' };
  if (!crypto.timingSafeEqual(actualBuf, expectedBuf)) return { ok: false, reason: 'digest mismatch' };

  return { ok: true };
}
// --- end ---

const EXAMPLE = 'https://github.com/SumSubstance/agent-skills/blob/main/skills/sumsub-integrate-websdk/examples/webhook-verify.js';
const DOCS = 'https://docs.sumsub.com/docs/verify-webhook-payload-signatures';
const SECRET = 'sumsub-webhook-secret-3c5e7a9b1d2f';
const OTHER = 'sumsub-webhook-secret-f1e2d3c4b5a6';
const HOOK_URL = 'https://hooks.example.com/webhooks/sumsub';
const NOW = 1700000000;
const APPLICANT = '5cb56e8e0a975a35f333cb83';
const TYPE = 'applicantReviewed';
const CREATED_MS = '2023-11-14 22:13:15.123';
// The fields the example reads and dedupes by: applicantId, type, createdAtMs.
const BODY = JSON.stringify({
  applicantId: APPLICANT, inspectionId: '5cb56e8e0a975a35f333cb84', correlationId: 'req-a260b669-4f14-4bb5-a4c5-ac0218acb9a4',
  externalUserId: 'externalUserId', levelName: 'basic-kyc-level', type: TYPE, reviewStatus: 'completed',
  reviewResult: { reviewAnswer: 'GREEN' }, createdAtMs: CREATED_MS, sandboxMode: false,
});
const TAMPERED = BODY.replace('"GREEN"', '"GREEM"');
const ALGS = { HMAC_SHA1_HEX: 'sha1', HMAC_SHA256_HEX: 'sha256', HMAC_SHA512_HEX: 'sha512' };
const sign = (secret, alg, body = BODY) => crypto.createHmac(ALGS[alg], secret).update(body).digest('hex');
const req = (digest, alg, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'],
    ...(alg === null ? [] : [['X-Payload-Digest-Alg', alg]]),
    ...(digest === null ? [] : [['X-Payload-Digest', digest]])],
  body, now: NOW,
});
const ok = { event_id: `${APPLICANT}:${TYPE}:${CREATED_MS}`, event_type: TYPE };
const s256 = sign(SECRET, 'HMAC_SHA256_HEX');
const cases = [
  { name: 'applicantReviewed, HMAC_SHA256_HEX, accepted by verifySumsubWebhook', secrets: [SECRET], ...req(s256, 'HMAC_SHA256_HEX'), expect: 'valid', ...ok },
  { name: 'HMAC_SHA512_HEX: the header picks the hash', secrets: [SECRET], ...req(sign(SECRET, 'HMAC_SHA512_HEX'), 'HMAC_SHA512_HEX'), expect: 'valid', ...ok },
  { name: 'HMAC_SHA1_HEX: the header picks the hash', secrets: [SECRET], ...req(sign(SECRET, 'HMAC_SHA1_HEX'), 'HMAC_SHA1_HEX'), expect: 'valid', ...ok },
  { name: 'no X-Payload-Digest-Alg: SHA-256, as the example defaults', secrets: [SECRET], ...req(s256, null), expect: 'valid', ...ok },
  { name: 'a SHA-256 digest under HMAC_SHA512_HEX', secrets: [SECRET], ...req(s256, 'HMAC_SHA512_HEX'), expect: 'invalid_signature' },
  { name: 'an algorithm the example does not know', secrets: [SECRET], ...req(s256, 'HMAC_MD5_HEX'), expect: 'invalid_signature' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(s256, 'HMAC_SHA256_HEX'), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(s256, 'HMAC_SHA256_HEX', TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(s256, 'HMAC_SHA256_HEX'), expect: 'invalid_signature' },
  { name: 'X-Payload-Digest removed', secrets: [SECRET], ...req(null, 'HMAC_SHA256_HEX'), expect: 'missing_signature' },
];
for (const c of cases) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let got;
  if (headers['x-payload-digest'] === undefined) got = 'missing_signature';
  else got = c.secrets.some((s) => { SUMSUB_WEBHOOK_SECRET = s; return verifySumsubWebhook(Buffer.from(c.body), headers).ok; }) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the example says ${got}, the case says ${c.expect}`);
}
const out = {
  kind: 'sumsub',
  source: { kind: 'docs-code', package: '', registry: '', version: '6e09e752287da8ae2257fed615defc0428ff2f40', function: 'verifySumsubWebhook (skills/sumsub-integrate-websdk/examples/webhook-verify.js)', url: EXAMPLE },
  facts: {
    title: 'Sumsub',
    docs: DOCS,
    scheme: 'X-Payload-Digest = hex HMAC(secret, raw body), the hash named by X-Payload-Digest-Alg (HMAC_SHA1_HEX, HMAC_SHA256_HEX, HMAC_SHA512_HEX; SHA-256 without it)',
    secret: 'the webhook\'s secret key, set when the webhook is created in the dashboard',
    timestamp: null,
    event_id: { json_pointers: ['/applicantId', '/type', '/createdAtMs'], join: ':' },
    event_id_note: 'no event ID is sent; Sumsub\'s example dedupes by applicantId + type + createdAtMs',
    event_type: { json_pointer: '/type' },
    retry_horizon: null,
    retry_source: EXAMPLE,
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
