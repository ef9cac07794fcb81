// Known-answer vectors for Knock outbound webhooks, from the docs' own "Validating a webhook payload with
// your secret key" sample (https://docs.knock.app/developer-tools/outbound-webhooks/overview#verifying-the-signature,
// source knocklabs/docs content/developer-tools/outbound-webhooks/overview.mdx at 260c3edb): its lines run
// unchanged below inside a function taking (request, webhookSecret, now). Neither @knocklabs/node nor knockapi
// verifies webhooks. Node's crypto only: no package.json.
//
// The sample reads the body with express.raw() and then JSON.stringify()s it, which for a Buffer would give
// '{"type":"Buffer",...}'; the page's prose says the signed value is "the stringified JSON payload", so the
// sample is run with request.body as the parsed payload (what express.json() gives). Knock sends compact JSON,
// for which JSON.stringify(JSON.parse(raw)) === raw, so the signed string is the raw body.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const crypto = require('crypto');

function docsSample(request, webhookSecret, now) {
  // --- the docs' sample, verbatim (from `const sig = ...` to `isWithinFiveMinutes`) ----------
    const sig = request.headers["x-knock-signature"];

    // Extract the timestamp and signature from the header and remove the identifiers
    const timestamp = sig.split(",")[0].substring(2);
    const originalSignature = sig.split(",")[1].substring(2);
    // Construct the value to be encoded (stringify the body)
    const value = `${timestamp}.${JSON.stringify(request.body)}`;

    // Generate the signature with a HMAC using the SHA256 algorithm
    const reconstructedSignature = crypto
      .createHmac("sha256", webhookSecret)
      .update(value)
      .digest("base64");

    // Compare the signature from the header with your reconstructed signature to validate
    const isValid = crypto.timingSafeEqual(
      Buffer.from(originalSignature, "utf-8"),
      Buffer.from(reconstructedSignature, "utf-8"),
    );

    // For additional security, validate that the timestamp is within your
    // tolerance for proximity to the current time (example shown within 5 minutes)
    const date = new Date(parseInt(timestamp, 10));
    // (Date.now() replaced by the case's fixed time)
    const isWithinFiveMinutes = Math.abs(now - date.getTime()) < 300000;
  // ---------------------------------------------------------------------------------------------
  return { isValid, isWithinFiveMinutes };
}

const NOW_MS = 1700000000000;
const SECRET = 'knock_whsec_3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e';
const OTHER = 'knock_whsec_0a2c4e6f8b1d3f5a7c9e0b2d4f6a8c1e';
const HOOK_URL = 'https://hooks.example.com/webhooks/knock';
// The docs' base event shape with a message.sent payload (trimmed).
const BODY = JSON.stringify({
  __typename: 'Event', type: 'message.sent', created_at: '2023-11-14T22:13:15.958652Z',
  data: { __typename: 'Message', id: '2HWjxOWKbTSo0JQAYuPh9JzdlS8', channel_id: '3ee3f4f0-3d2f-4b5e-9c1a-0a1b2c3d4e5f', recipient: 'user-42', workflow: 'welcome', status: 'sent', inserted_at: '2023-11-14T22:13:14.000000Z', updated_at: '2023-11-14T22:13:15.000000Z' },
  event_data: { __typename: 'EventData' },
});
const TAMPERED = BODY.replace('user-42', 'user-43');

const sign = (secret, t, body = BODY) => crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('base64');
const header = (secret, t, body = BODY) => `t=${t},s=${sign(secret, t, body)}`;
const req = (sig, body = BODY, nowMs = NOW_MS) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ['x-knock-event', 'message.sent'], ['x-knock-environment-id', 'c3d5e7f9-0000-4000-8000-000000000001'], ...(sig === null ? [] : [['x-knock-signature', sig]])],
  body, now: Math.floor(nowMs / 1000), nowMs,
});
const T = NOW_MS - 1500;
const ok = { event_type: 'message.sent' };
const cases = [
  { name: 'message.sent with t=<unix ms>,s=<base64 HMAC-SHA256(t.body)>, accepted by the docs\' sample', secrets: [SECRET], ...req(header(SECRET, T)), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(header(SECRET, T)), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(header(SECRET, T), TAMPERED), expect: 'invalid_signature' },
  { name: 'the signature over another timestamp than t=', secrets: [SECRET], ...req(`t=${T + 1},s=${sign(SECRET, T)}`), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(header(SECRET, T)), expect: 'invalid_signature' },
  { name: 'x-knock-signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
  { name: 'signed 10 minutes before it is verified', secrets: [SECRET], ...req(header(SECRET, NOW_MS - 600000)), expect: 'timestamp_out_of_tolerance' },
  { name: 'signed 10 minutes after it is verified', secrets: [SECRET], ...req(header(SECRET, NOW_MS + 600000)), expect: 'timestamp_out_of_tolerance' },
];

for (const c of cases) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let got;
  if (h['x-knock-signature'] === undefined) got = 'missing_signature';
  else {
    const request = { headers: h, body: JSON.parse(c.body) };
    const results = c.secrets.map((s) => docsSample(request, s, c.nowMs));
    const valid = results.find((r) => r.isValid);
    got = !valid ? 'invalid_signature' : valid.isWithinFiveMinutes ? 'valid' : 'timestamp_out_of_tolerance';
  }
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
  delete c.nowMs;
}

const DOCS = 'https://docs.knock.app/developer-tools/outbound-webhooks/overview';
const out = {
  kind: 'knock',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' "Validating a webhook payload with your secret key" sample', url: DOCS + '#verifying-the-signature' },
  facts: {
    title: 'Knock (outbound webhooks)',
    docs: DOCS,
    scheme: 'x-knock-signature: t=<unix ms>,s=<base64(HMAC-SHA256(webhook secret as UTF-8, t + "." + JSON body))>',
    secret: 'the webhook\'s signing secret from its page in the Knock dashboard, used verbatim as UTF-8',
    timestamp: 't= in x-knock-signature, unix milliseconds, signed; the docs\' sample rejects more than 5 minutes either way',
    event_id: { body_sha256: true },
    event_id_note: 'the event payload (__typename, type, created_at, data, event_data) carries no event ID and no delivery ID header is documented; the signed body is the identity',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'up to 8 attempts on 3xx/4xx/5xx or timeout, no schedule given: default window',
    retry_source: DOCS + '#retries',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
