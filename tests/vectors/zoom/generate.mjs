// Known-answer vectors for Zoom webhooks, checked by Zoom's official SDK
// @zoom/rivet: its AwsLambdaReceiver (the receiver that takes a raw body and
// headers) verifies x-zm-signature and answers endpoint.url_validation, so it
// gives every verdict and the exact handshake answer. Rivet only verifies;
// requests are signed here.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { AwsLambdaReceiver } from '@zoom/rivet/meetings';
import { withIdentity } from '../identity.mjs';

const SECRET = 'zoomTestSecretToken0123456789AB';       // the shape of an app's Secret Token
const OTHER = 'zoomOtherSecretToken9876543210ZY';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/zoom';
const SIG_HEADER = 'x-zm-signature';
const TS_HEADER = 'x-zm-request-timestamp';
// The documented meeting.started shape (https://developers.zoom.us/docs/api/meetings/events/#tag/meeting/POSTmeeting.started).
// Compact JSON: Rivet re-serialises the parsed body before hashing, so only a
// body that JSON.stringify reproduces byte for byte can be checked by it.
const BODY = JSON.stringify({
  event: 'meeting.started',
  event_ts: 1699999997123,
  payload: {
    account_id: 'AAAAAABBBB',
    object: { id: '1234567890', uuid: '4444AAAiAAAAAiAiAiiAii==', host_id: 'x1yCzABCDEfg23HiJKl4mN', topic: 'My Meeting', type: 2, start_time: '2023-11-14T22:13:17Z', timezone: 'America/Los_Angeles', duration: 60 },
  },
});
const EVENT_TYPE = 'meeting.started';

const sign = (secret, ts, b) => 'v0=' + crypto.createHmac('sha256', secret).update(`v0:${ts}:${b}`).digest('hex');
function request({ at = NOW - 2, secret = SECRET, b = BODY, signed = b, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [TS_HEADER, String(at)]];
  if (!drop) headers.push([SIG_HEADER, sign(secret, at, signed)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const cases = [
  { name: 'valid v0 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('My Meeting', 'My Meetinh'), signed: BODY }), expect: 'invalid_signature' },
  { name: 'verified with another secret token', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  // Rivet does not look at the clock; hookline does (NOTES.md).
  { name: 'timestamp 85 min + 1 s old (past Zoom\'s last retry)', secrets: [SECRET], ...request({ at: NOW - 5101 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'a retry 84 min after the first signing (the timestamp may be the first)', secrets: [SECRET], ...request({ at: NOW - 5040 }), expect: 'valid' },
  { name: 'timestamp 85 min + 1 s in the future', secrets: [SECRET], ...request({ at: NOW + 5101 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret token', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

// Rivet's answer to one request: 200 with the event (or the validation
// answer) when verified, 400 otherwise.
console.debug = () => {};                  // Rivet logs every request it handles
async function rivet(req, secret) {
  const receiver = new AwsLambdaReceiver({ webhooksSecretToken: secret });
  receiver.init({ eventEmitter: { emit: async () => {} } });
  const headers = Object.fromEntries(req.headers);
  return receiver.start()({ body: req.body, headers, isBase64Encoded: false }, {});
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function sdkVerdict(c) {
  // Rivet refuses only when both headers are missing; a missing signature
  // alone fails its comparison. hookline names the missing header.
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  for (const s of c.secrets) if ((await rivet(c, s)).statusCode === 200) return 'valid';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: @zoom/rivet says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

// endpoint.url_validation: a signed POST; the answer is JSON with the plain
// token and hex HMAC-SHA256(secret token, plainToken).
const VALIDATION = JSON.stringify({ payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: 1699999998000, event: 'endpoint.url_validation' });
const vreq = (() => { const { at, ...r } = request({ b: VALIDATION }); return r; })();
const answer = await rivet(vreq, SECRET);
const expected = crypto.createHmac('sha256', SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex');
if (answer.statusCode !== 200 || JSON.parse(answer.body).encryptedToken !== expected) throw new Error(`unexpected validation answer ${JSON.stringify(answer)}`);
const handshakes = [{
  name: 'endpoint.url_validation answered with plainToken and encryptedToken',
  secrets: [SECRET], verify_token: null, request: vreq, now: NOW,
  expect: { status: 200, content_type: answer.headers['Content-Type'], body: answer.body, headers: [] },
}];

const DOCS = 'https://developers.zoom.us/docs/api/webhooks/';
const out = {
  kind: 'zoom',
  source: {
    kind: 'sdk', package: '@zoom/rivet', registry: 'npm', version: '0.4.0',
    function: 'AwsLambdaReceiver (CommonHttpRequest#isEventVerified, hashUrlValidationEvent)',
    url: DOCS + '#verify-webhook-events',
  },
  facts: {
    title: 'Zoom',
    docs: DOCS,
    scheme: 'x-zm-signature = "v0=" + hex HMAC-SHA256(secret token, "v0:" + x-zm-request-timestamp + ":" + raw body)',
    secret: "the event subscription's Secret Token from the app's Features > Access page, used as UTF-8 bytes",
    timestamp: 'x-zm-request-timestamp, unix seconds, signed; no tolerance documented and Rivet checks none; the tolerance is Zoom\'s retry horizon (85 min), since the event ID is the signed body\'s digest and its dedup key lasts as long',
    event_id: { body_sha256: true },
    event_id_note: 'events carry no event or delivery ID (event, event_ts, payload): ' + DOCS,
    event_type: { json_pointer: '/event' },
    retry_horizon: '3 retries: 5 min, then 20 min, then 60 min later (85 min in all)',
    retry_source: 'https://developers.zoom.us/blog/webhook-delays/',
    handshake: 'endpoint.url_validation: a signed POST {"event":"endpoint.url_validation","payload":{"plainToken":...}} answered 200 JSON {"plainToken","encryptedToken": hex HMAC-SHA256(secret token, plainToken)} within 3 s; repeated every 72 hours: ' + DOCS + '#validate-your-webhook-endpoint',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`zoom: ${cases.length} cases, ${handshakes.length} handshakes`);
