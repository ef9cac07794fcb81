// Known-answer vectors for Coinbase Commerce, signed by the official SDK's
// Webhook.computeSignature and checked by Webhook.verifyEventBody (coinbase-commerce-node).
import { writeFileSync } from 'node:fs';
import coinbase from 'coinbase-commerce-node';

const { Webhook } = coinbase;
const NOW = 1700000000;
const SECRET = '4b8f3e2a-6c1d-4e5f-9a7b-2c3d4e5f6a7b';
const OTHER = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const HOOK_URL = 'https://hooks.example.com/webhooks/coinbase-commerce/acme';
// The documented webhook shape: a delivery wrapping the event under "event".
const BODY = JSON.stringify({
  id: 1, scheduled_for: '2023-11-14T22:13:10Z', attempt_number: 1,
  event: { id: '24934862-d980-46cb-9402-43c81b0cdba6', resource: 'event', type: 'charge:created', api_version: '2018-03-22',
    created_at: '2023-11-14T22:13:09Z',
    data: { code: '66BEOV2A', name: 'The Sovereign Individual', description: 'Mastering the Transition to the Information Age',
      hosted_url: 'https://commerce.coinbase.com/charges/66BEOV2A', pricing_type: 'no_price' } },
});
const TAMPERED = BODY.replace('66BEOV2A', '66BEOV2B');

const headersFor = (secret, body) => [['Content-Type', 'application/json'], ['X-CC-Webhook-Signature', Webhook.computeSignature(body, secret)]];
const SIG_HEADERS = ['x-cc-webhook-signature'];

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'x-cc-webhook-signature')?.[1];
  if (!sig) return 'missing_signature';
  for (const s of c.secrets) {
    try {
      Webhook.verifyEventBody(c.body, sig, s);
      return 'valid';
    } catch (e) {
      if (!/No signatures found/.test(e.message)) throw e; // SignatureVerificationError
    }
  }
  return 'invalid_signature';
}

const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_id: '24934862-d980-46cb-9402-43c81b0cdba6', event_type: 'charge:created' };
const cases = [
  { name: 'a charge:created event signed by Webhook.computeSignature', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another shared secret', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'X-CC-Webhook-Signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'coinbase-commerce',
  source: { kind: 'sdk', package: 'coinbase-commerce-node', registry: 'npm', version: '1.0.4',
    function: 'Webhook.computeSignature / Webhook.verifyEventBody', url: 'https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-overview' },
  facts: {
    title: 'Coinbase Commerce',
    docs: 'https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-overview',
    scheme: 'X-CC-Webhook-Signature = hex(HMAC-SHA256(webhook shared secret, raw body))',
    secret: 'the shared webhook secret from Settings > Webhook subscriptions > Show shared secret',
    timestamp: null,
    event_id: { json_pointer: '/event/id' },
    event_id_note: 'the body wraps the event under "event"; event.id is the event\'s UUID, the same on every delivery attempt of it (the outer id and attempt_number describe the delivery): https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-overview',
    event_type: { json_pointer: '/event/type' },
    retry_horizon: 'exponential backoff for up to three days, at most 1 hour between tries',
    retry_source: 'https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-overview',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
