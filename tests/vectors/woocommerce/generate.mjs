// Known-answer vectors for WooCommerce webhooks. WooCommerce is open source and
// signs in WC_Webhook::generate_signature (plugins/woocommerce/includes/class-wc-webhook.php):
//   base64_encode( hash_hmac( $hash_algo, $payload, wp_specialchars_decode( $this->get_secret(), ENT_QUOTES ), true ) )
// with $hash_algo = 'sha256' by default. That expression is run here by `php`
// (with PHP's htmlspecialchars_decode standing in for WordPress's
// wp_specialchars_decode, identical for secrets without HTML entities), and each
// verdict is checked against it. No WooCommerce SDK verifies webhooks.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { withIdentity } from '../identity.mjs';

const SECRET = 'wc-test-webhook-secret-0123456789abcdef';
const OTHER = 'wc-other-webhook-secret-9876543210zyxwvu';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/woocommerce';
const SIG_HEADER = 'X-WC-Webhook-Signature';
const EVENT_TYPE = 'order.created';
// An order.created payload as the REST API v3 renders an order:
// https://woocommerce.github.io/woocommerce-rest-api-docs/#order-properties
const BODY = JSON.stringify({
  id: 727, parent_id: 0, status: 'processing', currency: 'USD', version: '8.3.0',
  date_created: '2023-11-14T22:13:15', total: '29.35',
  billing: { first_name: 'John', last_name: 'Doe', email: 'john.doe@example.com' },
  line_items: [{ id: 315, name: 'Woo Single #1', product_id: 93, quantity: 2, total: '6.00' }],
});
const FLIP_FROM = '"processing"';
const FLIP_TO = '"processinh"';

// WooCommerce's own signing expression, run by PHP.
const PHP = `$payload = file_get_contents($argv[1]); $secret = $argv[2]; $hash_algo = 'sha256';
echo base64_encode( hash_hmac( $hash_algo, $payload, htmlspecialchars_decode( $secret, ENT_QUOTES ), true ) );`;
function wcSignature(body, secret) {
  fs.writeFileSync('.body.tmp', body);
  try {
    return execFileSync('php', ['-r', PHP, '--', '.body.tmp', secret]).toString();
  } finally {
    fs.unlinkSync('.body.tmp');
  }
}

const sign = (secret) => crypto.createHmac('sha256', secret).update(BODY).digest('base64');
function request({ b = BODY, drop = false } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['X-WC-Webhook-Source', 'https://shop.example.com/'],
    ['X-WC-Webhook-Topic', EVENT_TYPE],
    ['X-WC-Webhook-Resource', 'order'],
    ['X-WC-Webhook-Event', 'created'],
    ['X-WC-Webhook-ID', '12'],
    ['X-WC-Webhook-Delivery-ID', 'e6f1a9b1c2d3e4f5a6b7c8d9e0f1a2b3'],
  ];
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

const verify = (c, secret) => wcSignature(c.body, secret) === header(c, SIG_HEADER);
// The verifier answers yes or no, with the clock fixed at `now`. A request
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

// When a webhook is saved, WooCommerce POSTs an unsigned ping
// ("webhook_id=<id>") and keeps the webhook only if the answer is exactly 200
// (WC_Webhook::deliver_ping).
const handshakes = [{
  name: 'ping sent when the webhook is created (unsigned, must be answered 200)',
  secrets: [SECRET],
  verify_token: null,
  request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'webhook_id=12' },
  now: NOW,
  expect: { status: 200, content_type: null, body: '', headers: [] },
}];

const out = {
  kind: 'woocommerce',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'WC_Webhook::generate_signature (WooCommerce core, run with php)',
    url: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks',
  },
  facts: {
    title: 'WooCommerce',
    docs: 'https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks',
    scheme: 'X-WC-Webhook-Signature = base64 HMAC-SHA256(secret, raw body)',
    secret: 'the secret entered when the webhook is created (WooCommerce > Settings > Advanced > Webhooks), HTML entities decoded, used as UTF-8 bytes',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'X-WC-Webhook-Delivery-ID is new for every delivery and there is no event ID; WooCommerce does not retry, so the body hash only catches re-sends of the same payload: https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks',
    event_type: { header: 'X-WC-Webhook-Topic' },
    retry_horizon: 'no retries: a failed delivery is counted, and the webhook is disabled after more than 5 consecutive failures',
    retry_source: 'https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/class-wc-webhook.php',
    handshake: 'on creation, an unsigned POST with body "webhook_id=<id>" that must be answered exactly 200',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`woocommerce: ${cases.length} cases, ${handshakes.length} handshake`);
