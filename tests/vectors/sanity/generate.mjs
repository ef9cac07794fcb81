// Known-answer vectors for Sanity GROQ-powered webhooks, signed with the
// official @sanity/webhook toolkit's encodeSignatureHeader and checked by its
// isValidSignature.
import fs from 'node:fs';
import { encodeSignatureHeader, isValidSignature } from '@sanity/webhook';

const SECRET = 'sanity-test-webhook-secret-0123';
const OTHER = 'sanity-other-webhook-secret-987';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/sanity';
const SIG_HEADER = 'sanity-webhook-signature';
const EVENT_ID = 'idem_2f0c4b7e9a1d4c3b8e6f';
const EVENT_TYPE = 'update';
// A GROQ webhook body is the projection the user configured; this is the
// default (the whole document): https://www.sanity.io/docs/webhooks
const BODY = JSON.stringify({
  _id: 'movie_10681',
  _type: 'movie',
  _rev: 'mZ8g3dV7qMbpAgxuH1Y3ku',
  _createdAt: '2023-11-01T09:00:00Z',
  _updatedAt: '2023-11-14T22:13:15Z',
  title: 'WALL·E',
  slug: { _type: 'slug', current: 'wall-e' },
});

const sign = (secret, ms) => encodeSignatureHeader(BODY, ms, secret);
async function request({ at = NOW - 5, signWith = SECRET, b = BODY, drop = false } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['idempotency-key', EVENT_ID],
    ['sanity-operation', EVENT_TYPE],
    ['sanity-document-id', 'movie_10681'],
    ['sanity-transaction-id', 'mZ8g3dV7qMbpAgxuH1Y3ku'],
  ];
  if (!drop) headers.push([SIG_HEADER, await sign(signWith, at * 1000 + 250)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const flip = (b) => b.replace('"wall-e"', '"wall-f"');
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...(await request()), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...(await request({ b: flip(BODY) })), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...(await request()), expect: 'invalid_signature' },
  { name: 'sanity-webhook-signature removed', secrets: [SECRET], ...(await request({ drop: true })), expect: 'missing_signature' },
  // The toolkit checks no timestamp; hookline does (NOTES.md).
  { name: 'timestamp 301 s old', secrets: [SECRET], ...(await request({ at: NOW - 301 })), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...(await request({ at: NOW + 301 })), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...(await request()), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => isValidSignature(c.body, header(c, SIG_HEADER), secret);
// The SDK's verifier answers yes or no, with the clock fixed at `now`. A request
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
  kind: 'sanity',
  source: {
    kind: 'sdk', package: '@sanity/webhook', registry: 'npm', version: '4.0.4',
    function: 'encodeSignatureHeader / isValidSignature',
    url: 'https://www.sanity.io/docs/webhooks',
  },
  facts: {
    title: 'Sanity',
    docs: 'https://www.sanity.io/docs/webhooks',
    scheme: 'sanity-webhook-signature: t=<unix milliseconds>,v1=<base64url, no padding, of HMAC-SHA256(secret, t + "." + raw body)>',
    secret: 'the secret the user typed when creating the webhook in sanity.io/manage, used as UTF-8 bytes',
    timestamp: 'the t= value, unix MILLISECONDS, signed; the toolkit checks no tolerance',
    event_id: { header: 'idempotency-key' },
    event_id_note: 'idempotency-key is unique per webhook event and kept on retries: https://www.sanity.io/docs/webhooks',
    event_type: { header: 'sanity-operation' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://www.sanity.io/docs/webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`sanity: ${cases.length} cases`);
