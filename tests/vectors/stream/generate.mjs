// Known-answer vectors for Stream (getstream.io Chat) webhooks: every verdict from
// the official SDK's StreamChat#verifyAndParseWebhook (stream-chat), which also
// handles gzip-compressed bodies. The SDK has no signer: the X-Signature values are
// plain HMAC-SHA256 hex digests, and the SDK accepting each valid case (and
// rejecting each other one) is what confirms them.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { StreamChat } from 'stream-chat';

const NOW = 1700000000;
const API_KEY = 'a1b23cdefgh4';
const API_SECRET = 'k3q8z7w2m5r9t4y6u1p0s8d7f6g5h4j3k2l1z9x8c7v6b5n4m3q2w1e0r9t8y7u6';
const OTHER_SECRET = 'zz9yy8xx7ww6vv5uu4tt3ss2rr1qq0pp9oo8nn7mm6ll5kk4jj3ii2hh1gg0ff9ee8';
const HOOK_URL = 'https://hooks.example.com/webhooks/stream/acme';
const WEBHOOK_ID = '123e4567-e89b-12d3-a456-426614174000'; // the docs' example X-Webhook-Id
// A message.new event as Stream Chat sends it (type, cid, message, user, created_at).
const BODY = JSON.stringify({
  type: 'message.new', cid: 'messaging:fun', channel_type: 'messaging', channel_id: 'fun',
  message: { id: 'fc4b0a2e-6a5c-4c3e-9a0e-1f2b3c4d5e6f', text: 'Hello world', html: '<p>Hello world</p>\n', type: 'regular',
    user: { id: 'thierry', role: 'user' }, created_at: '2023-11-14T22:13:18.120Z' },
  user: { id: 'thierry', role: 'user' }, watcher_count: 1, created_at: '2023-11-14T22:13:18.123Z',
});
const TAMPERED = BODY.replace('Hello world', 'Hello wurld');

const sign = (secret, body) => createHmac('sha256', secret).update(body).digest('hex');
const headersFor = (sig, extra = []) => [['Content-Type', 'application/json'], ...extra, ['X-Webhook-Id', WEBHOOK_ID], ['X-Webhook-Attempt', '1'], ['X-Api-Key', API_KEY], ['X-Signature', sig]];
const bodyBytes = (c) => (c.body_base64 !== undefined ? Buffer.from(c.body_base64, 'base64') : Buffer.from(c.body, 'utf8'));

function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'x-signature')?.[1];
  for (const secret of c.secrets) {
    const client = new StreamChat(API_KEY, secret, { allowServerSideConnect: true });
    try {
      client.verifyAndParseWebhook(bodyBytes(c), sig);
      return 'valid';
    } catch (e) {
      if (e.name !== 'InvalidWebhookError' || e.message !== 'signature mismatch') throw e;
    }
  }
  return sig === undefined ? 'missing_signature' : 'invalid_signature';
}

const req = (sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-signature') });
const sig = sign(API_SECRET, BODY);
const ok = { event_id: WEBHOOK_ID, event_type: 'message.new' };
const gz = gzipSync(Buffer.from(BODY, 'utf8'));
const cases = [
  { name: 'message.new with X-Signature = hex HMAC-SHA256(API secret, body), accepted by verifyAndParseWebhook', secrets: [API_SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'gzip-compressed body (Content-Encoding: gzip): the signature covers the uncompressed JSON', secrets: [API_SECRET],
    method: 'POST', url: HOOK_URL, headers: headersFor(sig, [['Content-Encoding', 'gzip']]), body_base64: gz.toString('base64'), now: NOW, expect: 'valid', ...ok },
  { name: 'rotation: the second configured API secret verifies', secrets: [OTHER_SECRET, API_SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [API_SECRET], ...req(sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'gzip body whose signature was computed over the compressed bytes', secrets: [API_SECRET],
    method: 'POST', url: HOOK_URL, headers: headersFor(createHmac('sha256', API_SECRET).update(gz).digest('hex'), [['Content-Encoding', 'gzip']]), body_base64: gz.toString('base64'), now: NOW, expect: 'invalid_signature' },
  { name: 'verified with another API secret', secrets: [OTHER_SECRET], ...req(sig), expect: 'invalid_signature' },
  { name: 'X-Signature removed', secrets: [API_SECRET], ...strip(req(sig)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://getstream.io/chat/docs/unreal/webhooks_overview/';
const out = {
  kind: 'stream',
  source: { kind: 'sdk', package: 'stream-chat', registry: 'npm', version: '9.53.0',
    function: 'StreamChat#verifyAndParseWebhook (gunzip when the body starts with the gzip magic, then verifySignature)', url: DOCS },
  facts: {
    title: 'Stream (Chat)',
    docs: DOCS,
    scheme: 'X-Signature = hex(HMAC-SHA256(API secret as UTF-8, body)); with Content-Encoding: gzip the HMAC covers the decompressed body',
    secret: 'the app\'s API secret from the Stream Dashboard (App > Chat Overview); Stream signs with the most recently created API key\'s secret, named by X-Api-Key',
    timestamp: null,
    event_id: { header: 'X-Webhook-Id' },
    event_id_note: '"Unique ID of the webhook call. This value is consistent between retries and could be used to deduplicate retry calls": https://getstream.io/video/docs/api/webhooks/overview/',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'at most 3 attempts, all within 15 seconds',
    retry_source: 'https://getstream.io/video/docs/api/webhooks/overview/',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
