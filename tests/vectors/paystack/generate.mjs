// Known-answer vectors for Paystack webhooks. Paystack publishes no verifier package, so
// every verdict comes from the documentation's own Node.js sample, run unchanged below.
// Sample: https://paystack.com/docs/payments/webhooks/ ("Verify event origin"), source file
// src/doc/payments/webhooks/verifying-transaction/index.js in github.com/PaystackOSS/doc-code-snippets
// at commit 94af513d752dfc9f85dd0718301e7257091eb7f2.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';

const DOCS_SAMPLE = `const crypto = require('crypto');
const secret = process.env.SECRET_KEY;
// Using Express
app.post("/my/webhook/url", function(req, res) {
    //validate event
    const hash = crypto.createHmac('sha512', secret).update(JSON.stringify(req.body)).digest('hex');
    if (hash == req.headers['x-paystack-signature']) {
    // Retrieve the request's body
    const event = req.body;
    // Do something with event  
    }
    res.send(200);
});`;

// Runs the sample as written against one request. The sample only reads req.body a second
// time ("Retrieve the request's body") when the signature matched, so counting reads tells
// us which branch it took without editing it.
function docsAccepts(rawBody, headers, secret) {
  let handler;
  const app = { post: (_path, h) => { handler = h; } };
  new Function('require', 'process', 'app', DOCS_SAMPLE)(createRequire(import.meta.url), { env: { SECRET_KEY: secret } }, app);
  let reads = 0;
  const parsed = JSON.parse(rawBody); // Express's JSON parser hands the sample a parsed body
  const req = { get body() { reads += 1; return parsed; }, headers };
  handler(req, { send: () => {} });
  return reads === 2;
}

const NOW = 1700000000;
const SECRET = 'sk_test_4f5e6d7c8b9a0f1e2d3c4b5a69788796a5b4c3d2';
const OTHER = 'sk_test_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567';
const HOOK_URL = 'https://hooks.example.com/webhooks/paystack/acme';
// The docs' charge.success example (events/transaction-successful.json), as compact JSON.
const BODY = JSON.stringify({ event: 'charge.success', data: { id: 302961, domain: 'live', status: 'success', reference: 'qTPrJoy9Bx',
  amount: 10000, message: null, gateway_response: 'Approved by Financial Institution', paid_at: '2016-09-30T21:10:19.000Z',
  created_at: '2016-09-30T21:09:56.000Z', channel: 'card', currency: 'NGN', ip_address: '41.242.49.37', metadata: 0, fees: null,
  customer: { id: 68324, first_name: 'BoJack', last_name: 'Horseman', email: 'bojack@horseman.com', customer_code: 'CUS_qo38as2hpsgk2r0' },
  authorization: { authorization_code: 'AUTH_f5rnfq9p', bin: '539999', last4: '8877', exp_month: '08', exp_year: '2020', card_type: 'mastercard DEBIT', bank: 'Guaranty Trust Bank', country_code: 'NG', brand: 'mastercard' } } });
const TAMPERED = BODY.replace('"amount":10000', '"amount":10001');

// Our signer (what Paystack sends per the docs); the docs sample is the judge of every case.
const headersFor = (secret, body) => [['Content-Type', 'application/json'], ['x-paystack-signature', createHmac('sha512', secret).update(body).digest('hex')]];
const SIG_HEADERS = ['x-paystack-signature'];
function docsVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (!headers['x-paystack-signature']) return 'missing_signature';
  return c.secrets.some((s) => docsAccepts(c.body, headers, s)) ? 'valid' : 'invalid_signature';
}

const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_type: 'charge.success' };
const cases = [
  { name: 'the docs charge.success event, accepted by the docs sample', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret key verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another secret key', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'x-paystack-signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs sample says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'paystack',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'the Node.js sample under "Verify event origin" (PaystackOSS/doc-code-snippets@94af513, src/doc/payments/webhooks/verifying-transaction/index.js)',
    url: 'https://paystack.com/docs/payments/webhooks/' },
  facts: {
    title: 'Paystack',
    docs: 'https://paystack.com/docs/payments/webhooks/',
    scheme: 'x-paystack-signature = hex(HMAC-SHA512(secret key, raw body))',
    secret: 'the integration\'s secret key (sk_live_... / sk_test_...) from Settings > API Keys & Webhooks; there is no separate webhook secret',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'events carry no event ID (data.id is the transaction, shared by later events about it); a retry resends the same body',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'live mode: every 3 minutes for the first 4 tries, then hourly for the next 72 hours (docs page above; see NOTES.md)',
    retry_source: 'https://paystack.com/docs/payments/webhooks/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
