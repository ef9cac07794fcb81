// Known-answer vectors for Squarespace webhook notifications, from the docs' own
// Node sample ("Verifying notifications", Examples > Node,
// https://developers.squarespace.com/webhooks/verifying-notifications), run
// unchanged below: every case's verdict is the sample's. The secret is the
// example secret the docs print for a rotated subscription
// (https://developers.squarespace.com/commerce-apis/rotate-subscription-secret);
// the body is the docs' notification envelope
// (https://developers.squarespace.com/webhooks/overview) with its comments
// dropped and an order.create `data`. Squarespace publishes no SDK.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// The docs' sample, verbatim, as a function of its free variables.
function docsSample(secret, payload, headerSignature) {
const crypto = require('crypto');

const expectedSignature = crypto.createHmac('sha256', Buffer.from(secret, 'hex'))
  .update(payload)
  .digest('hex');

const isFromSquarespace = crypto.timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(headerSignature))
  return isFromSquarespace;
}

const DOCS = 'https://developers.squarespace.com/webhooks/verifying-notifications';
const DELIVERY = 'https://developers.squarespace.com/webhooks/notification-delivery';
const SECRET = 'F3F9B981C78E7A6187E42853F6CE2804177E98206164779423B02DEC981ACD6B';
const OTHER = '0A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F9';
const HOOK_URL = 'https://hooks.example.com/webhooks/squarespace';
const NOW = 1700000000;
const ID = '5c2ba184b63ed3cb411ce2b1';
const TOPIC = 'order.create';
const BODY = JSON.stringify({
  id: ID,
  websiteId: '5f3c3d55ac435e1a051f77b3',
  subscriptionId: '5f3c2155d947844beedda991',
  topic: TOPIC,
  createdOn: '2020-04-22T22:18+00:00',
  data: { orderId: '5f3c4a2a7e8b2b1c3d4e5f60' },
});
const TAMPERED = BODY.replace('5f3c4a2a7e8b2b1c3d4e5f60', '5f3c4a2a7e8b2b1c3d4e5f61');
const HEADER = 'Squarespace-Signature';
const sign = (secret, body = BODY) => require('crypto').createHmac('sha256', Buffer.from(secret, 'hex')).update(body).digest('hex');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['User-Agent', 'Squarespace/1.0'], ['Content-Type', 'application/json'], ...(sig === null ? [] : [[HEADER, sig]])],
  body, now: NOW,
});
const ok = { event_id: ID, event_type: TOPIC };
const sig = sign(SECRET);
const cases = [
  { name: 'order.create, accepted by the docs\' Node sample', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'the secret as lower-case hex is the same key', secrets: [SECRET.toLowerCase()], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'signed with the hex text of the secret instead of its bytes', secrets: [SECRET], ...req(require('crypto').createHmac('sha256', SECRET).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const h = c.headers.find(([k]) => k === HEADER)?.[1];
  const got = h === undefined ? 'missing_signature'
    : c.secrets.some((s) => docsSample(s, c.body, h)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'squarespace',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'Verifying notifications, Examples > Node', url: DOCS },
  facts: {
    title: 'Squarespace',
    docs: DOCS,
    scheme: 'Squarespace-Signature = hex HMAC-SHA256(hexToBytes(secret), raw body)',
    secret: 'the subscription\'s secret, a hexadecimal value returned when the subscription is created or its secret rotated',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: `"unique notification id"; endpoints handle duplicates "by tracking which notification ids have already been processed": ${DELIVERY}`,
    event_type: { json_pointer: '/topic' },
    retry_horizon: 'retried "several times for up to 48 hours"',
    retry_source: DELIVERY,
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
