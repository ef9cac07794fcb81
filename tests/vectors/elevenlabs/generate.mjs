// Known-answer vectors for ElevenLabs, checked by the official
// @elevenlabs/elevenlabs-js SDK's webhooks.constructEvent (it only verifies:
// each request is built here and the SDK decides its verdict).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { withIdentity } from '../identity.mjs';

const SECRET = 'wsec_TestElevenLabsSecret0123456789abcdef';
const OTHER = 'wsec_OtherElevenLabsSecret9876543210zyxwv';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/elevenlabs';
const SIG_HEADER = 'ElevenLabs-Signature';
const EVENT_TYPE = 'post_call_transcription';
// The documented event shape: https://elevenlabs.io/docs/agents-platform/workflows/post-call-webhooks
const BODY = JSON.stringify({
  type: 'post_call_transcription',
  event_timestamp: 1699999995,
  data: {
    agent_id: 'xyz123',
    conversation_id: 'abc456',
    status: 'done',
    transcript: [{ role: 'agent', message: 'Hey there angelo. How are you?', time_in_call_secs: 0 }],
    metadata: { start_time_unix_secs: 1699999900, call_duration_secs: 22 },
  },
});

const sign = (secret, ts) => 'v0=' + crypto.createHmac('sha256', secret).update(`${ts}.${BODY}`).digest('hex');
function request({ at = NOW - 5, signWith = SECRET, b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, `t=${at},${sign(signWith, at)}`]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"done"', '"donf"');
const cases = [
  { name: 'valid v0 signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'ElevenLabs-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 1801 s old (SDK tolerance 30 minutes)', secrets: [SECRET], ...request({ at: NOW - 1801 }), expect: 'timestamp_out_of_tolerance' },
  // The SDK refuses only old timestamps; hookline refuses future ones too (NOTES.md).
  { name: 'timestamp 1801 s in the future', secrets: [SECRET], ...request({ at: NOW + 1801 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 1800, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const client = new ElevenLabsClient({ apiKey: 'unused' });
const verify = (c, secret) => client.webhooks.constructEvent(c.body, c.headers.find(([k]) => k === SIG_HEADER)?.[1], secret);
const classify = (e) =>
  /Missing signature header/.test(e.message) ? 'missing_signature'
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
  kind: 'elevenlabs',
  source: {
    kind: 'sdk', package: '@elevenlabs/elevenlabs-js', registry: 'npm', version: '2.73.0',
    function: 'ElevenLabsClient#webhooks.constructEvent',
    url: 'https://elevenlabs.io/docs/agents-platform/workflows/post-call-webhooks',
  },
  facts: {
    title: 'ElevenLabs',
    docs: 'https://elevenlabs.io/docs/agents-platform/workflows/post-call-webhooks',
    scheme: 'ElevenLabs-Signature: t=<unix seconds>,v0=<hex HMAC-SHA256(secret, t + "." + raw body)>',
    secret: 'the webhook secret shown when the webhook is created in the ElevenLabs settings, used as UTF-8 bytes',
    timestamp: 'the t= value, unix seconds, signed; the docs and SDK allow 30 minutes',
    event_id: { body_sha256: true },
    event_id_note: 'no event or delivery ID in the envelope or headers: https://elevenlabs.io/docs/agents-platform/workflows/post-call-webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://elevenlabs.io/docs/agents-platform/workflows/post-call-webhooks',
    handshake: null,
  },
  cases,
};
// The definition's tolerance, the same as the SDK's, is the one in force.
for (const c of out.cases) delete c.tolerance;
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`elevenlabs: ${cases.length} cases`);
