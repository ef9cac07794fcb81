// Known-answer vectors for Dwolla webhooks, from the documentation's own Node.js
// verifyGatewaySignature sample ("Step 2: Validating webhooks",
// https://developers.dwolla.com/guides/webhooks/validating-webhooks.html), run
// unchanged below: every case's verdict is the sample's. Neither Dwolla SDK
// (dwolla-v2 3.4.2, dwolla 1.1.1 on npm; dwollav2 on PyPI) verifies webhooks.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as nodeCrypto from 'node:crypto';

const require = createRequire(import.meta.url);

// The docs' sample, verbatim.
var crypto = require("crypto");
var bufferFrom = require("buffer").Buffer.from;
function verifyGatewaySignature(
  proposed_signature,
  webhook_secret,
  payload_body
) {
  var hash = crypto
    .createHmac("sha256", webhook_secret)
    .update(payload_body)
    .digest("hex");
  return crypto.timingSafeEqual(
    bufferFrom(proposed_signature),
    bufferFrom(hash)
  );
}

const NOW = 1700000000;
const SECRET = 'dwolla-webhook-secret-3f9a1c7e5b2d';
const OTHER = 'dwolla-other-secret-0a1b2c3d4e5f6a';
const HOOK_URL = 'https://hooks.example.com/webhooks/dwolla';
const EVENT_ID = 'cac95329-9fa5-42f1-a4fc-c08af7b868fb';
const TOPIC = 'customer_transfer_created';
// The docs' webhook payload example (same page), compact as sent.
const BODY = JSON.stringify({
  id: EVENT_ID,
  resourceId: 'cdb5f11f-62df-e611-80ee-0aa34a9b2388',
  topic: TOPIC,
  timestamp: '2017-01-20T22:45:12.790Z',
  _links: {
    self: { href: 'https://api-sandbox.dwolla.com/events/cac95329-9fa5-42f1-a4fc-c08af7b868fb' },
    account: { href: 'https://api-sandbox.dwolla.com/accounts/ad5f2162-404a-4c4c-994e-6ab6c3a13254' },
    resource: { href: 'https://api-sandbox.dwolla.com/transfers/cdb5f11f-62df-e611-80ee-0aa34a9b2388' },
    customer: { href: 'https://api-sandbox.dwolla.com/customers/e358a488-6699-4d79-bbfb-c5bf58100ea4' },
  },
  created: '2017-01-20T22:45:12.790Z',
});
const TAMPERED = BODY.replace('"customer_transfer_created"', '"customer_transfer_createe"');
const HEADER = 'X-Request-Signature-SHA-256';

const sign = (secret, body = BODY) => nodeCrypto.createHmac('sha256', secret).update(body, 'utf8').digest('hex');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ['X-Dwolla-Topic', TOPIC], ...(sig === null ? [] : [[HEADER, sig]])],
  body, now: NOW,
});
const sig = sign(SECRET);
const ok = { event_id: EVENT_ID, event_type: TOPIC };
const cases = [
  { name: 'customer_transfer_created, accepted by the docs\' verifyGatewaySignature', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

function verdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const proposed = h[HEADER.toLowerCase()];
  if (proposed === undefined) return 'missing_signature';
  return c.secrets.some((s) => verifyGatewaySignature(proposed, s, c.body)) ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, the case says ${c.expect}`);
}

const DOCS = 'https://developers.dwolla.com/guides/webhooks/validating-webhooks.html';
const RETRIES = 'https://developers.dwolla.com/docs/connect/webhooks/process-validate';
const out = {
  kind: 'dwolla',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' Node.js verifyGatewaySignature(proposed_signature, webhook_secret, payload_body) sample', url: DOCS },
  facts: {
    title: 'Dwolla',
    docs: DOCS,
    scheme: 'X-Request-Signature-SHA-256 = hex(HMAC-SHA256(webhook secret, raw body))',
    secret: 'the secret given when the webhook subscription was created (POST /webhook-subscriptions, "secret"), as UTF-8 bytes',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event\'s id (its _links.self is /events/<id>); a retry re-sends the same event: ' + DOCS,
    event_type: { json_pointer: '/topic' },
    retry_horizon: 'up to 8 retries over the next 72 hours',
    retry_source: RETRIES,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`dwolla: ${cases.length} cases`);
