// Known-answer vectors for Trigger.dev alert webhooks. Every verdict is the
// official @trigger.dev/sdk webhooks.constructEvent(request, secret)'s, which
// checks x-trigger-signature-hmacsha256 and then parses the alert. The SDK has no
// signer, so the header is computed here as its verifySignature computes its
// expectation (hex HMAC-SHA256 of the raw body), and each case is kept only
// because the SDK agrees with it.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { webhooks } from '@trigger.dev/sdk/v3';

const NOW = 1700000000;
const SECRET = 'whsec_trigger_alert_7f3a9c1e5b2d8f4a6c0e';
const OTHER = 'whsec_trigger_alert_0b1c2d3e4f5a6b7c8d9e';
const HOOK_URL = 'https://hooks.example.com/webhooks/trigger-dev/acme';
const SIG_HEADER = 'x-trigger-signature-hmacsha256';
const EVENT_ID = 'alert_01hf3k9q2m4n6p8r0t2v4x6z8b';
// An alert.error webhook in the shape the SDK's Webhook schema accepts (@trigger.dev/core v3/schemas/webhooks).
const BODY = JSON.stringify({
  id: EVENT_ID,
  created: '2023-11-14T22:13:18.000Z',
  webhookVersion: '2025-01-01',
  type: 'alert.error',
  object: {
    classification: 'new_issue',
    error: { fingerprint: 'f1e2d3c4b5a6', type: 'TypeError', message: 'Cannot read properties of undefined',
      firstSeen: '2023-11-14T22:10:00.000Z', lastSeen: '2023-11-14T22:13:00.000Z', occurrenceCount: 3, taskIdentifier: 'send-invoice' },
    environment: { id: 'env_1a2b3c', name: 'prod' },
    organization: { id: 'org_4d5e6f', slug: 'acme', name: 'Acme' },
    project: { id: 'proj_7g8h9i', ref: 'proj_abcdefghijklmnopqrst', slug: 'billing', name: 'Billing' },
    dashboardUrl: 'https://cloud.trigger.dev/orgs/acme/projects/billing/errors/f1e2d3c4b5a6',
  },
});
const TAMPERED = BODY.replace('"occurrenceCount":3', '"occurrenceCount":4');

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');
async function sdkVerdict(c) {
  let verdict = 'invalid_signature';
  for (const s of c.secrets) {
    try {
      await webhooks.constructEvent(new Request(c.url, { method: c.method, headers: c.headers, body: c.body }), s);
      return 'valid';
    } catch (e) {
      if (/No signature header found/.test(e.message)) return 'missing_signature';
      if (!/Invalid signature/.test(e.message)) throw e;
    }
  }
  return verdict;
}
function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const ok = { event_id: EVENT_ID, event_type: 'alert.error' };
const cases = [
  { name: 'an alert.error webhook accepted by webhooks.constructEvent', secrets: [SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'trigger-dev',
  source: { kind: 'sdk', package: '@trigger.dev/sdk', registry: 'npm', version: '4.8.3',
    function: 'webhooks.constructEvent(request, secret) (v3/webhooks.js verifySignature)',
    url: 'https://trigger.dev/changelog/alert-webhooks' },
  facts: {
    title: 'Trigger.dev (alert webhooks)',
    docs: 'https://trigger.dev/changelog/alert-webhooks',
    scheme: 'x-trigger-signature-hmacsha256 = hex(HMAC-SHA256(the alert webhook secret as UTF-8, raw body))',
    secret: 'the webhook secret the dashboard generates when the webhook alert is created (Alerts > New alert > Webhook)',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: "the webhook's id (the SDK schema's \"Webhook ID\"), in the signed body",
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the pages consulted; keep the default window',
    retry_source: 'https://trigger.dev/changelog/alert-webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
