// Known-answer vectors for GoCardless webhooks, every verdict from the official
// SDK's webhooks.parseWithMeta (gocardless-nodejs), which checks Webhook-Signature.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseWithMeta } from 'gocardless-nodejs/webhooks';

const NOW = 1700000000;
const SECRET = 'ElCAnOIu6bvLfWBTCcVgGqR7hXa0Yb3kdMqCLD1z';
const OTHER = 'pTMMVJlfcBKmTNmEX3OH7yVV8Q61tJqcvBbmXyLb';
const HOOK_URL = 'https://hooks.example.com/webhooks/gocardless/acme';
// The docs' example webhook, with the meta.webhook_id newer webhooks carry.
const BODY = JSON.stringify({
  events: [{ id: 'EV123', created_at: '2014-08-04T12:00:00.000Z', action: 'cancelled', resource_type: 'mandates',
    links: { mandate: 'MD123', organisation: 'OR123' },
    details: { origin: 'bank', cause: 'bank_account_disabled', description: 'Your customer closed their bank account.', scheme: 'bacs', reason_code: 'ADDACS-B' } }],
  meta: { webhook_id: 'WB123' },
});
const TAMPERED = BODY.replace('MD123', 'MD124');

// The SDK has no signer: GoCardless sends hex HMAC-SHA256(secret, body), which parseWithMeta must accept.
const headersFor = (secret, body) => [['Content-Type', 'application/json'], ['User-Agent', 'gocardless-webhook-service/1.1'],
  ['Origin', 'https://api.gocardless.com'], ['Webhook-Signature', createHmac('sha256', secret).update(body).digest('hex')]];
const SIG_HEADERS = ['webhook-signature'];

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'webhook-signature')?.[1];
  if (!sig) return 'missing_signature';
  for (const s of c.secrets) {
    try {
      parseWithMeta(c.body, s, sig);
      return 'valid';
    } catch (e) {
      if (e.name !== 'InvalidSignatureError') throw e;
    }
  }
  return 'invalid_signature';
}

const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_id: 'WB123', event_type: 'mandates' };
const cases = [
  { name: 'the docs example webhook accepted by webhooks.parseWithMeta', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another endpoint secret', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'Webhook-Signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'gocardless',
  source: { kind: 'sdk', package: 'gocardless-nodejs', registry: 'npm', version: '10.1.2',
    function: 'webhooks.parseWithMeta (verifySignature)', url: 'https://developer.gocardless.com/getting-started/api/staying-up-to-date-with-webhooks' },
  facts: {
    title: 'GoCardless',
    docs: 'https://developer.gocardless.com/getting-started/api/staying-up-to-date-with-webhooks',
    scheme: 'Webhook-Signature = hex(HMAC-SHA256(webhook endpoint secret, raw body))',
    secret: "the webhook endpoint's secret, copied from the Dashboard (Developers > Webhook endpoints)",
    timestamp: null,
    event_id: { json_pointer: '/meta/webhook_id' },
    event_id_note: 'a webhook bundles one or more events (events[].id = EV...); the retried unit is the webhook, whose ID is meta.webhook_id (the SDK returns it as webhookId): https://developer.gocardless.com/api-reference#appendix-webhooks',
    event_type: { json_pointer: '/events/0/resource_type' },
    retry_horizon: 'failed webhooks are retried with increasing intervals; the pages consulted give no total horizon, so keep the default window',
    retry_source: 'https://developer.gocardless.com/api-reference#appendix-webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
