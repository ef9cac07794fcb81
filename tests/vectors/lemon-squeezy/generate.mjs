// Known-answer vectors for Lemon Squeezy webhooks (X-Signature). Lemon Squeezy's SDK has no
// verifier; every verdict comes from the verification code of Lemon Squeezy's own example app,
// github.com/lmsqueezy/nextjs-billing, src/app/api/webhook/route.ts at commit
// 0a73f083f6f977629e9b6ad7c432361e08c09cbf, copied verbatim into verify() below.
// Docs describing the same scheme: https://docs.lemonsqueezy.com/help/webhooks/signing-requests
import crypto from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

// Returns true when the example's signature check passes. The body of this function, from
// "Get the raw body content" to the if statement, is verbatim from route.ts; only the
// function around it and the return values are ours.
async function verify(request, secretValue) {
  const process = { env: { LEMONSQUEEZY_WEBHOOK_SECRET: secretValue } };
  // Get the raw body content.
  const rawBody = await request.text();

  // Get the webhook secret from the environment variables.
  const secret = process.env.LEMONSQUEEZY_WEBHOOK_SECRET;

  // Get the signature from the request headers.
  const signature = Buffer.from(
    request.headers.get("X-Signature") ?? "",
    "hex",
  );

  // Create a HMAC-SHA256 hash of the raw body content using the secret and
  // compare it to the signature.
  const hmac = Buffer.from(
    crypto.createHmac("sha256", secret).update(rawBody).digest("hex"),
    "hex",
  );

  if (!crypto.timingSafeEqual(hmac, signature)) {
    return false;
  }
  return true;
}

const NOW = 1700000000;
const SECRET = 'lsq-signing-secret-31337';
const OTHER = 'another-signing-secret-42';
const HOOK_URL = 'https://hooks.example.com/webhooks/lemon-squeezy/acme';
// An order_created webhook: meta (event_name, custom_data) and the JSON:API order resource.
const BODY = JSON.stringify({
  meta: { test_mode: true, event_name: 'order_created', custom_data: { customer_id: 25 } },
  data: { type: 'orders', id: '1', attributes: { store_id: 1, customer_id: 1, identifier: '104e18a2-d755-4d4b-80c4-a6c1dcbe1c10',
    order_number: 1, user_name: 'Darlene Daugherty', user_email: 'gernser@yahoo.com', currency: 'USD', subtotal: 999, total: 999,
    status: 'paid', refunded: false, created_at: '2023-11-14T22:13:10.000000Z', updated_at: '2023-11-14T22:13:10.000000Z' } },
});
const TAMPERED = BODY.replace('"total":999', '"total":998');

const headersFor = (secret, body) => [['Content-Type', 'application/json'], ['X-Event-Name', 'order_created'],
  ['X-Signature', crypto.createHmac('sha256', secret).update(body).digest('hex')]];
const SIG_HEADERS = ['x-signature'];

async function docsVerdict(c) {
  if (!c.headers.some(([k]) => k.toLowerCase() === 'x-signature')) return 'missing_signature';
  for (const s of c.secrets) {
    const request = new Request(c.url, { method: c.method, headers: c.headers, body: c.body });
    try {
      if (await verify(request, s)) return 'valid';
    } catch (e) {
      // timingSafeEqual throws on a signature of the wrong length: the example answers 500.
      if (!(e instanceof RangeError)) throw e;
    }
  }
  return 'invalid_signature';
}

const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_type: 'order_created' };
const cases = [
  { name: 'order_created, accepted by the nextjs-billing example check', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured signing secret verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'X-Signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the example says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'lemon-squeezy',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'signature check in POST() of lmsqueezy/nextjs-billing@0a73f08 src/app/api/webhook/route.ts (Lemon Squeezy\'s example app)',
    url: 'https://docs.lemonsqueezy.com/help/webhooks/signing-requests' },
  facts: {
    title: 'Lemon Squeezy',
    docs: 'https://docs.lemonsqueezy.com/help/webhooks/signing-requests',
    scheme: 'X-Signature = hex(HMAC-SHA256(signing secret, raw body))',
    secret: "the webhook's signing secret, chosen by the user when creating the webhook (Settings > Webhooks; 6 to 40 characters)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body is meta (event_name, custom_data) plus the resource; no event ID is documented as stable across retries, and a retry resends the same body',
    event_type: { header: 'X-Event-Name' },
    retry_horizon: 'the pages consulted give no schedule; keep the default window (see NOTES.md)',
    retry_source: 'https://docs.lemonsqueezy.com/help/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
