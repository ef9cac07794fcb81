// Known-answer vectors for Orb, signed with the official `orb-billing` SDK's
// own signPayload and checked by its webhooks.verifySignature.
import fs from 'node:fs';
import Orb from 'orb-billing';

const SECRET = 'orb-test-webhook-secret-0123456789';
const OTHER = 'orb-other-webhook-secret-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/orb';
const iso = (unix) => new Date(unix * 1000).toISOString().replace('Z', '000'); // Orb: microseconds, no zone (UTC)
// The documented event shape: https://docs.withorb.com/integrations-and-exports/webhooks
const BODY = JSON.stringify({
  id: 'G6j5S6KSuUmSGKGZ',
  created_at: '2023-11-14T22:13:15.000000+00:00',
  type: 'invoice.issued',
  properties: {},
  invoice: { id: 'iN2mGeN8WwTAakkT', status: 'issued', amount_due: '100.00', currency: 'USD' },
});
const EVENT_ID = 'G6j5S6KSuUmSGKGZ';
const EVENT_TYPE = 'invoice.issued';

const client = new Orb({ apiKey: 'unused', webhookSecret: SECRET });
const sign = (secret, ts) => client.webhooks.signPayload(BODY, { timestamp: ts, secret: client.webhooks.parseSecret(secret) });
function request({ at = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const ts = iso(at);
  const headers = [['Content-Type', 'application/json'], ['X-Orb-Timestamp', ts]];
  if (!drop) headers.push(['X-Orb-Signature', signWith.map((s) => sign(s, ts)).join(' ')]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"issued"', '"issuex"');
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Orb-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two space-separated signatures, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => client.webhooks.verifySignature(c.body, headerMap(c), secret);
const classify = (e) =>
  /Could not find X-Orb-Signature/.test(e.message) ? 'missing_signature'
  : /too old|too new/.test(e.message) ? 'timestamp_out_of_tolerance'
  : /None of the given webhook signatures/.test(e.message) ? 'invalid_signature'
  : null;
console.warn = () => {}; // the SDK logs every "too new" timestamp
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
  kind: 'orb',
  source: {
    kind: 'sdk', package: 'orb-billing', registry: 'npm', version: '6.11.0',
    function: 'Orb#webhooks.signPayload / webhooks.verifySignature',
    url: 'https://docs.withorb.com/integrations-and-exports/webhooks',
  },
  facts: {
    title: 'Orb',
    docs: 'https://docs.withorb.com/integrations-and-exports/webhooks',
    scheme: 'X-Orb-Signature: space-separated "v1=<hex HMAC-SHA256(secret, "v1:" + X-Orb-Timestamp + ":" + raw body)>"',
    secret: 'the webhook endpoint secret as the Orb dashboard shows it, used as UTF-8 bytes',
    timestamp: 'X-Orb-Timestamp, ISO 8601 without a zone (UTC), e.g. 2023-11-14T22:13:15.000000; the header text is signed verbatim; SDK tolerance 300 s both directions',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event ID in the body, the same on every redelivery of the event: https://docs.withorb.com/integrations-and-exports/webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the webhooks page; use the default window',
    retry_source: 'https://docs.withorb.com/integrations-and-exports/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`orb: ${cases.length} cases`);
