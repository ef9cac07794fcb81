// Known-answer vectors for Creem webhooks. The signature comes from the official
// @creem_io/webhook-types generateSignature(payload, secret), and every verdict is
// the check Creem's own Next.js adapter (@creem_io/nextjs 0.6.4, server/webhook.ts)
// makes with it: `!signature || computedSignature !== signature` is a rejection.
import { writeFileSync } from 'node:fs';
import { generateSignature, parseWebhookEvent } from '@creem_io/webhook-types';

const NOW = 1700000000;
const SECRET = 'whsec_4ZbUq1Dd7Lk9Xp2Vt5Rs8Hn3Fg6Ja0Wc';
const OTHER = 'whsec_7NmQw2Ez5Rt8Yu1Io4Pa6Sd9Fg3Hj0Kl';
const HOOK_URL = 'https://hooks.example.com/webhooks/creem/acme';
const SIG_HEADER = 'creem-signature';
const EVENT_ID = 'evt_5WHHcZPv7VS0YUsberIuOz';
// A checkout.completed event in the shape parseWebhookEvent reads: id, eventType, created_at, object.
const BODY = JSON.stringify({
  id: EVENT_ID,
  eventType: 'checkout.completed',
  created_at: 1699999998000,
  object: {
    id: 'ch_4l0N34kxo16AhRKUHFUuXr',
    object: 'checkout',
    request_id: 'my-request-id',
    order: { id: 'ord_4aDwWXjMLpes4Kj4XqNnUA', customer: 'cust_1OcIK1GEuVvXZwD19tjq2z', product: 'prod_d1AY2Sadk9YAvLI0pj97f',
      amount: 1000, currency: 'EUR', status: 'paid', type: 'recurring', mode: 'local' },
    customer: { id: 'cust_1OcIK1GEuVvXZwD19tjq2z', object: 'customer', email: 'tester@example.com', name: 'Tester Test', country: 'NL' },
    status: 'completed',
    mode: 'local',
  },
});
if (parseWebhookEvent(BODY).eventType !== 'checkout.completed') throw new Error('the SDK does not read the body');
const TAMPERED = BODY.replace('"amount":1000', '"amount":1001');

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function sdkVerdict(c) {
  const signature = header(c, SIG_HEADER);
  if (!signature) return 'missing_signature';
  for (const s of c.secrets) if ((await generateSignature(c.body, s)) === signature) return 'valid';
  return 'invalid_signature';
}
async function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, await generateSignature(BODY, secret)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const ok = { event_id: EVENT_ID, event_type: 'checkout.completed' };
const cases = [
  { name: 'checkout.completed signed by generateSignature', secrets: [SECRET], ...(await request()), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...(await request()), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...(await request({ body: TAMPERED })), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...(await request()), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...(await request({ drop: true })), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'creem',
  source: { kind: 'sdk', package: '@creem_io/webhook-types', registry: 'npm', version: '1.0.1',
    function: 'generateSignature(payload, secret), compared as @creem_io/nextjs 0.6.4 Webhook does',
    url: 'https://docs.creem.io/code/webhooks' },
  facts: {
    title: 'Creem',
    docs: 'https://docs.creem.io/code/webhooks',
    scheme: 'creem-signature = hex(HMAC-SHA256(webhook secret as UTF-8, raw body))',
    secret: "the webhook's signing secret from the Creem dashboard (Developers > Webhooks), used as UTF-8 text",
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: "the event's ID (evt_...), which the SDK surfaces as webhookId; a retry resends the event",
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'retries after 30 seconds, 1 minute, 5 minutes and 1 hour',
    retry_source: 'https://docs.creem.io/code/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
