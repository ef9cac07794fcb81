// Known-answer vectors for Unit (unit.co) webhooks: every verdict from the
// official SDK's Webhooks#verify(signature, secret, payload)
// (@unit-finance/unit-node-sdk, dist/resources/webhooks.js), which computes
// base64 HMAC-SHA1 of JSON.stringify(payload). The SDK has no signer: the
// X-Unit-Signature values are computed here and each case is kept only if the
// SDK agrees. The bodies are compact JSON, so JSON.stringify(JSON.parse(body))
// gives back the very bytes sent, which is what the SDK signs.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { Unit } from '@unit-finance/unit-node-sdk';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://www.unit.co/docs/api/webhooks';
const NOW = 1700000000;
const SECRET = 'unit-webhook-token-7c1e9a3f5b2d4e6a';
const OTHER = 'unit-webhook-token-0f9e8d7c6b5a4f3e';
const HOOK_URL = 'https://hooks.example.com/webhooks/unit';
const HEADER = 'X-Unit-Signature';
// One customer.created event (the SDK's CustomerCreated type: id, type,
// attributes.createdAt, relationships.customer/application) in the JSON:API
// envelope Unit posts, `data` an array of events.
const EVENT_ID = '376';
const TYPE = 'customer.created';
const BODY = JSON.stringify({
  data: [{
    id: EVENT_ID, type: TYPE,
    attributes: { createdAt: '2023-11-14T22:13:20.000Z', tags: { purpose: 'checking' } },
    relationships: {
      customer: { data: { id: '10001', type: 'customer' } },
      application: { data: { id: '10002', type: 'individualApplication' } },
    },
  }],
});
const TAMPERED = BODY.replace('"10001"', '"10091"');

const sign = (secret, body = BODY) => createHmac('sha1', secret).update(body).digest('base64');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [[HEADER, sig]])],
  body, now: NOW,
});
const ok = { event_id: EVENT_ID, event_type: TYPE };
const sig = sign(SECRET);
const cases = [
  { name: 'customer.created, accepted by Webhooks#verify', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured token verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another token', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

const webhooks = new Unit('unused-api-token', 'https://api.s.unit.sh').webhooks;
for (const c of cases) {
  const s = c.headers.find(([k]) => k === HEADER)?.[1];
  const got = s === undefined ? 'missing_signature'
    : c.secrets.some((secret) => webhooks.verify(s, secret, JSON.parse(c.body))) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'unit',
  source: {
    kind: 'sdk', package: '@unit-finance/unit-node-sdk', registry: 'npm', version: '0.41.0',
    function: 'Webhooks#verify(signature, secret, payload)', url: DOCS,
  },
  facts: {
    title: 'Unit',
    docs: DOCS,
    scheme: 'X-Unit-Signature = base64 HMAC-SHA1(webhook secret token, body), the body being JSON.stringify of the payload (compact)',
    secret: 'the secret token set on the webhook in Unit\'s dashboard or API',
    timestamp: null,
    batch: '/data',
    event_id: { json_pointer: '/id' },
    event_id_note: 'data[] holds one or more events (the batched delivery method), each with its own id; Unit asks handlers to be idempotent on it',
    event_type: { json_pointer: '/type' },
    retry_horizon: null,
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
