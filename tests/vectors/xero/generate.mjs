// Known-answer vectors for Xero webhooks, checked by Xero's own PHP receiver
// example (github.com/XeroAPI/xero-php-webhook, index.php, "Based on Xero
// developer document https://developer.xero.com/documentation/webhooks/overview"):
// its signature lines are run by `php` below. No Xero SDK verifies webhooks.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { withIdentity } from '../identity.mjs';

const SECRET = 'xeroTestWebhookKey0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ+/==';
const OTHER = 'xeroOtherWebhookKey9876543210zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQ+/==';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/xero';
const SIG_HEADER = 'x-xero-signature';
const EVENT_TYPE = 'UPDATE';
// The documented payload shape: https://developer.xero.com/documentation/guides/webhooks/overview/
const BODY = JSON.stringify({
  events: [{
    resourceUrl: 'https://api.xero.com/api.xro/2.0/Contacts/717f2bfc-c6d4-41fd-b238-3f2f0c0cf777',
    resourceId: '717f2bfc-c6d4-41fd-b238-3f2f0c0cf777',
    eventDateUtc: '2023-11-14T22:13:15.737',
    eventType: 'UPDATE',
    eventCategory: 'CONTACT',
    tenantId: 'c2cc9b6e-9458-4c7d-93cc-f02b81b0594f',
    tenantType: 'ORGANISATION',
  }],
  lastEventSequence: 1,
  firstEventSequence: 1,
  entropy: 'S0m3r4Nd0mt3xt',
});
// Each item of `events` is an event of its own (hookline's `batch`), with no
// ID: its ID is the SHA-256 of the item's bytes, which in this compact body are
// JSON.stringify of the item. A case names its first item's ID and type.
const FIRST_ITEM_SHA256 = crypto.createHash('sha256').update(JSON.stringify(JSON.parse(BODY).events[0])).digest('hex');
const FLIP_FROM = '"CONTACT"';
const FLIP_TO = '"CONTACS"';

// Xero's example, its signature lines verbatim; PHP prints 200 or 401 as the
// example answers.
const PHP = `$rawPayload = file_get_contents($argv[1]);
$webhookKey = $argv[2];
$xeroSignatureKey = $argv[3];
// Compute the payload with HMACSHA256 with base64 encoding
$computedSignatureKey = base64_encode(
  hash_hmac('sha256', $rawPayload, $webhookKey, true)
);
if (hash_equals($computedSignatureKey, $xeroSignatureKey)) {
  echo 200;
} else {
  echo 401;
}`;
function xeroAnswers(body, key, signature) {
  fs.writeFileSync('.body.tmp', body);
  try {
    return execFileSync('php', ['-r', PHP, '--', '.body.tmp', key, signature]).toString();
  } finally {
    fs.unlinkSync('.body.tmp');
  }
}

const sign = (secret, b = BODY) => crypto.createHmac('sha256', secret).update(b).digest('base64');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
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
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: FIRST_ITEM_SHA256, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => xeroAnswers(c.body, secret, header(c, SIG_HEADER)) === '200';
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

// "Intent to receive": before enabling a webhook Xero sends signed payloads with
// no events, some with a correct and some with an incorrect signature, and
// expects 200 and 401 respectively, each with an empty body.
const ITR = JSON.stringify({ events: [], firstEventSequence: 0, lastEventSequence: 0, entropy: 'YSXPYYFTAGXCWVLVLUKE' });
const itr = (sig) => ({ method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], [SIG_HEADER, sig]], body: ITR });
const handshakes = [
  { name: 'intent to receive, correctly signed', secrets: [SECRET], verify_token: null, request: itr(sign(SECRET, ITR)), now: NOW, expect: { status: 200, content_type: null, body: '', headers: [] } },
  { name: 'intent to receive, incorrectly signed', secrets: [SECRET], verify_token: null, request: itr(sign(OTHER, ITR)), now: NOW, expect: { status: 401, content_type: null, body: '', headers: [] } },
];
for (const h of handshakes) {
  const got = xeroAnswers(h.request.body, SECRET, h.request.headers[1][1]);
  if (Number(got) !== h.expect.status) throw new Error(`${h.name}: Xero's example answers ${got}`);
}

const out = {
  kind: 'xero',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: "XeroAPI/xero-php-webhook index.php (Xero's own example, run with php)",
    url: 'https://developer.xero.com/documentation/guides/webhooks/overview/',
  },
  facts: {
    title: 'Xero',
    docs: 'https://developer.xero.com/documentation/guides/webhooks/overview/',
    scheme: 'x-xero-signature = base64 HMAC-SHA256(webhook key, raw body)',
    secret: "the webhook key shown in the app's Webhooks settings (developer.xero.com > My Apps), used as UTF-8 bytes",
    timestamp: null,
    batch: '/events',
    event_id: { body_sha256: true },
    event_id_note: 'a delivery batches events (each item its own event) and neither it nor an event carries an ID: each item\'s SHA-256: https://developer.xero.com/documentation/guides/webhooks/overview/',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://developer.xero.com/documentation/guides/webhooks/overview/',
    handshake: 'intent to receive: signed POSTs with "events": [], answered 200 when the signature is right and 401 when it is wrong, always with an empty body: https://developer.xero.com/documentation/guides/webhooks/configuring-your-server/',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`xero: ${cases.length} cases, ${handshakes.length} handshakes`);
