// Known-answer vectors for RevenueCat webhooks. RevenueCat's docs
// (https://www.revenuecat.com/docs/integrations/webhooks, "Best Practices: Webhook
// authorization") say: "We recommended setting an authorization header value via the
// RevenueCat dashboard. When set, RevenueCat will send this header in every request.
// Your server can use this to authenticate the webhooks from RevenueCat." The
// Authorization header is therefore the configured value itself, verbatim: a static
// token that covers neither the body nor a time. The body is the docs' sample event
// envelope ({"api_version", "event": {"id", "type", ...}}).
import { writeFileSync } from 'node:fs';

const DOCS = 'https://www.revenuecat.com/docs/integrations/webhooks';
const TOKEN = 'Bearer rc_whk_7d1f0c9e2b4a6d8f';
const OTHER = 'Bearer rc_whk_0a9b8c7d6e5f4a3b';
const HOOK_URL = 'https://hooks.example.com/webhooks/revenuecat';
const NOW = 1700000000;
const ID = 'CD489E0E-5D52-4E03-966B-A7F17788E432';
const TYPE = 'INITIAL_PURCHASE';
const BODY = JSON.stringify({
  api_version: '1.0',
  event: {
    id: ID, type: TYPE, app_id: '1234567890', app_user_id: '1234567890', aliases: ['1234567890'],
    event_timestamp_ms: 1700000000000, product_id: 'com.subscription.weekly', period_type: 'NORMAL',
    purchased_at_ms: 1699999990000, expiration_at_ms: 1700604790000, environment: 'PRODUCTION',
    entitlement_ids: ['pro'], store: 'APP_STORE', transaction_id: '170000000000000', original_transaction_id: '170000000000000',
    price: 2.49, currency: 'USD',
  },
});
const req = (auth) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(auth === null ? [] : [['Authorization', auth]])],
  body: BODY, now: NOW,
});
const ok = { event_id: ID, event_type: TYPE };
const cases = [
  { name: 'the configured Authorization value, sent verbatim', secrets: [TOKEN], ...req(TOKEN), expect: 'valid', ...ok },
  { name: 'rotation: the tenant holds the old and the new value', secrets: [OTHER, TOKEN], ...req(TOKEN), expect: 'valid', ...ok },
  { name: 'verified with another configured value', secrets: [OTHER], ...req(TOKEN), expect: 'invalid_signature' },
  { name: 'the value with one character changed', secrets: [TOKEN], ...req(TOKEN.slice(0, -1) + 'e'), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [TOKEN], ...req(null), expect: 'missing_signature' },
];
// The docs' rule: the request is RevenueCat's when the header equals the value set.
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'Authorization')?.[1];
  const got = h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: ${got} vs ${c.expect}`);
}
const out = {
  kind: 'revenuecat',
  source: { kind: 'docs-example', package: '', registry: '', version: '', function: 'the authorization header value set in the dashboard, sent in every request', url: DOCS },
  facts: {
    title: 'RevenueCat',
    docs: DOCS,
    scheme: 'static token: Authorization must equal the value set on the webhook in the dashboard (no signature over the body)',
    secret: 'the authorization header value set on the webhook integration, exactly as typed (e.g. "Bearer …")',
    timestamp: null,
    event_id: { json_pointer: '/event/id' },
    event_id_note: 'the event\'s id; RevenueCat may deliver an event more than once',
    event_type: { json_pointer: '/event/type' },
    retry_horizon: 'retried up to 5 times, 5, 10, 20, 40 and 80 minutes apart (155 minutes in all)',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
