// Known-answer vectors for Onfido, checked by the official @onfido/api SDK's
// WebhookEventVerifier.readPayload (it only verifies: each request is built
// here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { WebhookEventVerifier, OnfidoInvalidSignatureError } from '@onfido/api';
import { withIdentity } from '../identity.mjs';

const SECRET = 'onfido-test-webhook-token-0123456';
const OTHER = 'onfido-other-webhook-token-987654';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/onfido';
const SIG_HEADER = 'X-SHA2-Signature';
const EVENT_TYPE = 'check.completed';
// The documented event shape: https://documentation.onfido.com/api/latest/#webhooks
const BODY = JSON.stringify({
  payload: {
    resource_type: 'check',
    action: 'check.completed',
    object: {
      id: 'f2302f45-227d-413d-ad61-09ec077a086a',
      status: 'complete',
      completed_at_iso8601: '2023-11-14T22:13:15Z',
      href: 'https://api.eu.onfido.com/v3.6/checks/f2302f45-227d-413d-ad61-09ec077a086a',
    },
  },
});
const FLIP_FROM = '"complete"';
const FLIP_TO = '"completx"';

const sign = (secret) => crypto.createHmac('sha256', secret).update(BODY).digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => {
  try {
    new WebhookEventVerifier(secret).readPayload(Buffer.from(c.body), header(c, SIG_HEADER));
    return true;
  } catch (e) {
    if (e instanceof OnfidoInvalidSignatureError) return false;
    throw e;
  }
};
// The SDK's verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'onfido',
  source: {
    kind: 'sdk', package: '@onfido/api', registry: 'npm', version: '6.2.0',
    function: 'WebhookEventVerifier#readPayload',
    url: 'https://documentation.onfido.com/api/latest/#webhooks',
  },
  facts: {
    title: 'Onfido',
    docs: 'https://documentation.onfido.com/api/latest/#webhooks',
    scheme: 'X-SHA2-Signature = hex HMAC-SHA256(webhook token, raw body)',
    secret: "the webhook's token, shown once when the webhook is created (Dashboard or API), used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the event carries no ID of its own (payload.object.id is the check or report, shared by its several events); a retry re-sends the same body: https://documentation.onfido.com/api/latest/#webhooks',
    event_type: { json_pointer: '/payload/action' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://documentation.onfido.com/api/latest/#webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`onfido: ${cases.length} cases`);
