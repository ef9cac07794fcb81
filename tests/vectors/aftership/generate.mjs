// Known-answer vectors for AfterShip Tracking webhooks, from AfterShip's own Node.js
// sample ("How to secure webhooks",
// https://tracking-helpcenter.aftership.com/en/article/learn-more-about-aftership-tracking-webhooks-13ikbe0,
// updated 27/12/2023; the same scheme on https://www.aftership.com/docs/tracking/webhook/webhook-signature).
// `generateSignature` is copied below unchanged (WEBHOOK_SECRET made a variable so that
// several secrets can be tried) and every case's verdict is whether it equals the
// aftership-hmac-sha256 header. AfterShip's SDKs have no webhook verifier.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let WEBHOOK_SECRET;
// --- the help center's sample, verbatim ---
const crypto = require('crypto');
function generateSignature(requestBodyString) {
return crypto
.createHmac('sha256', WEBHOOK_SECRET)
.update(requestBodyString, 'utf8', 'hex')
.digest('base64');
}
// --- end ---

const HELP = 'https://tracking-helpcenter.aftership.com/en/article/learn-more-about-aftership-tracking-webhooks-13ikbe0';
const DOCS = 'https://www.aftership.com/docs/tracking/webhook/webhook-signature';
const SPEC = 'https://www.aftership.com/docs/tracking/webhook/webhook-specifications';
const SECRET = 'aftership-webhook-secret-2b7e4f19c3d5';
const OTHER = 'aftership-webhook-secret-9a8b7c6d5e4f';
const HOOK_URL = 'https://hooks.example.com/webhooks/aftership';
const NOW = 1700000000;
const EVENT_ID = '1f6b7d4e-3a2c-4b5d-8e9f-0a1b2c3d4e5f';
const EVENT = 'tracking_update';
// The specification's fields: ts, event, event_id, is_tracking_first_tag, msg.
const BODY = JSON.stringify({
  msg: { id: '5b7658cec7c33c0e007de3c5', tracking_number: '111111111111', slug: 'fedex', tag: 'InTransit', subtag: 'InTransit_001' },
  is_tracking_first_tag: true, ts: 1699999990, event: EVENT, event_id: EVENT_ID,
});
const TAMPERED = BODY.replace('InTransit_001', 'InTransit_002');
const sign = (secret, body = BODY) => { WEBHOOK_SECRET = secret; return generateSignature(body); };
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['aftership-hmac-sha256', sig]])],
  body, now: NOW,
});
const ok = { event_id: EVENT_ID, event_type: EVENT };
const sig = sign(SECRET);
const cases = [
  { name: 'tracking_update, signed as AfterShip\'s sample computes it', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'aftership-hmac-sha256 removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'aftership-hmac-sha256')?.[1];
  const got = h === undefined ? 'missing_signature' : c.secrets.some((s) => sign(s, c.body) === h) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the sample says ${got}, the case says ${c.expect}`);
}
const out = {
  kind: 'aftership',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'generateSignature (help center, "How to secure webhooks")', url: HELP },
  facts: {
    title: 'AfterShip (Tracking)',
    docs: DOCS,
    scheme: 'aftership-hmac-sha256 = base64 HMAC-SHA256(webhook secret, raw body)',
    secret: 'the webhook secret from Settings > Notifications (webhooks v4.3 or above)',
    timestamp: null,
    event_id: { json_pointer: '/event_id' },
    event_id_note: `"event_id - UUID v4 format, to uniquely identify the webhook event": ${SPEC}`,
    event_type: { json_pointer: '/event' },
    retry_horizon: 're-attempted up to 14 times at 2^n x 30 s (30 s, 60 s, … 960 s before the 6th): 30 s x (2^14 - 1), about 5.7 days',
    retry_source: 'https://docs.aftership.com/api/4/webhook',
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
