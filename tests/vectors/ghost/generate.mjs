// Known-answer vectors for Ghost webhooks, signed by Ghost's own sender:
// WebhookTrigger#trigger in core/server/services/webhooks/webhook-trigger.js of
// the `ghost` npm package 6.65.0 (github.com/TryGhost/Ghost, ghost/core), run
// unchanged. Ghost publishes no verifier; the sender's own code is the source.
// Its three logging/config dependencies and the database are stood in for
// below; the request it would send is captured instead of sent.
//
//   npm pack ghost@6.65.0
//   tar xzf ghost-6.65.0.tgz package/core/server/services/webhooks/webhook-trigger.js
//   node generate.mjs
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Module from 'node:module';

const require = createRequire(import.meta.url);
const TRIGGER = './package/core/server/services/webhooks/webhook-trigger.js';

// Stand-ins for what webhook-trigger.js requires besides `crypto`.
const stubs = {
  '@tryghost/debug': () => () => {},
  '@tryghost/logging': { info() {}, warn() {}, error() {} },
  '@tryghost/version': { safe: '6.65' },
  '../../../shared/config': { get: () => false },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request in stubs) return stubs[request];
  return load.call(this, request, parent, isMain);
};
const WebhookTrigger = require(TRIGGER);

const DOCS = 'https://docs.ghost.org/webhooks';
const SECRET = 'ghost-webhook-secret-5e1f7a2c9b3d';
const OTHER = 'ghost-webhook-secret-0d9c8b7a6f5e';
const HOOK_URL = 'https://hooks.example.com/webhooks/ghost';
const EVENT = 'post.published';
const POST = {
  post: {
    current: { id: '6553d7a0c4f1a2b3c4d5e6f7', uuid: '2f0c6f64-8a62-4f8e-9c55-5d3e0f1a2b3c', title: 'Welcome', slug: 'welcome', status: 'published', updated_at: '2023-11-14T22:13:20.000Z', published_at: '2023-11-14T22:13:20.000Z' },
    previous: { status: 'draft', updated_at: '2023-11-14T22:10:00.000Z', published_at: null },
  },
};
const SENT_MS = 1700000000123;

// Run Ghost's trigger for one webhook and capture what it would send.
async function ghostSends(secret, sentMs) {
  const sent = [];
  const webhook = { id: 'wh1', get: (k) => ({ event: EVENT, target_url: HOOK_URL, secret })[k] };
  const trigger = new WebhookTrigger({
    models: { Webhook: { findAllByEvent: async () => ({ models: [webhook] }), edit: async () => {} } },
    payload: async () => POST,
    request: async (url, opts) => { sent.push({ url, opts }); return { statusCode: 200 }; },
    limitService: { isLimited: () => false },
  });
  const now = Date.now;
  Date.now = () => sentMs;
  try { await trigger.trigger(EVENT, {}); } finally { Date.now = now; }
  return sent[0];
}

const { url, opts } = await ghostSends(SECRET, SENT_MS);
const BODY = opts.body;
const SIG = opts.headers['X-Ghost-Signature'];
const TAMPERED = BODY.replace('Welcome', 'Welcomf');
const NOW = Math.floor(SENT_MS / 1000) + 5;
const { opts: otherOpts } = await ghostSends(OTHER, SENT_MS);

const req = (sig, body = BODY) => ({
  method: 'POST', url,
  headers: [['Content-Type', opts.headers['Content-Type']], ['Content-Version', opts.headers['Content-Version']],
    ...(sig === null ? [] : [['X-Ghost-Signature', sig]])],
  body, now: NOW,
});
const bodySha = (await import('node:crypto')).createHash('sha256').update(BODY).digest('hex');
const ok = { event_id: bodySha, event_type: EVENT };
const cases = [
  { name: 'post.published as WebhookTrigger#trigger sends it', secrets: [SECRET], ...req(SIG), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SIG), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SIG, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(SIG), expect: 'invalid_signature' },
  { name: 'signed by another webhook secret', secrets: [SECRET], ...req(otherOpts.headers['X-Ghost-Signature']), expect: 'invalid_signature' },
  { name: 'X-Ghost-Signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
  { name: 'the signed t= 10 minutes before now', secrets: [SECRET], ...req(SIG), now: NOW + 600, expect: 'timestamp_out_of_tolerance' },
  { name: 'the signed t= 10 minutes after now', secrets: [SECRET], ...req(SIG), now: NOW - 600, expect: 'timestamp_out_of_tolerance' },
];

const out = {
  kind: 'ghost',
  source: {
    kind: 'sdk', package: 'ghost', registry: 'npm', version: '6.65.0',
    function: 'core/server/services/webhooks/webhook-trigger.js WebhookTrigger#trigger (the sender itself)',
    url: DOCS,
  },
  facts: {
    title: 'Ghost',
    docs: DOCS,
    scheme: 'X-Ghost-Signature: sha256=<hex HMAC-SHA256(secret, body + t)>, t=<unix ms>',
    secret: 'the secret set on the custom integration\'s webhook',
    timestamp: 't= in X-Ghost-Signature, unix milliseconds, signed (appended to the body)',
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no delivery or event ID; retries resend the same body and header',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'retried by the sender\'s HTTP client at most 5 times (retry.limit), seconds apart',
    retry_source: 'ghost 6.65.0 core/server/services/webhooks/webhook-trigger.js',
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases; header ${SIG}`);
