// Known-answer vectors for Linear webhooks, checked by the official SDK's
// LinearWebhookClient.verify (@linear/sdk/webhooks), which decides every verdict.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { LinearWebhookClient } from '@linear/sdk/webhooks';

const NOW = 1700000000;
const SECRET = 'lin_wh_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg';
const OTHER = 'lin_wh_b3RoZXJzZWNyZXRvdGhlcnNlY3JldG90aGVyc2U';
const HOOK_URL = 'https://hooks.example.com/webhooks/linear/acme';
const DELIVERY = '234d1a4e-b617-4388-90fe-adc3633d6b72';

// The documented payload: action, type, data, url, organizationId, and the
// webhookTimestamp (unix ms) that the signature covers because it is in the body.
const body = (tsMs) => JSON.stringify({
  action: 'create', type: 'Issue', createdAt: '2023-11-14T22:13:18.000Z',
  data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', identifier: 'ENG-42', title: 'Checkout fails on Safari', priority: 2 },
  url: 'https://linear.app/acme/issue/ENG-42', organizationId: 'e3e3fa0f-8ad0-4b67-8d3b-9b7b7a5e1c11',
  webhookTimestamp: tsMs, webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
});

// Linear's SDK has no signer; the signature is the hex HMAC-SHA256 of the raw
// body, and LinearWebhookClient.verify must accept it (checked below).
function headersFor(secret, raw) {
  return [['Content-Type', 'application/json; charset=utf-8'], ['Linear-Delivery', DELIVERY], ['Linear-Event', 'Issue'],
    ['Linear-Signature', createHmac('sha256', secret).update(raw).digest('hex')]];
}
const SIG_HEADERS = ['linear-signature'];

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'linear-signature')?.[1];
  if (!sig) return 'missing_signature';
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // verify reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        if (new LinearWebhookClient(s).verify(Buffer.from(c.body), sig)) return 'valid';
      } catch (e) {
        // Only a correct signature reaches the timestamp check.
        if (/timestamp/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/signature/.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (secret, tsMs) => { const b = body(tsMs); return { method: 'POST', url: HOOK_URL, headers: headersFor(secret, b), body: b, now: NOW, tolerance: 60 }; };
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW * 1000 - 1500;
const ok = { event_id: DELIVERY, event_type: 'Issue' };
const cases = [
  { name: 'an Issue create webhook accepted by LinearWebhookClient.verify', secrets: [SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'Linear-Signature removed', secrets: [SECRET], ...strip(req(SECRET, ts)), expect: 'missing_signature' },
  { name: 'webhookTimestamp 61 seconds old', secrets: [SECRET], ...req(SECRET, NOW * 1000 - 61000), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhookTimestamp 61 seconds in the future', secrets: [SECRET], ...req(SECRET, NOW * 1000 + 61000), expect: 'timestamp_out_of_tolerance' },
];
cases[2].body = cases[2].body.replace('ENG-42', 'ENG-43');
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'linear',
  source: { kind: 'sdk', package: '@linear/sdk', registry: 'npm', version: '98.0.0',
    function: 'LinearWebhookClient.verify (@linear/sdk/webhooks)', url: 'https://linear.app/developers/webhooks' },
  facts: {
    title: 'Linear',
    docs: 'https://linear.app/developers/webhooks',
    scheme: 'Linear-Signature = hex(HMAC-SHA256(signing secret, raw body))',
    secret: "the webhook's signing secret as Linear shows it (lin_wh_...), used as UTF-8 bytes",
    timestamp: 'webhookTimestamp in the JSON body (unix milliseconds), covered by the signature because it is in the body; the SDK rejects it more than 60 seconds from now in either direction',
    event_id: { header: 'Linear-Delivery' },
    event_id_note: 'Linear-Delivery is a UUID identifying the payload (https://linear.app/developers/webhooks); webhookTimestamp changes per attempt, so the body hash is not stable',
    event_type: { header: 'Linear-Event' },
    retry_horizon: 'at most 3 retries: after 1 minute, 1 hour and 6 hours',
    retry_source: 'https://developers.linear.app/docs/graphql/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
