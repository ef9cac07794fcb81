// Known-answer vectors for Plain webhooks: every verdict from the official SDK's
// verifyPlainWebhook (@team-plain/typescript-sdk), which checks the
// Plain-Request-Signature HMAC, validates the payload against the webhook schema and
// checks the delivery-attempt timestamp inside the body. The SDK has no signer; the
// signatures are the hex HMAC-SHA256 it recomputes, kept only where it agrees.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { verifyPlainWebhook, PlainWebhookSignatureVerificationError } from '@team-plain/typescript-sdk';

const NOW = 1700000000;
const SECRET = 'plainRequestSigningSecret_5e3f8a1b9c2d4e6f7a8b';
const OTHER = 'plainRequestSigningSecret_0a0b0c0d0e0f1a1b2c3d';
const HOOK_URL = 'https://hooks.example.com/webhooks/plain/acme';
// Plain IDs: a prefix, '_' and 26 Crockford base32 characters (the schema checks the pattern).
const EVENT_ID = 'pEv_01HF6V3M1X9Q2W8E4R7T5Y3Z0A';
const iso = (s) => new Date(s * 1000).toISOString();
// A customer.customer_group_changed (ADDED) event in the webhook envelope; the delivery metadata is per attempt.
const body = (attemptTs, attempt = 1) => JSON.stringify({
  timestamp: iso(NOW - 5),
  workspaceId: 'w_01HF6TZ5Q8M2K4N7P9R3S6V1X0',
  payload: {
    eventType: 'customer.customer_group_changed', changeType: 'ADDED',
    customerGroup: { id: 'cuGroup_01HF6V0A2B3C4D5E6F7G8H9J0K', workspaceId: 'w_01HF6TZ5Q8M2K4N7P9R3S6V1X0', name: 'Enterprise', key: 'enterprise',
      color: '#1f77b4', createdAt: iso(NOW - 5), createdBy: { actorType: 'user', userId: 'u_01HF6TZ9W8V7T6S5R4Q3P2N1M0' },
      updatedAt: iso(NOW - 5), updatedBy: { actorType: 'user', userId: 'u_01HF6TZ9W8V7T6S5R4Q3P2N1M0' } },
  },
  id: EVENT_ID,
  type: 'customer.customer_group_changed',
  webhookMetadata: { webhookTargetId: 'whTarget_01HF6TZB1C2D3E4F5G6H7J8K9M', webhookTargetVersion: '2026-02-27',
    webhookDeliveryAttemptId: `whAttempt_01HF6V3M1X9Q2W8E4R7T5Y3Z${attempt}A`, webhookDeliveryAttemptNumber: attempt,
    webhookDeliveryAttemptTimestamp: iso(attemptTs) },
});
const BODY = body(NOW - 2);

const sign = (secret, b) => createHmac('sha256', secret).update(b, 'utf8').digest('hex');
const headersFor = (sig) => [['Content-Type', 'application/json'], ['Plain-Request-Signature', sig]];

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'plain-request-signature')?.[1];
  if (sig === undefined) return 'missing_signature';
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // verifyPlainWebhook reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const secret of c.secrets) {
      const r = verifyPlainWebhook(c.body, sig, secret);
      if (!r.error) return 'valid';
      if (!(r.error instanceof PlainWebhookSignatureVerificationError)) throw r.error;
      if (/timestamp provided in the webhook payload/.test(r.error.message)) verdict = 'timestamp_out_of_tolerance';
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sig, b = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig), body: b, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'plain-request-signature') });
const old = body(NOW - 301);
const future = body(NOW + 301);
const retry = body(NOW - 1, 2);
const ok = { event_id: EVENT_ID, event_type: 'customer.customer_group_changed' };
const cases = [
  { name: 'customer.customer_group_changed signed with the request signing secret, accepted by verifyPlainWebhook', secrets: [SECRET], ...req(sign(SECRET, BODY)), expect: 'valid', ...ok },
  { name: 'the second delivery attempt: new attempt metadata in the body, same event id', secrets: [SECRET], ...req(sign(SECRET, retry), retry), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sign(SECRET, BODY)), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sign(SECRET, BODY), BODY.replace('Enterprise', 'Enterprisf')), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(sign(SECRET, BODY)), expect: 'invalid_signature' },
  { name: 'Plain-Request-Signature removed', secrets: [SECRET], ...strip(req(sign(SECRET, BODY))), expect: 'missing_signature' },
  { name: 'webhookDeliveryAttemptTimestamp (in the signed body) 301 seconds old', secrets: [SECRET], ...req(sign(SECRET, old), old), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhookDeliveryAttemptTimestamp (in the signed body) 301 seconds in the future', secrets: [SECRET], ...req(sign(SECRET, future), future), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://www.plain.com/docs/api-reference/request-signing';
const out = {
  kind: 'plain',
  source: { kind: 'sdk', package: '@team-plain/typescript-sdk', registry: 'npm', version: '5.12.1',
    function: 'verifyPlainWebhook(payload, signature, secret, tolerance = 300)', url: DOCS },
  facts: {
    title: 'Plain',
    docs: DOCS,
    scheme: 'Plain-Request-Signature = hex(HMAC-SHA256(request signing secret as UTF-8, raw body)); freshness from the body\'s webhookMetadata.webhookDeliveryAttemptTimestamp',
    secret: 'the Request Signing secret from Plain\'s settings (Settings > Request signing), used verbatim as UTF-8 bytes',
    timestamp: 'JSON /webhookMetadata/webhookDeliveryAttemptTimestamp (ISO 8601, inside the signed body), 300 s either way (SDK default)',
    event_id: { json_pointer: '/id' },
    event_id_note: 'id is the event ID; each delivery attempt rewrites webhookMetadata (attempt id, number, timestamp), so the body hash changes between attempts but id does not: https://www.plain.com/docs/api-reference/webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: 'https://www.plain.com/docs/api-reference/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
