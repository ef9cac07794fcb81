// Known-answer vectors for the Segment Webhooks destination (classic), from the
// documentation's own JavaScript sample in "Appendices > Authentication" on
// https://segment.com/docs/connections/destinations/catalog/webhooks/#authentication
// (source: segmentio/segment-docs), run unchanged. Segment publishes no SDK
// verifier. Each request is signed here and the doc's snippet decides.
import fs from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const crypto = require('crypto');
process.noDeprecation = true; // the sample uses new Buffer(), deprecated but still working

const SECRET = 'segment-test-shared-secret-0123456789';
const OTHER = 'segment-other-shared-secret-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/segment';
const SIG_HEADER = 'X-Signature';
const EVENT_ID = 'ajs-next-69a4d2d5f8c6c6f0e6b8a7c2f1d3e5b4';
const EVENT_TYPE = 'track';
// The documented Track call, with the messageId every Segment message carries
// (https://segment.com/docs/connections/spec/common/). Compact JSON (NOTES.md).
const BODY = JSON.stringify({
  version: 1,
  type: 'track',
  messageId: EVENT_ID,
  userId: '019mr8mf4r',
  event: 'Purchased an Item',
  properties: { revenue: '39.95', shippingMethod: '2-day' },
  timestamp: '2012-12-02T00:30:08.276Z',
});
const FLIP_FROM = '"2-day"';
const FLIP_TO = '"3-day"';

// The documentation's sample, verbatim, wrapped in a function: `req` is an
// Express request (parsed body), `settings.sharedSecret` the tenant's secret.
function docSample(req, settings) {
 var signature = req.headers['x-signature'];
 var digest = crypto
     .createHmac('sha1', settings.sharedSecret)
     .update(new Buffer(JSON.stringify(req.body),'utf-8'))
     .digest('hex');

if (signature === digest) {

 return true; // the sample's "do cool stuff"

}
 return false;
}

const sign = (secret) => crypto.createHmac('sha1', secret).update(BODY, 'utf8').digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], ['User-Agent', 'Segment.io/1.0']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => {
  if (JSON.stringify(JSON.parse(c.body)) !== c.body) throw new Error('body is not in the form the sample re-serialises');
  return docSample({ body: JSON.parse(c.body), headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])) }, { sharedSecret: secret });
};
// The verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'segment',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'Authentication sample (crypto.createHmac sha1)',
    url: 'https://segment.com/docs/connections/destinations/catalog/webhooks/#authentication',
  },
  facts: {
    title: 'Segment (Webhooks destination)',
    docs: 'https://segment.com/docs/connections/destinations/catalog/webhooks/',
    scheme: 'X-Signature = hex HMAC-SHA1(sharedSecret, body)',
    secret: 'the sharedSecret set in the destination\'s advanced settings, used as UTF-8 bytes',
    timestamp: null,
    event_id: { json_pointer: '/messageId' },
    event_id_note: 'messageId is the unique ID of each Segment message and is kept when it is re-sent: https://segment.com/docs/connections/spec/common/',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'requests answered 5xx are retried several times for at most 4 hours',
    retry_source: 'https://segment.com/docs/connections/destinations/catalog/webhooks/#retries',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`segment: ${cases.length} cases`);
