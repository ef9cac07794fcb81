// Known-answer vectors for LiveKit webhooks: the Authorization JWT is minted with
// the official SDK's AccessToken (as the LiveKit server does: 5 minutes valid,
// sha256 grant) and every verdict is the SDK's WebhookReceiver.receive
// (livekit-server-sdk).
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { AccessToken, WebhookReceiver } from 'livekit-server-sdk';

const NOW = 1700000000;
const API_KEY = 'APIw3kTq9ZpR2mX';
const API_SECRET = 'f1bQk8v2Yx7LmN3pR9sT4uW6zA0cE5gHjK2nP8qS';
const OTHER_KEY = 'APIa1B2c3D4e5F6';
const OTHER_SECRET = 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNnMmLl';
// The tenant configures the project's API key and secret; the key is the JWT issuer.
const pair = (k, s) => `${k}:${s}`;
const HOOK_URL = 'https://hooks.example.com/webhooks/livekit/acme';
// A room_started WebhookEvent as the server's protojson encodes it (id EV_..., createdAt in seconds).
const BODY = JSON.stringify({
  event: 'room_started',
  room: { sid: 'RM_hycBMAjmt6Ub', name: 'Demo Room', emptyTimeout: 300, maxParticipants: 0,
    creationTime: '1699999997', enabledCodecs: [{ mime: 'audio/opus' }, { mime: 'video/VP8' }] },
  id: 'EV_eugWmGhovZmm',
  createdAt: '1699999998',
});
const TAMPERED = BODY.replace('Demo Room', 'Demo Roon');

// Freeze the clock for both jose's `new Date()` and Date.now() while minting or verifying.
async function atTime(seconds, fn) {
  const RealDate = globalThis.Date;
  const ms = seconds * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { if (a.length === 0) super(ms); else super(...a); }
    static now() { return ms; }
  };
  try { return await fn(); } finally { globalThis.Date = RealDate; }
}
const b64sha256 = (body) => createHash('sha256').update(body, 'utf8').digest('base64');
// resource_url_notifier.go: NewAccessToken(key, secret).SetValidFor(5 * time.Minute).SetSha256(b64).
async function mint(key, secret, issuedAt, body) {
  const at = new AccessToken(key, secret, { ttl: '5m' });
  at.sha256 = b64sha256(body);
  return atTime(issuedAt, () => at.toJwt());
}
const headersFor = (jwt) => [['Content-Type', 'application/webhook+json'], ['Authorization', jwt]];

async function sdkVerdict(c) {
  const auth = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  let verdict = 'invalid_signature';
  for (const s of c.secrets) {
    const [key, secret] = s.split(':');
    try {
      await atTime(c.now, () => new WebhookReceiver(key, secret).receive(c.body, auth));
      return 'valid';
    } catch (e) {
      if (e.message === 'authorization header is empty') return 'missing_signature';
      if (e.code === 'ERR_JWT_EXPIRED' || (e.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && e.claim === 'nbf')) verdict = 'timestamp_out_of_tolerance';
      else if (!(e.code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || (e.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && e.claim === 'iss')
        || e.message === 'sha256 checksum of body does not match')) throw e;
    }
  }
  return verdict;
}

const req = (jwt, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(jwt), body, now: NOW, tolerance: 10 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'authorization') });
const MINE = pair(API_KEY, API_SECRET);
const jwt = await mint(API_KEY, API_SECRET, NOW - 2, BODY);
const ok = { event_id: 'EV_eugWmGhovZmm', event_type: 'room_started' };
const cases = [
  { name: 'room_started with a JWT minted like the server, accepted by WebhookReceiver.receive', secrets: [MINE], ...req(jwt), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key pair verifies', secrets: [pair(OTHER_KEY, OTHER_SECRET), MINE], ...req(jwt), expect: 'valid', ...ok },
  { name: 'one body byte changed (sha256 claim no longer matches)', secrets: [MINE], ...req(jwt), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another API key pair', secrets: [pair(OTHER_KEY, OTHER_SECRET)], ...req(jwt), expect: 'invalid_signature' },
  { name: 'right secret, but the JWT was issued by another API key (iss mismatch)', secrets: [MINE], ...req(await mint(OTHER_KEY, API_SECRET, NOW - 2, BODY)), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [MINE], ...strip(req(jwt)), expect: 'missing_signature' },
  { name: 'JWT expired 11 s ago (minted 311 s ago, valid 5 minutes, 10 s clock tolerance)', secrets: [MINE], ...req(await mint(API_KEY, API_SECRET, NOW - 311, BODY)), expect: 'timestamp_out_of_tolerance' },
  { name: 'JWT not valid before 11 s in the future (nbf beyond the 10 s clock tolerance)', secrets: [MINE], ...req(await mint(API_KEY, API_SECRET, NOW + 11, BODY)), expect: 'timestamp_out_of_tolerance' },
  { name: 'JWT minted 309 s ago: expired 9 s ago, inside the 10 s clock tolerance', secrets: [MINE], ...req(await mint(API_KEY, API_SECRET, NOW - 309, BODY)), expect: 'valid', ...ok },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.livekit.io/home/server/webhooks/';
const out = {
  kind: 'livekit',
  source: { kind: 'sdk', package: 'livekit-server-sdk', registry: 'npm', version: '2.19.2',
    function: 'WebhookReceiver.receive (TokenVerifier.verify, jose 5.10.0); JWTs minted with AccessToken.toJwt as livekit/protocol webhook/resource_url_notifier.go does', url: DOCS },
  facts: {
    title: 'LiveKit',
    docs: DOCS,
    scheme: 'Authorization = a bare HS256 JWT (no "Bearer") keyed with the API secret (UTF-8), iss = the API key, nbf = sending time, exp = nbf + 5 min, claim sha256 = base64 (standard, padded) of SHA-256(raw body)',
    secret: '"<API key>:<API secret>", the project API key pair (Cloud dashboard Settings > Keys, or the keys: of a self-hosted config); the key is the required issuer, the secret is the HMAC key',
    timestamp: 'the JWT nbf and exp claims (unix seconds), with 10 s clock tolerance (SDK default); the server makes tokens valid for 5 minutes',
    event_id: { json_pointer: '/id' },
    event_id_note: 'each WebhookEvent carries id (EV_...) and createdAt; a retry re-sends the same event: https://livekit.io/field-guides/guide/managing-webhook-event-streams',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'a few quick retries (hashicorp retryablehttp defaults) and events older than the notifier MaxAge are dropped: seconds to a minute, default window',
    retry_source: 'https://github.com/livekit/protocol/blob/main/webhook/resource_url_notifier.go',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
