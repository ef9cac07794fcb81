// Known-answer vectors for Checkr webhooks, from Checkr's own examples,
// github.com/checkr/webhook-verification-examples (commit eea406d,
// verify_signature.js): its `verifySignature` is copied below unchanged and
// decides every case, after reproducing the repository's own worked example
// (secret "test-secret", payload {"monday":"75F","tuesday":"80F"}, signature
// b7412f05…). No Checkr SDK verifies webhooks.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// --- verify_signature.js, verbatim ---
const crypto = require('crypto')

const verifySignature = (secret, compactJsonPayload, signature) => {
  const hmac = crypto.createHmac('sha256', secret);
  const computedHash = hmac.update(compactJsonPayload).digest('hex')

  return crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(computedHash))
}

const payload = {
  monday: '75F',
  tuesday: '80F'
}
// Warning! JSON must be compact. Pretty JSON with spaces will not work.
const compactJsonPayload = JSON.stringify(payload)

const payloadSignature = 'b7412f05e981a473b5ecbdb5393afaea02a679db6d7c8e56803512ec4ba98151'

const secret = 'test-secret'
// --- end of the verbatim part (its console.log becomes this check) ---
if (!verifySignature(secret, compactJsonPayload, payloadSignature)) throw new Error('the worked example does not verify');

// timingSafeEqual throws on a length mismatch: a signature that is not a hex
// SHA-256 is a refusal, as any receiver treats that exception.
const accepts = (s, body, sig) => { try { return verifySignature(s, body, sig); } catch { return false; } };

const REPO = 'https://github.com/checkr/webhook-verification-examples';
const DOCS = 'https://docs.checkr.com/apis/webhooks';
const API_KEY = 'test-secret';
const OTHER = '83ebeabdec09f6670863766f792ead24d61fe3f9';
const HOOK_URL = 'https://hooks.example.com/webhooks/checkr';
const NOW = 1700000000;
const ID = '1002d6bca6acdfcbb8442178';
const TYPE = 'report.completed';
// The docs' payload structure (id, object, type, created_at, webhook_url, data.object).
const BODY = JSON.stringify({
  id: ID, object: 'event', type: TYPE, created_at: '2023-11-14T22:13:20Z',
  webhook_url: HOOK_URL,
  data: { object: { id: 'a13f4827d8711ddc75abc56c', object: 'report', uri: '/v1/reports/a13f4827d8711ddc75abc56c', status: 'complete', result: 'clear' } },
});
const TAMPERED = BODY.replace('"clear"', '"clean"');
const sign = (key, body = BODY) => crypto.createHmac('sha256', key).update(body).digest('hex');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['User-Agent', 'Checkr-Webhook/1.0'], ['Content-Type', 'application/json'], ...(sig === null ? [] : [['X-Checkr-Signature', sig]])],
  body, now: NOW,
});
const ok = { event_id: ID, event_type: TYPE };
const sig = sign(API_KEY);
const cases = [
  { name: 'report.completed, accepted by the examples\' verifySignature', secrets: [API_KEY], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, API_KEY], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [API_KEY], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another key', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'X-Checkr-Signature removed', secrets: [API_KEY], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'X-Checkr-Signature')?.[1];
  const got = h === undefined ? 'missing_signature' : c.secrets.some((s) => accepts(s, c.body, h)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the example says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'checkr',
  source: { kind: 'docs-code', package: '', registry: '', version: 'eea406d991bec43d6b77932d68f1825d444cc03e', function: 'verify_signature.js verifySignature (and its worked example)', url: REPO },
  facts: {
    title: 'Checkr',
    docs: DOCS,
    scheme: 'X-Checkr-Signature = hex HMAC-SHA256(API key, compact JSON body)',
    secret: 'the account\'s secret API key that created the webhook\'s objects',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event object\'s id (payload structure on ' + DOCS + ')',
    event_type: { json_pointer: '/type' },
    retry_horizon: null,
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
