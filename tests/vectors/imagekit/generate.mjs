// Known-answer vectors for ImageKit webhooks (Standard Webhooks headers, key = the
// secret's UTF-8 bytes): signed with standardwebhooks' Webhook.sign given the key
// exactly as the official SDK derives it, and every verdict from the official SDK's
// client.webhooks.unwrap (@imagekit/nodejs).
import { writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import ImageKit from '@imagekit/nodejs';

const NOW = 1700000000;
const SECRET = 'whsec_Xk2Lm9Pq4Rt7Vw1Yz3Bc6Df8Gh0Jk5N';
const OLD = 'whsec_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk';
const OTHER = 'whsec_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp';
const HOOK_URL = 'https://hooks.example.com/webhooks/imagekit/acme';
const MSG_ID = 'msg_2gH7kLp3Qr9Tv1Wx5Yz8Bc4Df6';
// A video.transformation.ready event with the documented fields: type, id, created_at, data.
const BODY = JSON.stringify({
  type: 'video.transformation.ready', id: '58e6d24d-6098-4319-be8d-40c3cb0a402d', created_at: '2023-11-14T22:13:17.512Z',
  request: { url: 'https://ik.imagekit.io/demo/sample-video.mp4?tr=f-webm', x_request_id: 'fa98fa2e-d6cd-45b4-acf5-bc1d2bbb8ba9', user_agent: 'Mozilla/5.0' },
  data: { asset: { url: 'https://ik.imagekit.io/demo/sample-video.mp4' },
    transformation: { type: 'video-transformation', options: { video_codec: 'vp9', audio_codec: 'opus', format: 'webm' },
      output: { url: 'https://ik.imagekit.io/demo/sample-video.mp4?tr=f-webm', video_metadata: { duration: 60.5, width: 1280, height: 720, bitrate: 1047 } } } },
});
const TAMPERED = BODY.replace('vp9', 'vp8');

// @imagekit/nodejs resources/webhooks.js: new Webhook(toBase64(keyStr)), i.e. the key is the secret's UTF-8 bytes.
const sdkKey = (secret) => Buffer.from(secret, 'utf8').toString('base64');
const sign = (secret, ts, body) => new Webhook(sdkKey(secret)).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['webhook-id', MSG_ID], ['webhook-timestamp', String(ts)], ['webhook-signature', sigs.join(' ')]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // standardwebhooks reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const secret of c.secrets) {
      const client = new ImageKit({ privateKey: 'unused', webhookSecret: secret });
      try {
        client.webhooks.unwrap(c.body, { headers: Object.fromEntries(c.headers) });
        return 'valid';
      } catch (e) {
        if (e.message === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (e.message !== 'No matching signature found') throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'webhook-signature') });
const ts = NOW - 2;
const ok = { event_id: '58e6d24d-6098-4319-be8d-40c3cb0a402d', event_type: 'video.transformation.ready' };
const cases = [
  { name: 'video.transformation.ready signed with the SDK\'s key, accepted by webhooks.unwrap', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'webhook-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'the whsec_ secret used the Standard Webhooks way (base64-decoded) does not verify', secrets: [SECRET], ...req([new Webhook(SECRET).sign(MSG_ID, new Date(ts * 1000), BODY)], ts), expect: 'invalid_signature' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'webhook-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'webhook-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://imagekit.io/docs/webhooks';
const out = {
  kind: 'imagekit',
  source: { kind: 'sdk', package: '@imagekit/nodejs', registry: 'npm', version: '7.11.0',
    function: 'client.webhooks.unwrap (new Webhook(toBase64(webhookSecret)).verify, standardwebhooks 1.1.1); signed with Webhook.sign', url: DOCS },
  facts: {
    title: 'ImageKit',
    docs: DOCS,
    scheme: 'Standard Webhooks headers: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + raw body))>", key = the UTF-8 bytes of the whole secret (whsec_ prefix included, never base64-decoded)',
    secret: 'the webhook secret from the ImageKit dashboard (Developer options > Webhooks), used verbatim as UTF-8 bytes',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way (standardwebhooks)',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the body\'s id is the "Unique identifier of the event": ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
