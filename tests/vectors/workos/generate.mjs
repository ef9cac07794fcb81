// Known-answer vectors for WorkOS, signed with the official @workos-inc/node
// SDK's webhooks.computeSignature and checked by its webhooks.constructEvent.
import fs from 'node:fs';
import { WorkOS } from '@workos-inc/node';

const SECRET = 'workos-test-webhook-secret-0123456789';
const OTHER = 'workos-other-webhook-secret-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/workos';
const SIG_HEADER = 'WorkOS-Signature';
const EVENT_ID = 'event_01HF0R1R7A3S4XQ2C6M0V8N9B2';
const EVENT_TYPE = 'user.created';
// The documented event shape: https://workos.com/docs/events
const BODY = JSON.stringify({
  id: EVENT_ID,
  event: 'user.created',
  data: { object: 'user', id: 'user_01E4ZCR3C56J083X43JQXF3JK5', email: 'marcelina.davis@example.com', first_name: 'Marcelina', last_name: 'Davis', email_verified: true, created_at: '2023-11-14T22:13:10.000Z', updated_at: '2023-11-14T22:13:10.000Z' },
  created_at: '2023-11-14T22:13:15.000Z',
});

const workos = new WorkOS('sk_test_unused', { clientId: 'client_unused' });
async function request({ at = NOW - 5, signWith = SECRET, b = BODY, drop = false } = {}) {
  const ms = at * 1000 + 250;
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, `t=${ms}, v1=${await workos.webhooks.computeSignature(ms, BODY, signWith)}`]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"Marcelina"', '"Marcelinb"');
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...(await request()), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...(await request({ b: flip(BODY) })), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...(await request()), expect: 'invalid_signature' },
  { name: 'WorkOS-Signature removed', secrets: [SECRET], ...(await request({ drop: true })), expect: 'missing_signature' },
  { name: 'timestamp 181 s old (SDK tolerance 180 s)', secrets: [SECRET], ...(await request({ at: NOW - 181 })), expect: 'timestamp_out_of_tolerance' },
  // The SDK refuses only old timestamps; hookline refuses future ones too (NOTES.md).
  { name: 'timestamp 181 s in the future', secrets: [SECRET], ...(await request({ at: NOW + 181 })), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...(await request()), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 180, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => {
  const sigHeader = c.headers.find(([k]) => k === SIG_HEADER)?.[1];
  // A missing header is the caller's check: the SDK takes the header's value.
  if (sigHeader === undefined) throw Object.assign(new Error('no header'), { missing: true });
  return workos.webhooks.constructEvent({ payload: c.body, sigHeader, secret, tolerance: c.tolerance * 1000 });
};
const classify = (e) =>
  e.missing ? 'missing_signature'
  : /outside the tolerance/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /does not match/.test(e.message) ? 'invalid_signature'
  : null;
// Run the SDK's verifier with the clock fixed at the case's `now`, trying the
// tenant's secrets one at a time; the script stops on any disagreement, and on
// any error the SDK's own messages do not explain.
const headerMap = (c) => Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
async function sdkVerdict(c) {
  const RealDate = Date;
  const fixed = c.now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try {
    let last = null;
    for (const secret of c.secrets) {
      try {
        if ((await verify(c, secret)) === false) throw new Error('verifier returned false');
        return 'valid';
      } catch (e) {
        last = e;
      }
    }
    const verdict = classify(last);
    if (!verdict) throw last;
    return verdict;
  } finally {
    globalThis.Date = RealDate;
  }
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'workos',
  source: {
    kind: 'sdk', package: '@workos-inc/node', registry: 'npm', version: '11.0.0',
    function: 'WorkOS#webhooks.computeSignature / webhooks.constructEvent',
    url: 'https://workos.com/docs/events/data-syncing/webhooks',
  },
  facts: {
    title: 'WorkOS',
    docs: 'https://workos.com/docs/events/data-syncing/webhooks',
    scheme: 'WorkOS-Signature: "t=<unix ms>, v1=<hex HMAC-SHA256(secret, t + "." + raw body)>"',
    secret: "the webhook endpoint's secret as the WorkOS dashboard shows it, used as UTF-8 bytes",
    timestamp: 'the t= value, unix MILLISECONDS, signed; the SDK default tolerance is 180 s (3 minutes)',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event ID, the same on every retry: https://workos.com/docs/events/data-syncing/webhooks',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'retried with exponential backoff up to 6 times over 3 days',
    retry_source: 'https://workos.com/docs/events/data-syncing/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`workos: ${cases.length} cases`);
