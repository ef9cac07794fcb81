// Tebex's captures for the corpus (tests/captures/tebex/, README.md there):
// requests signed by the PHP sample of Tebex's webhooks page, run by `php`
// (see generate.mjs and NOTES.md), at the corpus's fixed time
// 2026-01-01T00:00:00Z, for the route `tebex` of the tenant `default`.
import { writeFileSync, mkdirSync, unlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const PHP = `$json = file_get_contents($argv[1]);
$secret = $argv[2];
$signature = hash_hmac('sha256', hash('sha256', $json), $secret);
echo $signature;`;
function sign(secret, body) {
  writeFileSync('.body.tmp', body);
  try {
    return execFileSync('php', ['-r', PHP, '--', '.body.tmp', secret]).toString();
  } finally {
    unlinkSync('.body.tmp');
  }
}

const SECRET = 'tebex-corpus-webhook-secret-6b1f0d2c';
const SENT_AT = '2026-01-01T00:00:00+00:00';
const DIR = '../../captures/tebex';
const payment = (id, type, date, status) => JSON.stringify({
  id, type, date,
  subject: {
    transaction_id: 'tbx-81c4d0e2a73f55-9b2e1c',
    status,
    price: { amount: 9.99, currency: 'EUR' },
    customer: { email: 'sam.player@example.com', username: { id: '0a9c1e7d5b3f4e6a8c2d4f6a8b0c1d2e', username: 'sam' } },
    products: [{ id: 6120934, name: 'Builder Kit', quantity: 1 }],
  },
});
const COMPLETED = payment('b7d3e9a1-5c2f-4e8b-a6d0-1f3c5e7a9b24', 'payment.completed', '2025-12-31T23:59:40+00:00', { id: 1, description: 'Complete' });
const REFUNDED = payment('e2a4c6b8-0d1f-4a3c-9e5b-7d9f1b3d5e60', 'payment.refunded', '2025-12-31T23:59:55+00:00', { id: 2, description: 'Refund' });

function capture(body) {
  return {
    provider: 'tebex', kind: 'tebex', tenant: 'default', method: 'POST', path: '/webhooks/tebex', query: '',
    headers: [['Content-Type', 'application/json'], ['X-Signature', sign(SECRET, body)]],
    body_base64: Buffer.from(body).toString('base64'),
    received_at: SENT_AT,
  };
}
const files = [
  ['0001-payment-completed.json', COMPLETED],
  ['0002-payment-completed-again.json', COMPLETED],
  ['0003-payment-refunded.json', REFUNDED],
];
mkdirSync(DIR, { recursive: true });
for (const [name, body] of files) writeFileSync(`${DIR}/${name}`, JSON.stringify(capture(body), null, 2) + '\n');
const ev = (body) => { const j = JSON.parse(body); return [{ id: j.id, type: j.type }]; };
const manifest = {
  route: 'tebex',
  kind: 'tebex',
  secrets: [SECRET],
  source: "signed by the PHP sample of Tebex's webhooks page (hash_hmac('sha256', hash('sha256', $json), $secret), https://docs.tebex.io/developers/webhooks/overview), run by php 8.2: tests/vectors/tebex/captures.mjs; Tebex has no SDK verifier",
  captures: [
    { file: 'tebex/0001-payment-completed.json', expect: 'accepted', events: ev(COMPLETED),
      why: 'a payment.completed webhook, its own id in the body: https://docs.tebex.io/developers/webhooks/overview' },
    { file: 'tebex/0002-payment-completed-again.json', expect: 'duplicate', events: ev(COMPLETED),
      why: 'the same webhook delivered a second time (its id seen before)' },
    { file: 'tebex/0003-payment-refunded.json', expect: 'accepted', events: ev(REFUNDED),
      why: 'another webhook of the same payment, under its own id' },
  ],
};
writeFileSync(`${DIR}/manifest.json`, JSON.stringify(manifest, null, 2) + '\n');
console.log(`tebex: ${files.length} captures`);
