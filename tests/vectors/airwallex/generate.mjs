// Known-answer vectors for Airwallex webhooks. Airwallex publishes no SDK
// verifier (@airwallex/node-sdk has webhook models only); its documentation's
// Java code example decides every verdict: DocSample.java holds its check,
// run with Apache commons-codec (Debian libcommons-codec-java 1.15).
// Requests are signed here with node:crypto; a case whose signature the
// doc's code rejects at signing is a generator error.
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';

const CODEC = process.env.COMMONS_CODEC_JAR ?? '/usr/share/java/commons-codec.jar';
const SECRET = 'whsec_Qm9uZ2pvdXIgQWlyd2FsbGV4IHdlYmhvb2sgc2VjcmV0';
const OTHER = 'whsec_QW5vdGhlciBBaXJ3YWxsZXggd2ViaG9vayBzZWNyZXQ';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/airwallex';
const SIG = 'x-signature';
const TS = 'x-timestamp';
const TOLERANCE = 259200; // 3 days, the definition's tolerance (NOTES.md)
// The documented event shape: id, name, account_id, data.object, created_at, version.
const BODY = JSON.stringify({
  id: 'evt_hkdmr6q7xg5xqkdcbzm_7c5gq3',
  name: 'payment_intent.succeeded',
  account_id: 'acct_2ZOKkQQrOC-fx8xUdSmAfg',
  data: { object: { id: 'int_hkdmbwcb7g5x4kbk8j2', amount: 100, currency: 'USD', status: 'SUCCEEDED', merchant_order_id: 'order-00042' } },
  created_at: '2023-11-14T22:13:15+0000',
  version: '2023-10-01',
});
const ID = 'evt_hkdmr6q7xg5xqkdcbzm_7c5gq3';
const TYPE = 'payment_intent.succeeded';
const sign = (secret, ms, body) => createHmac('sha256', secret).update(`${ms}${body}`).digest('hex');

function request({ secret = SECRET, ms = (NOW - 2) * 1000, body = BODY, sigBody = body, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [TS, String(ms)]];
  if (!drop) headers.push([SIG, sign(secret, ms, sigBody)]);
  return { method: 'POST', url: URL, headers, body };
}
const flip = (b) => b.replace('"order-00042"', '"order-00043"');
const early = (NOW - TOLERANCE - 60) * 1000;
const late = (NOW + TOLERANCE + 60) * 1000;
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid', event_id: ID, event_type: TYPE },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ body: flip(BODY), sigBody: BODY }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'x-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'x-timestamp changed after signing', secrets: [SECRET], ...request({ ms: (NOW - 2) * 1000 }), expect: 'invalid_signature', retime: (NOW - 1) * 1000 },
  { name: 'a retry three days after the event, still in tolerance', secrets: [SECRET], ...request({ ms: (NOW - TOLERANCE + 60) * 1000 }), expect: 'valid', event_id: ID, event_type: TYPE },
  { name: 'signed more than the tolerance ago', secrets: [SECRET], ...request({ ms: early }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'signed more than the tolerance ahead', secrets: [SECRET], ...request({ ms: late }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_id: ID, event_type: TYPE },
].map((c) => {
  if (c.retime !== undefined) {
    c.headers = c.headers.map(([k, v]) => [k, k === TS ? String(c.retime) : v]);
    delete c.retime;
  }
  return { ...c, now: NOW, tolerance: TOLERANCE };
});

// Ask the doc's Java code about every (case, secret) pair at once.
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
const rows = [];
for (const c of cases) for (const s of c.secrets) rows.push([s, header(c, TS), Buffer.from(c.body).toString('base64'), header(c, SIG) ?? ''].join('\t'));
const answers = execFileSync('java', ['-cp', CODEC, 'DocSample.java'], { input: rows.join('\n') + '\n' }).toString().trim().split('\n');
let i = 0;
for (const c of cases) {
  let accepted = false;
  for (const _ of c.secrets) accepted = (answers[i++] === 'true') || accepted;
  // The doc's code checks no freshness: outside the tolerance it accepts, and
  // the case's verdict there is hookline's tolerance (NOTES.md).
  const doc = header(c, SIG) === undefined ? 'missing_signature' : accepted ? 'valid' : 'invalid_signature';
  const want = c.sdk ?? c.expect;
  if (doc !== want) throw new Error(`${c.name}: the doc's code says ${doc}, the case says ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'airwallex',
  source: {
    kind: 'docs-code', package: 'commons-codec (Debian libcommons-codec-java)', registry: '', version: '1.15',
    function: 'Java code example (HmacUtils HMAC_SHA_256 hmacHex of x-timestamp + payload)',
    url: 'https://www.airwallex.com/docs/developer-tools__listen-for-webhook-events__code-examples',
  },
  facts: {
    title: 'Airwallex',
    docs: 'https://www.airwallex.com/docs/developer-tools/webhooks/listen-for-webhook-events',
    scheme: 'x-signature = hex HMAC-SHA256(webhook secret, x-timestamp + raw body)',
    secret: "the webhook's secret (Developer > Webhooks > the webhook), used as UTF-8 bytes",
    timestamp: 'x-timestamp, unix milliseconds, signed; the doc code checks no freshness, the definition allows 3 days (the retry horizon)',
    event_id: { json_pointer: '/id' },
    event_id_note: 'Each event has a stable id so you can safely handle retries: https://www.airwallex.com/docs/developer-tools/webhooks/webhooks-overview',
    event_type: { json_pointer: '/name' },
    retry_horizon: 'Retries use exponential back-off over about three days',
    retry_source: 'https://www.airwallex.com/docs/developer-tools/webhooks/webhooks-overview',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`airwallex: ${cases.length} cases`);
