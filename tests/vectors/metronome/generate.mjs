// Known-answer vectors for Metronome webhooks: signed with the official SDK's
// Webhooks.signPayload and every verdict from its Webhooks.verifySignature
// (@metronome/sdk).
import { writeFileSync } from 'node:fs';
import Metronome from '@metronome/sdk';

const NOW = 1700000000;
const SECRET = 'mtr_whsec_3b1f9a7c5e2d4b6a8c0e1f2a3b4c5d6e';
const OTHER = 'mtr_whsec_0000aaaa1111bbbb2222cccc3333dddd';
const HOOK_URL = 'https://hooks.example.com/webhooks/metronome/acme';
// The documented invoice.billing_provider_error notification: id, properties, type.
const BODY = JSON.stringify({
  id: 'c941cccc-a890-45e4-96de-3fdb8a6809f3',
  properties: {
    invoice_id: '9927e175-c1d3-4f94-875b-8906bc773a95',
    customer_id: '83518c41-76ff-4ac4-85d4-bd7010112bd3',
    billing_provider: 'STRIPE',
    billing_provider_error: "No such customer: 'cus_PQzIVPOCGb4otV'",
  },
  type: 'invoice.billing_provider_error',
});
const TAMPERED = BODY.replace('STRIPE', 'STRIPF');

const metronome = new Metronome({ bearerToken: 'unused' });
// Metronome sends an HTTP date; the signed string is the header value verbatim.
const httpDate = (ts) => new Date(ts * 1000).toUTCString();
const sign = (secret, ts, body) => metronome.webhooks.signPayload(body, { date: httpDate(ts), secret });
const headersFor = (sig, ts) => [['Content-Type', 'application/json'], ['Date', httpDate(ts)], ['X-Metronome-Date', httpDate(ts)], ['Metronome-Webhook-Signature', sig]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // verifySignature reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        metronome.webhooks.verifySignature(c.body, new Headers(c.headers), s);
        return 'valid';
      } catch (e) {
        if (/Could not find Metronome-Webhook-Signature header/.test(e.message)) return 'missing_signature';
        if (/timestamp is too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/does not match the expected signature/.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sig, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'metronome-webhook-signature') });
const ts = NOW - 2;
const ok = { event_id: 'c941cccc-a890-45e4-96de-3fdb8a6809f3', event_type: 'invoice.billing_provider_error' };
const cases = [
  { name: 'invoice.billing_provider_error signed by Webhooks.signPayload, accepted by verifySignature', secrets: [SECRET], ...req(sign(SECRET, ts, BODY), ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sign(SECRET, ts, BODY), ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sign(SECRET, ts, BODY), ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sign(SECRET, ts, BODY), ts), expect: 'invalid_signature' },
  { name: 'Metronome-Webhook-Signature removed', secrets: [SECRET], ...strip(req(sign(SECRET, ts, BODY), ts)), expect: 'missing_signature' },
  { name: 'X-Metronome-Date 301 seconds old', secrets: [SECRET], ...req(sign(SECRET, NOW - 301, BODY), NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'X-Metronome-Date 301 seconds in the future', secrets: [SECRET], ...req(sign(SECRET, NOW + 301, BODY), NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.metronome.com/developer-resources/using-the-api/webhooks/';
const out = {
  kind: 'metronome',
  source: { kind: 'sdk', package: '@metronome/sdk', registry: 'npm', version: '3.10.0',
    function: 'Webhooks.signPayload / Webhooks.verifySignature (client.webhooks)', url: DOCS },
  facts: {
    title: 'Metronome',
    docs: DOCS,
    scheme: 'Metronome-Webhook-Signature = hex(HMAC-SHA256(secret as UTF-8, X-Metronome-Date header value + "\\n" + raw body)); one signature, no prefix',
    secret: 'the webhook secret Metronome issues for the webhook destination, used verbatim as UTF-8 bytes',
    timestamp: 'X-Metronome-Date, an HTTP date (e.g. "Tue, 14 Nov 2023 22:13:18 GMT"), signed verbatim; 5 minutes either way (SDK constant). Metronome also sends Date, but proxies rewrite it; the SDK reads X-Metronome-Date since metronome-node #256',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the docs: "you can use the notification\'s id field to deduplicate": ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'exponential backoff up to a 15-minute cadence, until accepted or two days after the first attempt (~200 retries)',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
