// Known-answer vectors for Zendesk webhooks, from the docs' own "NodeJS verification example"
// (https://developer.zendesk.com/documentation/webhooks/verifying/): its isValidSignature function runs
// unchanged below (SIGNING_SECRET supplied per case instead of the sample's constant). Zendesk
// publishes no SDK that verifies webhooks. Node's crypto only: no package.json.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';

const require = createRequire(import.meta.url);
const crypto = require('crypto');

// Always sha256
const SIGNING_SECRET_ALGORITHM = 'sha256';
let SIGNING_SECRET;

// --- the docs' sample, verbatim ---------------------------------------------------------------
function isValidSignature(signature, body, timestamp) {
  let hmac = crypto.createHmac(SIGNING_SECRET_ALGORITHM, SIGNING_SECRET);
  let sig = hmac.update(timestamp + body).digest("base64");

  return (
    Buffer.compare(
      Buffer.from(signature),
      Buffer.from(sig.toString("base64"))
    ) === 0
  );
}
// ----------------------------------------------------------------------------------------------

const NOW = 1700000000;
// The docs' static test secret (test requests sent before a webhook exists are signed with it).
const SECRET = 'dGhpc19zZWNyZXRfaXNfZm9yX3Rlc3Rpbmdfb25seQ==';
const OTHER = 'Zm9yX2Fub3RoZXJfd2ViaG9va19vbmx5X25vdF90aGlz';
const HOOK_URL = 'https://hooks.example.com/webhooks/zendesk';
const iso = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
// An event-subscription payload (zen:event-type:ticket.created), trimmed.
const BODY = JSON.stringify({
  account_id: 22129848, detail: { id: '35436', subject: 'Help, my printer is on fire!', status: 'NEW', requester_id: '20978392' },
  event: {}, id: 'cbe4028c-7239-495d-b020-f22348516046', subject: 'zen:ticket:35436', time: '2023-11-14T22:13:15.000000000Z',
  type: 'zen:event-type:ticket.created', zendesk_event_version: '2022-11-06',
});
const TAMPERED = BODY.replace('on fire', 'on firm');

const sign = (secret, ts, body = BODY) => crypto.createHmac('sha256', secret).update(ts + body).digest('base64');
const req = (sig, ts, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ['X-Zendesk-Webhook-Signature', sig], ['X-Zendesk-Webhook-Signature-Timestamp', ts]],
  body, now: NOW,
});
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k !== 'X-Zendesk-Webhook-Signature') });
const TS = iso(NOW);
const sig = sign(SECRET, TS);
const cases = [
  { name: 'ticket.created with base64 HMAC-SHA256(timestamp + body), accepted by the docs\' sample', secrets: [SECRET], ...req(sig, TS), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig, TS), expect: 'valid' },
  { name: 'body + timestamp (the order an older page printed) is rejected', secrets: [SECRET], ...req(crypto.createHmac('sha256', SECRET).update(BODY + TS).digest('base64'), TS), expect: 'invalid_signature' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TS, TAMPERED), expect: 'invalid_signature' },
  { name: 'the timestamp header changed after signing', secrets: [SECRET], ...req(sig, iso(NOW + 1)), expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(sig, TS), expect: 'invalid_signature' },
  { name: 'X-Zendesk-Webhook-Signature removed', secrets: [SECRET], ...strip(req(sig, TS)), expect: 'missing_signature' },
  { name: 'signed 10 minutes before it is verified', secrets: [SECRET], ...req(sign(SECRET, iso(NOW - 600)), iso(NOW - 600)), expect: 'timestamp_out_of_tolerance' },
  { name: 'signed 10 minutes after it is verified', secrets: [SECRET], ...req(sign(SECRET, iso(NOW + 600)), iso(NOW + 600)), expect: 'timestamp_out_of_tolerance' },
];

for (const c of cases) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let got;
  if (h['x-zendesk-webhook-signature'] === undefined) got = 'missing_signature';
  else {
    const ts = h['x-zendesk-webhook-signature-timestamp'];
    const ok = c.secrets.some((s) => { SIGNING_SECRET = s; return isValidSignature(h['x-zendesk-webhook-signature'], c.body, ts); });
    got = ok ? 'valid' : 'invalid_signature';
    // The sample checks no time; the tolerance (default 300 s) is hookline's.
    if (ok && Math.abs(Date.parse(ts) / 1000 - c.now) > 300) got = 'timestamp_out_of_tolerance';
  }
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developer.zendesk.com/documentation/webhooks/verifying/';
const out = {
  kind: 'zendesk',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' "NodeJS verification example" isValidSignature', url: DOCS },
  facts: {
    title: 'Zendesk',
    docs: DOCS,
    scheme: 'X-Zendesk-Webhook-Signature = base64(HMAC-SHA256(signing secret as UTF-8, X-Zendesk-Webhook-Signature-Timestamp + raw body))',
    secret: 'the webhook\'s signing secret (Admin Center: Reveal secret, or GET /api/v2/webhooks/{id}/signing_secret), used verbatim as UTF-8, not base64-decoded',
    timestamp: 'X-Zendesk-Webhook-Signature-Timestamp, ISO 8601 UTC (2021-07-25T10:00:00Z), signed verbatim; no documented tolerance: hookline\'s default 300 s',
    event_id: { body_sha256: true },
    event_id_note: 'trigger and automation webhooks carry a body the admin writes, with no ID Zendesk guarantees; the signature covers the body: ' + DOCS,
    event_type: null,
    retry_horizon: 'not stated on the verifying page: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
