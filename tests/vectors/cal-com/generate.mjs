// Known-answer vectors for Cal.com webhooks, signed by Cal.com's own sender
// code: createWebhookSignature in packages/features/webhooks/lib/sendPayload.ts
// of github.com/calcom/cal.com (commit 008952de0ac2d35c3056ac98034e1012033c0867),
// copied verbatim below, and the body built as its sendPayload builds it.
// Cal.com is open source; this function is what its servers run to fill the
// X-Cal-Signature-256 header. There is no receiver-side SDK.
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import { withIdentity } from '../identity.mjs';

// --- Cal.com's sender, verbatim ---------------------------------------------
const createWebhookSignature = (params) =>
  params.secret
    ? createHmac("sha256", params.secret).update(`${params.body}`).digest("hex")
    : "no-secret-provided";
// ---------------------------------------------------------------------------

const SECRET = 'c2a9f0e4b7d14e6f8a3b5c1d9e7f2a4b6c8d0e1f3a5b7c9d';
const OTHER = '7f3e1d9c5b2a4f6e8d0c1b3a5e7f9d2c4b6a8e0f1d3c5b7a';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/cal-com';
const SIG_HEADER = 'X-Cal-Signature-256';
// sendPayload's default body: JSON.stringify({ triggerEvent, createdAt, payload }).
const BODY = JSON.stringify({
  triggerEvent: 'BOOKING_CREATED',
  createdAt: '2023-11-14T22:13:15.000Z',
  payload: {
    type: '30min', title: '30 Min Meeting between Pro Example and Alice', description: '',
    startTime: '2023-11-20T10:00:00Z', endTime: '2023-11-20T10:30:00Z',
    organizer: { id: 5, name: 'Pro Example', email: 'pro@example.com', timeZone: 'Europe/London', language: { locale: 'en' }, utcOffset: 0 },
    attendees: [{ name: 'Alice', email: 'alice@example.com', timeZone: 'Europe/Berlin', language: { locale: 'en' }, utcOffset: 60 }],
    uid: 'bFJeNb2uX8ANpT3JL5EfXw', bookingId: 91, status: 'ACCEPTED',
  },
});

function request({ secret = SECRET, body = BODY, sigBody = body, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, createWebhookSignature({ secret, body: sigBody })]);
  return { method: 'POST', url: URL, headers, body };
}
const flip = (b) => b.replace('"bFJeNb2uX8ANpT3JL5EfXw"', '"bFJeNb2uX8ANpT3JL5EfXx"');
const TYPE = 'BOOKING_CREATED';
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid', event_type: TYPE },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ body: flip(BODY), sigBody: BODY }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'a webhook saved without a secret sends "no-secret-provided"', secrets: [SECRET], ...request({ secret: null }), expect: 'invalid_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_type: TYPE },
].map((c) => ({ ...c, now: NOW }));

// The receiver's verdict: the signature Cal.com's function gives for the body
// and the tenant's secret, compared with the header.
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  const got = header(c, SIG_HEADER);
  const v = got === undefined ? 'missing_signature'
    : c.secrets.some((s) => createWebhookSignature({ secret: s, body: c.body }) === got) ? 'valid' : 'invalid_signature';
  if (v !== c.expect) throw new Error(`${c.name}: Cal.com's function says ${v}, the case says ${c.expect}`);
}

const out = {
  kind: 'cal-com',
  source: {
    kind: 'docs-code', package: '', registry: '', version: 'calcom/cal.com@008952de0ac2d35c3056ac98034e1012033c0867',
    function: 'createWebhookSignature (packages/features/webhooks/lib/sendPayload.ts, the sender)',
    url: 'https://github.com/calcom/cal.com/blob/008952de0ac2d35c3056ac98034e1012033c0867/packages/features/webhooks/lib/sendPayload.ts',
  },
  facts: {
    title: 'Cal.com',
    docs: 'https://cal.com/docs/developing/guides/automation/webhooks',
    scheme: 'X-Cal-Signature-256 = hex HMAC-SHA256(webhook secret, raw body); "no-secret-provided" when the webhook has no secret',
    secret: "the webhook's Secret (Settings > Developer > Webhooks), used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body carries triggerEvent, createdAt and the booking, no delivery or event ID, so the body hash is used: https://cal.com/docs/developing/guides/automation/webhooks',
    event_type: { json_pointer: '/triggerEvent' },
    retry_horizon: 'not documented; use the default window',
    retry_source: 'https://cal.com/docs/developing/guides/automation/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`cal-com: ${cases.length} cases`);
