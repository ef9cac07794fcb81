// Known-answer vectors for Box webhooks (V2), signed by the official SDK's
// computeWebhookSignature and checked by WebhooksManager.validateMessage (box-node-sdk).
import { writeFileSync } from 'node:fs';
import { WebhooksManager } from 'box-node-sdk/lib/managers/webhooks';
import { computeWebhookSignature } from 'box-node-sdk/lib/internal/utilsNode';

const NOW = 1700000000;
const PRIMARY = 'SamplePrimaryKey0123456789abcdef';
const SECONDARY = 'SampleSecondaryKeyfedcba98765432';
const OTHER = 'SomeoneElsesKey00000000000000000';
const HOOK_URL = 'https://hooks.example.com/webhooks/box/acme';
// The documented payload: type "webhook_event", the event id, the trigger, the webhook and the source.
const BODY = JSON.stringify({
  type: 'webhook_event', id: 'eb0c4e06-751f-442c-86f8-fd5bb404976d', created_at: '2023-11-14T14:13:00-08:00',
  trigger: 'FILE.UPLOADED', webhook: { id: '53', type: 'webhook' },
  created_by: { type: 'user', id: '2', name: 'John Q. Developer', login: 'johnq@example.net' },
  source: { id: '73', type: 'file', name: 'contract.pdf' },
});
const TAMPERED = BODY.replace('"73"', '"74"');
const iso = (unix) => new Date(unix * 1000).toISOString().replace('.000Z', '+00:00');

// Box sends one signature per configured key, both over body + BOX-DELIVERY-TIMESTAMP.
async function headersFor(primary, secondary, body, ts) {
  const h = { 'box-signature-version': '1', 'box-signature-algorithm': 'HmacSHA256', 'box-delivery-timestamp': iso(ts) };
  return [['Content-Type', 'application/json; charset=UTF-8'], ['BOX-DELIVERY-ID', '673a081b-bb4b-4d45-b4f1-4131a29c1d07'],
    ['BOX-DELIVERY-TIMESTAMP', h['box-delivery-timestamp']],
    ['BOX-SIGNATURE-PRIMARY', await computeWebhookSignature(body, h, primary)],
    ['BOX-SIGNATURE-SECONDARY', await computeWebhookSignature(body, h, secondary)],
    ['BOX-SIGNATURE-VERSION', '1'], ['BOX-SIGNATURE-ALGORITHM', 'HmacSHA256'], ['USER-AGENT', 'Box-WH-Client/0.1']];
}
const SIG_HEADERS = ['box-signature-primary', 'box-signature-secondary'];

// The SDK's verdict: validateMessage with each configured key as both the primary
// and the secondary key (hookline accepts any configured secret on either header).
async function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (!h['box-signature-primary'] && !h['box-signature-secondary']) return 'missing_signature';
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // validateMessage reads the clock itself
  try {
    for (const s of c.secrets) {
      if (await WebhooksManager.validateMessage(c.body, h, s, { secondaryKey: s, maxAge: c.tolerance })) return 'valid';
    }
    // validateMessage answers false for both a stale time and a bad signature;
    // tell them apart with a clock at the delivery time.
    Date.now = () => Date.parse(h['box-delivery-timestamp']);
    for (const s of c.secrets) {
      if (await WebhooksManager.validateMessage(c.body, h, s, { secondaryKey: s, maxAge: c.tolerance })) return 'timestamp_out_of_tolerance';
    }
    return 'invalid_signature';
  } finally {
    Date.now = realNow;
  }
}

const req = async (ts, body = BODY, p = PRIMARY, s = SECONDARY) =>
  ({ method: 'POST', url: HOOK_URL, headers: await headersFor(p, s, body, ts), body, now: NOW, tolerance: 600 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW - 3;
const ok = { event_id: 'eb0c4e06-751f-442c-86f8-fd5bb404976d', event_type: 'FILE.UPLOADED' };
const cases = [
  { name: 'FILE.UPLOADED signed with both keys by computeWebhookSignature, tenant holds the primary key', secrets: [PRIMARY], ...(await req(ts)), expect: 'valid', ...ok },
  { name: 'key rotation: the tenant holds only the secondary key, which BOX-SIGNATURE-SECONDARY verifies', secrets: [SECONDARY], ...(await req(ts)), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [PRIMARY, SECONDARY], ...(await req(ts)), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another key', secrets: [OTHER], ...(await req(ts)), expect: 'invalid_signature' },
  { name: 'both BOX-SIGNATURE headers removed', secrets: [PRIMARY], ...strip(await req(ts)), expect: 'missing_signature' },
  { name: 'delivery timestamp 601 seconds old', secrets: [PRIMARY], ...(await req(NOW - 601)), expect: 'timestamp_out_of_tolerance' },
  { name: 'delivery timestamp 601 seconds in the future', secrets: [PRIMARY], ...(await req(NOW + 601)), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'box',
  source: { kind: 'sdk', package: 'box-node-sdk', registry: 'npm', version: '10.12.0',
    function: 'computeWebhookSignature / WebhooksManager.validateMessage', url: 'https://developer.box.com/guides/webhooks/v2/signatures-v2/' },
  facts: {
    title: 'Box',
    docs: 'https://developer.box.com/guides/webhooks/v2/signatures-v2/',
    scheme: 'BOX-SIGNATURE-PRIMARY / BOX-SIGNATURE-SECONDARY = base64(HMAC-SHA256(primary / secondary signature key, raw body + BOX-DELIVERY-TIMESTAMP)); BOX-SIGNATURE-VERSION 1, BOX-SIGNATURE-ALGORITHM HmacSHA256',
    secret: "the application's primary and/or secondary signature key (Developer Console > app > Webhooks > Manage signature keys)",
    timestamp: 'BOX-DELIVERY-TIMESTAMP, RFC 3339 text, signed (appended to the body); the SDK rejects one older than maxAge (default 600 s) or in the future at all',
    event_id: { json_pointer: '/id' },
    event_id_note: '"BOX-DELIVERY-ID ... When Box retries a webhook this ID will change, while the ID in the payload body remains the same": https://developer.box.com/guides/webhooks/v2/',
    event_type: { json_pointer: '/trigger' },
    retry_horizon: 'Box retries a delivery that gets no 2xx within 30 seconds; the pages consulted give no count or horizon, so keep the default window',
    retry_source: 'https://developer.box.com/guides/webhooks/v2/',
    handshake: null,
  },
  cases,
};
// The definition's tolerance, the same as the SDK's, is the one in force.
for (const c of out.cases) delete c.tolerance;
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
