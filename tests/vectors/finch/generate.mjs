// Known-answer vectors for Finch webhooks: signed with the official SDK's
// Webhooks.signPayload and every verdict from its Webhooks.verifySignature
// (@tryfinch/finch-api).
import { writeFileSync } from 'node:fs';
import Finch from '@tryfinch/finch-api';

const NOW = 1700000000;
// The SDK takes the secret as plain base64 and rejects anything that does not round-trip.
const SECRET = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/finch/acme';
const EVENT_ID = 'msg_2SFMDibF3lmRw8DzX4t1JjiEZQl'; // the docs' example Finch-Event-Id
// The documented account.updated payload: the common fields plus data.status / authentication_method.
const BODY = JSON.stringify({
  company_id: '720be419-0293-4d32-a707-32179b0827ab',
  account_id: 'a1b2c3d4-5678-4e90-9abc-def012345678',
  connection_id: '9f1c2a3b-4d5e-4f60-8a7b-1c2d3e4f5a6b',
  entity_id: null,
  event_type: 'account.updated',
  data: { status: 'connected', authentication_method: 'credential' },
});
const TAMPERED = BODY.replace('"connected"', '"connectee"');

const finch = new Finch({ accessToken: 'unused' });
const key = (s) => finch.webhooks.parseSecret(s);
const sign = (secret, ts, body) => finch.webhooks.signPayload(body, { eventId: EVENT_ID, timestamp: new Date(ts * 1000), secret: key(secret) });
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['Finch-Event-Id', EVENT_ID], ['Finch-Timestamp', String(ts)], ['Finch-Signature', sigs.join(' ')]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // verifySignature reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        finch.webhooks.verifySignature(c.body, new Headers(c.headers), s);
        return 'valid';
      } catch (e) {
        if (/Could not find finch-signature header/.test(e.message)) return 'missing_signature';
        if (/timestamp is too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/None of the given webhook signatures match/.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'finch-signature') });
const ts = NOW - 2;
const ok = { event_id: EVENT_ID, event_type: 'account.updated' };
const cases = [
  { name: 'account.updated signed by Webhooks.signPayload, accepted by verifySignature', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'Finch-Signature carries two space-separated v1 signatures (old and new secret), the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'Finch-Signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'Finch-Timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'Finch-Timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developer.tryfinch.com/developer-resources/Webhooks';
const out = {
  kind: 'finch',
  source: { kind: 'sdk', package: '@tryfinch/finch-api', registry: 'npm', version: '10.7.0',
    function: 'Webhooks.signPayload / Webhooks.verifySignature (client.webhooks)', url: DOCS },
  facts: {
    title: 'Finch',
    docs: DOCS,
    scheme: 'Standard Webhooks with Finch- headers: Finch-Signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret, Finch-Event-Id + "." + Finch-Timestamp + "." + raw body))>"',
    secret: 'the webhook secret the Finch Developer Dashboard shows once on creation; plain base64, the HMAC key is its decoded bytes (the SDK rejects a secret that is not canonical base64)',
    timestamp: 'Finch-Timestamp, unix seconds, signed; 5 minutes either way (SDK constant)',
    event_id: { header: 'Finch-Event-Id' },
    event_id_note: 'Finch-Event-Id is signed and identifies the message (docs example msg_2SFMDibF3lmRw8DzX4t1JjiEZQl); the docs reachable here do not state retry behaviour: ' + DOCS,
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
