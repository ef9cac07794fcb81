// Known-answer vectors for Mux, checked by the official @mux/mux-node SDK.
// Mux's SDK only verifies, so we build each request and let
// client.webhooks.verifySignature decide; the script fails on any disagreement.
import fs from 'node:fs';
import crypto from 'node:crypto';
import Mux from '@mux/mux-node';

const SECRET = 'mux-test-signing-secret-0123456789';
const OTHER = 'mux-other-signing-secret-9876543210';
const NEXT = 'mux-rotated-signing-secret-1111111';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/mux';

// The documented event shape: https://www.mux.com/docs/core/listen-for-webhooks
const body = JSON.stringify({
  type: 'video.asset.ready',
  object: { type: 'asset', id: 'AzXG6x5gN9tX02sZy02oV3ZJ5h2b3Gr4hK' },
  id: '3a56ac3d-33da-4366-855b-f592d898409d',
  environment: { name: 'Production', id: 'j0863n' },
  data: { status: 'ready', id: 'AzXG6x5gN9tX02sZy02oV3ZJ5h2b3Gr4hK', duration: 23.8 },
  created_at: '2023-11-14T22:13:20.000000Z',
  attempts: [],
  accessor_source: null,
  accessor: null,
  request_id: null,
});

const hmac = (secret, ts, b) => crypto.createHmac('sha256', secret).update(`${ts}.${b}`).digest('hex');
const header = (ts, ...secrets) => [`t=${ts}`, ...secrets.map((s) => `v1=${hmac(s, ts, body)}`)].join(',');
const flip = (b) => b.replace('"ready"', '"readz"');

function request(sig, b = body) {
  const headers = [['Content-Type', 'application/json']];
  if (sig !== null) headers.push(['Mux-Signature', sig]);
  return { method: 'POST', url: URL, headers, body: b };
}

const base = { now: NOW, tolerance: 300, event_id: '3a56ac3d-33da-4366-855b-f592d898409d', event_type: 'video.asset.ready' };
const cases = [
  { name: 'valid v1 signature', secrets: [SECRET], ...request(header(NOW - 5, SECRET)), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request(header(NOW - 5, SECRET), flip(body)), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(header(NOW - 5, SECRET)), expect: 'invalid_signature' },
  { name: 'Mux-Signature removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request(header(NOW - 301, SECRET)), expect: 'timestamp_out_of_tolerance' },
  // The SDK only rejects old timestamps; a future one is refused by hookline's
  // two-sided tolerance (NOTES.md). The SDK still confirms the signature itself.
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request(header(NOW + 301, SECRET)), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the rotated secret', secrets: [OTHER, SECRET], ...request(header(NOW - 5, SECRET)), expect: 'valid' },
  { name: 'header with two v1 signatures, the second matching', secrets: [SECRET], ...request(header(NOW - 5, NEXT, SECRET)), expect: 'valid' },
].map((c) => ({ ...c, ...base, ...c, now: NOW }));

const mux = new Mux({ tokenId: 'unused', tokenSecret: 'unused' });

// The SDK's verdict with the clock at c.now: one secret at a time, as a
// tenant with several secrets would try them.
async function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000;
  try {
    let last = null;
    for (const secret of c.secrets) {
      try {
        await mux.webhooks.verifySignature(c.body, Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])), secret);
        return 'valid';
      } catch (e) {
        last = e.message;
      }
    }
    if (/Could not find/.test(last)) return 'missing_signature';
    if (/too old/.test(last)) return 'timestamp_out_of_tolerance';
    return 'invalid_signature';
  } finally {
    Date.now = realNow;
  }
}

for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case says ${want}`);
  delete c.sdk;
  if (c.expect !== 'valid') { delete c.event_id; delete c.event_type; }
}

const out = {
  kind: 'mux',
  source: {
    kind: 'sdk', package: '@mux/mux-node', registry: 'npm', version: '15.3.0',
    function: 'Mux#webhooks.verifySignature',
    url: 'https://www.mux.com/docs/core/verify-webhook-signatures',
  },
  facts: {
    title: 'Mux',
    docs: 'https://www.mux.com/docs/core/verify-webhook-signatures',
    scheme: 'Mux-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>; any v1 may match',
    secret: "the webhook's signing secret from Settings > Webhooks, used as UTF-8 bytes",
    timestamp: 'the t= value of Mux-Signature, unix seconds, signed; the docs and SDK use a 300 s tolerance',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event UUID in the body; a retry re-sends the same event (attempts[] grows): https://www.mux.com/docs/core/listen-for-webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'retries with increasing delay for up to 24 hours',
    retry_source: 'https://www.mux.com/docs/core/listen-for-webhooks',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`mux: ${cases.length} cases`);
