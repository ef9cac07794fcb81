// Known-answer vectors for Retell AI webhooks: signed with the official SDK's
// Retell.sign and every verdict from its Retell.verify (retell-sdk).
import { writeFileSync } from 'node:fs';
import Retell from 'retell-sdk';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// Retell signs with the account's API key (the one with the webhook badge).
const API_KEY = 'key_5e3f8a1b9c2d4e6f7a8b9c0d1e2f';
const OTHER = 'key_0a0b0c0d0e0f1a1b1c1d1e1f2a2b';
const HOOK_URL = 'https://hooks.example.com/webhooks/retell/acme';
// The documented call_ended payload: {event, call}, call being the get-call object. The
// transcript carries an accented word: the HMAC is over the body's UTF-8 bytes.
const BODY = JSON.stringify({
  event: 'call_ended',
  call: {
    call_type: 'phone_call', from_number: '+12137771234', to_number: '+12137771235', direction: 'inbound',
    call_id: 'Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6', agent_id: 'oBeDLoLOeuAbiuaMFXRtDOLriTJ5tSxD',
    call_status: 'ended', metadata: {}, retell_llm_dynamic_variables: { customer_name: 'John Doe' },
    start_timestamp: 1714608475945, end_timestamp: 1714608491736, disconnection_reason: 'user_hangup',
    transcript: 'Agent: Hola, ¿en qué puedo ayudarle?\nUser: Nada más, adiós.', opt_out_sensitive_data_storage: false,
  },
});
const TAMPERED = BODY.replace('user_hangup', 'user_hangop');

async function withClock(ms, fn) {
  const realNow = Date.now;
  Date.now = () => ms; // sign and verify read the clock themselves
  try { return await fn(); } finally { Date.now = realNow; }
}
// Sent at ts seconds plus 345 ms: the header's v= is unix milliseconds.
const sign = (key, ts, body) => withClock(ts * 1000 + 345, () => Retell.sign(body, key));
const headersFor = (sig) => [['Content-Type', 'application/json'], ['x-retell-signature', sig]];

// Retell.verify answers true or false. When it says false, asking it again at the
// moment of sending tells a stale timestamp from a wrong signature.
async function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'x-retell-signature')?.[1];
  let verdict = 'invalid_signature';
  for (const key of c.secrets) {
    if (await withClock(c.now * 1000, () => Retell.verify(c.body, key, sig))) return 'valid';
    if (sig === undefined) return 'missing_signature';
    const sentAt = Number(/^v=(\d+),/.exec(sig)?.[1]);
    if (await withClock(sentAt, () => Retell.verify(c.body, key, sig))) verdict = 'timestamp_out_of_tolerance';
  }
  return verdict;
}

const req = (sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-retell-signature') });
const ts = NOW - 2;
const sig = await sign(API_KEY, ts, BODY);
const ok = { event_type: 'call_ended' };
const cases = [
  { name: 'call_ended signed by Retell.sign, accepted by Retell.verify', secrets: [API_KEY], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured API key verifies', secrets: [OTHER, API_KEY], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [API_KEY], ...req(sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another API key', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'x-retell-signature removed', secrets: [API_KEY], ...strip(req(sig)), expect: 'missing_signature' },
  { name: 'v= 301 seconds old', secrets: [API_KEY], ...req(await sign(API_KEY, NOW - 301, BODY)), expect: 'timestamp_out_of_tolerance' },
  { name: 'v= 301 seconds in the future', secrets: [API_KEY], ...req(await sign(API_KEY, NOW + 301, BODY)), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.retellai.com/features/secure-webhook';
const out = {
  kind: 'retell',
  source: { kind: 'sdk', package: 'retell-sdk', registry: 'npm', version: '5.66.1',
    function: 'Retell.sign / Retell.verify (lib/webhook_auth.js)', url: DOCS },
  facts: {
    title: 'Retell AI',
    docs: DOCS,
    scheme: 'x-retell-signature: v=<unix ms>,d=<hex(HMAC-SHA256(API key as UTF-8, raw body + v))>; the timestamp is appended to the body with no separator',
    secret: 'the Retell API key that has the webhook badge in the dashboard (API Keys), used verbatim as UTF-8 bytes',
    timestamp: 'v= in x-retell-signature, unix milliseconds, signed; 5 minutes either way',
    event_id: { body_sha256: true },
    event_id_note: 'the payload is {event, call}; no delivery or event ID is sent and the docs say nothing of one (call.call_id repeats across call_started, call_ended and call_analyzed): https://docs.retellai.com/features/webhook-overview',
    event_type: { json_pointer: '/event' },
    retry_horizon: '10 s timeout, retried up to 3 times (minutes): default window',
    retry_source: 'https://docs.retellai.com/features/webhook-overview',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
