// Known-answer vectors for Nuvemshop (Tiendanube) webhooks. The docs' own PHP
// sample (https://github.com/TiendaNube/api-docs/blob/master/resources/webhook.md,
// "Verifying a webhook") is run unchanged by `php`, with APP_SECRET defined as
// each case's secret, and gives every verdict:
//
//   function verify_webhook($data, $hmac_header) {
//     return $hmac_header == hash_hmac('sha256', $data, APP_SECRET);
//   }
//
// The valid signatures are made here with node's HMAC-SHA256 (hex) as the page
// describes and are accepted by that sample; no Nuvemshop SDK verifies webhooks.
import { writeFileSync, unlinkSync } from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

const SECRET = 'nuvem-app-secret-2f7c1e9a4b6d8053';
const OTHER = 'nuvem-app-secret-0000000000000000';
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/nuvemshop';
const SIG = 'x-linkedstore-hmac-sha256';
// The documented parameters of an order event: store_id, event, id.
const BODY = JSON.stringify({ store_id: 123, event: 'order/paid', id: 1948209 });
const FLIP = (b) => b.replace('1948209', '1948208');

// The docs' sample, verbatim but for APP_SECRET (argv) and the inputs (files).
const PHP = `define('APP_SECRET', $argv[1]);

function verify_webhook($data, $hmac_header) {
  return $hmac_header == hash_hmac('sha256', $data, APP_SECRET);
}

$hmac_header = file_get_contents($argv[3]);
$data = file_get_contents($argv[2]);
$verified = verify_webhook($data, $hmac_header);
echo var_export($verified, true);`;
function docsAccepts(body, header, secret) {
  writeFileSync('.body.tmp', body);
  writeFileSync('.hdr.tmp', header);
  try {
    return execFileSync('php', ['-r', PHP, '--', secret, '.body.tmp', '.hdr.tmp']).toString() === 'true';
  } finally {
    unlinkSync('.body.tmp');
    unlinkSync('.hdr.tmp');
  }
}

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');
function request({ body = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push(['X-Linkedstore-HMAC-SHA256', sign(SECRET, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const bodyId = (b) => crypto.createHash('sha256').update(b).digest('hex');
const ok = { event_id: bodyId(BODY), event_type: 'order/paid' };
const cases = [
  { name: 'order/paid signed with the app secret, accepted by the docs sample', secrets: [SECRET], ...request(), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: FLIP(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another app secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Linkedstore-HMAC-SHA256 removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'rotation: the tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', ...ok },
];
const header = (c) => c.headers.find(([k]) => k.toLowerCase() === SIG)?.[1];
for (const c of cases) {
  const h = header(c);
  const got = h === undefined ? 'missing_signature'
    : c.secrets.some((s) => docsAccepts(c.body, h, s)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the docs sample says ${got}, the case says ${c.expect}`);
}

const DOCS = 'https://tiendanube.github.io/api-documentation/resources/webhook';
const out = {
  kind: 'nuvemshop',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'verify_webhook (PHP sample in "Verifying a webhook"), run with php',
    url: 'https://github.com/TiendaNube/api-docs/blob/master/resources/webhook.md',
  },
  facts: {
    title: 'Nuvemshop (Tiendanube)',
    docs: DOCS,
    scheme: 'X-Linkedstore-HMAC-SHA256 = hex HMAC-SHA256(app secret, raw body)',
    secret: "the app's secret (client secret) from the Partners portal, used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body is {store_id, event, id} with no event ID; the docs say messages may be sent several times with the same content and must be handled idempotently',
    event_type: { json_pointer: '/event' },
    retry_horizon: '14 retries over the next three days, then the notification is lost',
    retry_source: 'https://github.com/TiendaNube/api-docs/blob/master/resources/webhook.md',
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
const cap = cases[0];
writeFileSync('capture.json', JSON.stringify({
  provider: 'nuvemshop', kind: 'nuvemshop', tenant: 'default', method: 'POST',
  path: '/webhooks/nuvemshop', query: '', headers: cap.headers,
  body_base64: Buffer.from(cap.body).toString('base64'),
  received_at: '2023-11-14T22:13:20+00:00',
  expect: { verdict: 'accepted', event_id: ok.event_id, event_type: ok.event_type, secrets: cap.secrets },
}, null, 2) + '\n');
console.log(`nuvemshop: ${cases.length} cases, 1 capture`);
