// Known-answer vectors for Whop webhooks (Standard Webhooks): every request
// is signed with standardwebhooks' Webhook.sign and every verdict is the
// official SDK's, @whop/sdk's client.webhooks.unwrap (which verifies with
// standardwebhooks, its dependency, keyed with the client's webhookKey).
// It also writes the provider's corpus captures (tests/captures/whop/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import Whop from '@whop/sdk';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const KEY = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const CORPUS_KEY = 'whsec_Y29ycHVzLXdob3Atd2ViaG9vay1rZXk=';
const MSG_ID = 'msg_2hWy3MWj9zEh7DMb0Qw5FyRn6ct';
const URL_ = 'https://hooks.example.com/webhooks/whop/acme';
// A payment.succeeded event in the SDK's envelope (resources/webhooks.d.ts:
// id "a unique ID for every single webhook request", api_version, data,
// timestamp "that the webhook was sent at", type, company_id), data trimmed.
const event = (requestId, sentAt) => ({
  id: requestId, api_version: 'v1', type: 'payment.succeeded', timestamp: sentAt, company_id: 'biz_xxxxxxxxxxxxxx',
  data: { id: 'pay_xxxxxxxxxxxxxx', status: 'paid', substatus: 'succeeded', currency: 'usd', total: 10, subtotal: 10, user: { id: 'user_xxxxxxxxxxxxx', username: 'jdoe' } },
});
const BODY = JSON.stringify(event('wh_req_01JZ3K4M5N6P7Q8R9S0T', '2023-11-14T22:13:18.000Z'));
const TAMPERED = BODY.replace('"jdoe"', '"jdoa"');
const H = { id: 'webhook-id', ts: 'webhook-timestamp', sig: 'webhook-signature' };
const sign = (key, ts, body) => new Webhook(key).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], [H.id, MSG_ID], [H.ts, String(ts)], [H.sig, sigs.join(' ')]];

// The SDK's verdict: a client per configured key, as an application would build it.
function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
    if (!headers[H.sig]) return 'missing_signature';
    let verdict = 'invalid_signature';
    for (const key of c.secrets) {
      const client = new Whop({ apiKey: 'test-api-key', webhookKey: key });
      try {
        client.webhooks.unwrap(c.body, { headers });
        return 'valid';
      } catch (e) {
        if (/timestamp too (old|new)/i.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/No matching signature/i.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: URL_, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== H.sig) });
const ts = NOW - 2;
const cases = [
  { name: 'payment.succeeded signed by standardwebhooks, accepted by webhooks.unwrap', secrets: [KEY], ...req([sign(KEY, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the header carries the old and the new key\'s signatures, the tenant holds only the new', secrets: [KEY], ...req([sign(OLD, ts, BODY), sign(KEY, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, KEY], ...req([sign(KEY, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [KEY], ...req([sign(KEY, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another key', secrets: [OTHER], ...req([sign(KEY, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [KEY], ...strip(req([sign(KEY, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [KEY], ...req([sign(KEY, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [KEY], ...req([sign(KEY, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case expects ${c.expect}`);
}

const out = withIdentity({
  kind: 'whop',
  source: { kind: 'sdk', package: '@whop/sdk', registry: 'npm', version: '0.0.42',
    function: 'client.webhooks.unwrap (verifies with standardwebhooks 1.1.1); signed with standardwebhooks 1.1.1 Webhook#sign',
    url: 'https://www.npmjs.com/package/@whop/sdk' },
  facts: {
    title: 'Whop',
    docs: 'https://www.npmjs.com/package/@whop/sdk',
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body))>", the key being the SDK\'s webhookKey read as Standard Webhooks reads a secret (whsec_ prefix optional, then base64)',
    secret: 'the value the SDK takes as webhookKey (WHOP_WEBHOOK_SECRET), base64 with an optional whsec_ prefix',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is the Standard Webhooks message ID, the same on every retry; the body\'s id is "a unique ID for every single webhook request" and its timestamp the send time (@whop/sdk resources/webhooks.d.ts): both describe the request, so a retry may rewrite them',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the pages read',
    retry_source: 'https://www.npmjs.com/package/@whop/sdk',
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus: the event, then its retry (same webhook-id; the body's
// per-request id and send timestamp rewritten), which is a duplicate.
const dir = new URL('../../captures/whop/', import.meta.url);
mkdirSync(dir, { recursive: true });
const first = JSON.stringify(event('wh_req_01KDX0A1B2C3D4E5F6G7', '2026-01-01T00:00:00.000Z'));
const retry = JSON.stringify(event('wh_req_01KDX0H8J9K0L1M2N3P4', '2026-01-01T00:05:00.000Z'));
const files = [['0001-payment.succeeded.json', SENT_AT, first, 'accepted', 'a payment.succeeded event'],
  ['0002-payment.succeeded-retry.json', SENT_AT + 300, retry, 'duplicate', 'its retry: the same webhook-id, the body\'s per-request id and send timestamp rewritten, as the SDK\'s types allow (@whop/sdk resources/webhooks.d.ts)']];
for (const [name, at, body] of files) {
  const headers = headersFor([sign(CORPUS_KEY, at, body)], at);
  const verdict = sdkVerdict({ headers, body, secrets: [CORPUS_KEY], now: at });
  if (verdict !== 'valid') throw new Error(`capture ${name}: the SDK says ${verdict}`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'whop', kind: 'whop', tenant: 'default', method: 'POST', path: '/webhooks/whop', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'whop', kind: 'whop', secrets: [CORPUS_KEY],
  source: 'signed by standardwebhooks 1.1.1 Webhook#sign, checked by @whop/sdk 0.0.42 webhooks.unwrap (tests/vectors/whop/generate.mjs)',
  captures: files.map(([name, , , expect, why]) => ({ file: `whop/${name}`, expect, events: [{ id: MSG_ID, type: 'payment.succeeded' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
