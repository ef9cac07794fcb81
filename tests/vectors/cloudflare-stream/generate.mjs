// Known-answer vectors for Cloudflare Stream webhooks, from the documentation's
// own Node.js code sample (https://developers.cloudflare.com/stream/manage-video-library/using-webhooks/),
// run unchanged with its two placeholders filled in. Cloudflare publishes no
// SDK verifier for Stream webhooks; the doc's code computes the signature each
// verdict is checked against.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';
const require = createRequire(import.meta.url);

const SECRET = '85011ed3a913c6ad5f9cf6c5573cc0a7';
const OTHER = '0f5a4d3c2b1a09f8e7d6c5b4a3928170';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/cloudflare-stream';
const SIG_HEADER = 'Webhook-Signature';
// The documented notification body (same page).
const BODY = JSON.stringify({
  uid: '6b9e68b07dfee8cc2d116e4c51d6a957',
  creator: null,
  thumbnail: 'https://customer-f33zs165nr7gyfy4.cloudflarestream.com/6b9e68b07dfee8cc2d116e4c51d6a957/thumbnails/thumbnail.jpg',
  thumbnailTimestampPct: 0,
  readyToStream: true,
  status: { state: 'ready', pctComplete: '100.000000', errorReasonCode: '', errorReasonText: '' },
  meta: { filename: 'small.mp4', filetype: 'video/mp4', name: 'small.mp4' },
  created: '2023-11-14T22:10:00.000000Z',
  modified: '2023-11-14T22:13:10.000000Z',
  duration: 5.5,
});

// The documentation's Node.js sample, verbatim except that its placeholders
// ("secret from the Cloudflare API", "string from step 2") are parameters.
function docSample(key, message) {
  var crypto = require("crypto");

  var hash = crypto.createHmac("sha256", key).update(message);

  return hash.digest("hex");
}

function request({ at = NOW - 5, signWith = SECRET, b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, `time=${at},sig1=${docSample(signWith, `${at}.${BODY}`)}`]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const flip = (b) => b.replace('"small.mp4","filetype"', '"small.mp5","filetype"');
const cases = [
  { name: 'valid sig1 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Webhook-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  // The docs say to discard timestamps too old for the application; the sample
  // checks none, so these two are hookline's two-sided tolerance (NOTES.md).
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_type: 'ready' } : {}) }));
if (flip(BODY) === BODY) throw new Error('flip changed nothing');

// The documented verification: parse time and sig1, rebuild "time.body" and
// compare the doc sample's hex with sig1.
const verify = (c, secret) => {
  const parts = Object.fromEntries(header(c, SIG_HEADER).split(',').map((kv) => kv.split('=')));
  return docSample(secret, `${parts.time}.${c.body}`) === parts.sig1;
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
  kind: 'cloudflare-stream',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'Node.js example (crypto.createHmac sha256 hex)',
    url: 'https://developers.cloudflare.com/stream/manage-video-library/using-webhooks/',
  },
  facts: {
    title: 'Cloudflare Stream',
    docs: 'https://developers.cloudflare.com/stream/manage-video-library/using-webhooks/',
    scheme: 'Webhook-Signature: time=<unix seconds>,sig1=<hex HMAC-SHA256(secret, time + "." + raw body)>',
    secret: 'the "secret" returned by the Stream webhook API (PUT/GET accounts/{id}/stream/webhook), used as UTF-8 bytes',
    timestamp: 'the time= value, unix seconds, signed; the docs say to discard ones too old for the application',
    event_id: { body_sha256: true },
    event_id_note: 'no event ID: the body is the video object (uid is the video), sent once processing ends: https://developers.cloudflare.com/stream/manage-video-library/using-webhooks/',
    event_type: { json_pointer: '/status/state' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://developers.cloudflare.com/stream/manage-video-library/using-webhooks/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`cloudflare-stream: ${cases.length} cases`);
