// Known-answer vectors for Lago webhooks (HMAC signature algorithm). Lago is open source and signs in
// Webhook#hmac_signature (getlago/lago-api app/models/webhook.rb at 1b1c24a6):
//   hmac = OpenSSL::HMAC.digest("sha-256", organization.hmac_key, payload.to_json)
//   Base64.strict_encode64(hmac)
// and sends `payload.to_json` as the body (lib/lago_http_client/lago_http_client/client.rb post_with_response).
// Both expressions are run here by `ruby` (Debian package `ruby`, 3.1), and each verdict is checked against the
// signature Lago's code produces. No Lago SDK verifies HMAC webhooks (the clients fetch the JWT public key only).
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

// Lago's own code, verbatim apart from the inputs (organization.hmac_key, payload) taken from argv/stdin.
const RUBY = `
require "openssl"; require "base64"; require "json"
Organization = Struct.new(:hmac_key)
organization = Organization.new(ARGV[0])
payload = JSON.parse(STDIN.read)
hmac = OpenSSL::HMAC.digest("sha-256", organization.hmac_key, payload.to_json)
print JSON.generate({ body: payload.to_json, signature: Base64.strict_encode64(hmac) })
`;
const lago = (hmacKey, payload) => JSON.parse(execFileSync('ruby', ['-e', RUBY, hmacKey], { input: JSON.stringify(payload) }).toString());

const NOW = 1700000000;
const HMAC_KEY = '5c1f2a7e-3b9d-4e61-8a0f-2d4c6e8b1a3f';   // organization.hmac_key is a UUID (Organization#set_hmac_key)
const OTHER = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
const HOOK_URL = 'https://hooks.example.com/webhooks/lago';
const UNIQUE_KEY = '1f6c8b2e-7a3d-4c5e-9b0a-2d4f6e8a0c1b';   // Webhook#id, the same on every retry of the record
// The docs' message format { webhook_type, object_type, <object> } with an invoice (trimmed).
const PAYLOAD = {
  webhook_type: 'invoice.created', object_type: 'invoice',
  invoice: { lago_id: '5eb02857-a71e-4ea2-bcf9-57d3a41bc6ba', sequential_id: 2, number: 'LAG-1234-001-002', issuing_date: '2023-11-14', invoice_type: 'subscription', status: 'finalized', payment_status: 'pending', currency: 'EUR', total_amount_cents: 120, created_at: '2023-11-14T22:13:15Z' },
};
const { body: BODY, signature: SIG } = lago(HMAC_KEY, PAYLOAD);
const TAMPERED = BODY.replace('"pending"', '"succeeded"');

const req = (sig, body = BODY, algo = 'hmac') => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['X-Lago-Signature', sig]]), ['X-Lago-Signature-Algorithm', algo], ['X-Lago-Unique-Key', UNIQUE_KEY]],
  body, now: NOW,
});
const ok = { event_id: UNIQUE_KEY, event_type: 'invoice.created' };
const cases = [
  { name: 'invoice.created signed by Lago\'s Webhook#hmac_signature (base64 HMAC-SHA256 of payload.to_json)', secrets: [HMAC_KEY], ...req(SIG), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, HMAC_KEY], ...req(SIG), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [HMAC_KEY], ...req(SIG, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another organization\'s HMAC key', secrets: [OTHER], ...req(SIG), expect: 'invalid_signature' },
  { name: 'a hex digest instead of base64 is rejected', secrets: [HMAC_KEY], ...req(crypto.createHmac('sha256', HMAC_KEY).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: 'X-Lago-Signature removed', secrets: [HMAC_KEY], ...req(null), expect: 'missing_signature' },
];

for (const c of cases) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let got;
  if (h['x-lago-signature'] === undefined) got = 'missing_signature';
  else {
    // Lago's signer decides: the request is valid iff its header is what Lago's code produces for this body.
    const payload = JSON.parse(c.body);
    const valid = c.secrets.some((k) => { const r = lago(k, payload); return r.body === c.body && r.signature === h['x-lago-signature']; });
    got = valid ? 'valid' : 'invalid_signature';
  }
  if (got !== c.expect) throw new Error(`${c.name}: Lago's signer says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://getlago.com/docs/api-reference/webhooks/format---signature';
const out = {
  kind: 'lago',
  source: { kind: 'docs-code', package: 'lago-api', registry: '', version: '1b1c24a6a6c321d7900b05906bf1b20f706c97c2', function: 'Lago\'s own Webhook#hmac_signature and LagoHttpClient::Client#post_with_response (Ruby, run by ruby 3.1)', url: 'https://github.com/getlago/lago-api/blob/1b1c24a6a6c321d7900b05906bf1b20f706c97c2/app/models/webhook.rb' },
  facts: {
    title: 'Lago',
    docs: DOCS,
    scheme: 'X-Lago-Signature = base64(HMAC-SHA256(organization HMAC key as UTF-8, raw body)) when X-Lago-Signature-Algorithm is hmac',
    secret: 'the organization\'s HMAC key (Developers > API keys in the Lago app), used verbatim as UTF-8; endpoints must be created with the hmac signature algorithm (jwt is the default)',
    timestamp: null,
    event_id: { header: 'X-Lago-Unique-Key' },
    event_id_note: '"an idempotency key (unique identifier)... used to ensure you process a webhook only once"; it is the Webhook record\'s id, which every retry re-sends: ' + DOCS,
    event_type: { json_pointer: '/webhook_type' },
    retry_horizon: 'Lago tries 3 times (LAGO_WEBHOOK_ATTEMPTS), seconds apart: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
