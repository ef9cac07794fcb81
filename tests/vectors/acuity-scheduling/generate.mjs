// Known-answer vectors for Acuity Scheduling webhooks. Every verdict is the
// official acuityscheduling package's verifyMessageSignature(secret, body,
// signature) (it throws "This message was forged!" on a mismatch), the check its
// bodyParserVerify middleware runs on X-Acuity-Signature. The package has no
// signer; the header is computed as verifyMessageSignature computes its
// expectation (base64 HMAC-SHA256 keyed with the API key), and each case is kept
// only because the package agrees with it.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import acuity from 'acuityscheduling';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'b8c4f2e9d1a7356c0e4b9f8a2d6c1e73';
const OTHER = '3f9e1c7a5b2d8e4f6a0c9b1d7e3f5a2c';
const HOOK_URL = 'https://hooks.example.com/webhooks/acuity-scheduling/acme';
const SIG_HEADER = 'X-Acuity-Signature';
// The webhook's form fields (action, id, calendarID, appointmentTypeID), form-encoded as the
// package's webhook example reads them (express.urlencoded).
const BODY = 'action=scheduled&id=1234567&calendarID=987&appointmentTypeID=42';
const TAMPERED = BODY.replace('id=1234567', 'id=1234568');

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('base64');
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
function sdkVerdict(c) {
  const signature = header(c, SIG_HEADER);
  if (signature === undefined) return 'missing_signature';
  for (const s of c.secrets) {
    try {
      acuity.verifyMessageSignature(s, c.body, signature);
      return 'valid';
    } catch (e) {
      if (!/forged/.test(e.message)) throw e;
    }
  }
  return 'invalid_signature';
}
function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/x-www-form-urlencoded']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'a scheduled appointment accepted by verifyMessageSignature', secrets: [SECRET], ...request(), expect: 'valid', event_type: 'scheduled' },
  { name: 'rotation: the second configured API key verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another API key', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'acuity-scheduling',
  source: { kind: 'sdk', package: 'acuityscheduling', registry: 'npm', version: '0.1.9',
    function: 'verifyMessageSignature(secret, body, signature) (src/index.js)',
    url: 'https://developers.acuityscheduling.com/docs/webhooks' },
  facts: {
    title: 'Acuity Scheduling',
    docs: 'https://developers.acuityscheduling.com/docs/webhooks',
    scheme: 'X-Acuity-Signature = base64(HMAC-SHA256(the account API key as UTF-8, raw form body))',
    secret: "the account's API key (Integrations > API), which is the webhook secret",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the form carries the appointment id, which every action on that appointment shares, and no delivery ID',
    event_type: { form_field: 'action' },
    retry_horizon: 'not stated on the pages consulted; keep the default window',
    retry_source: 'https://developers.acuityscheduling.com/docs/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
