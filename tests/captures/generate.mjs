// Builds the capture corpus (tests/captures/README.md): provider payloads,
// each signed by the provider's own SDK, or by a signer written from the
// provider's docs and then accepted by the SDK's (or the docs' sample's)
// verifier. hookline never signs anything here. Every capture is verified
// again before it is written; a disagreement stops the script.
//
//   cd tests/captures && npm ci && node generate.mjs
//
// Writes <route>/<nnnn>-<name>.json (the format `[capture] dir` writes and
// `hookline replay` reads) and manifest.json: every capture in the order it
// is sent, with the verdict hookline must give it and the events it carries.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import Mux from '@mux/mux-node';
import { validateSignature as lineValidate } from '@line/bot-sdk';
import hubspot from '@hubspot/api-client';
import Stripe from 'stripe';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import '@shopify/shopify-api/adapters/node';
import { shopifyApi, ApiVersion } from '@shopify/shopify-api';
import { retries, SECRETS as MORE_SECRETS } from './retries.mjs';

const require = createRequire(import.meta.url);
const { TelnyxWebhook } = require('telnyx/lib/webhooks.js');
const examples = require('@octokit/webhooks-examples');
const HERE = path.dirname(new URL(import.meta.url).pathname);

// Every capture was "sent" at this time (2026-01-01T00:00:00Z): the replay
// test gives the receiver a tolerance that covers it (see README.md).
const TS = 1767225600;
const RECEIVED_AT = '2026-01-01T00:00:00+00:00';
// The base URL the providers were given; URL-signed schemes (HubSpot) sign it.
const PUBLIC_URL = 'https://hooks.example.com';

// Test secrets, one tenant (`default`) per route.
const SECRETS = {
  github: 'corpus-github-webhook-secret',
  mux: 'corpus-mux-signing-secret-0123456789',
  line: '5f4e3d2c1b0a99887766554433221100',
  intercom: '7e1c0ffe-5a4b-4c3d-8e2f-1a2b3c4d5e6f',
  hubspot: 'corpus-hubspot-client-secret-0000',
  stripe: 'whsec_corpusStripeSigningSecret0123',
  shopify: 'corpus-shopify-app-client-secret',
  'standard-webhooks': 'whsec_' + Buffer.from('corpus-standard-webhooks-key-material').toString('base64'),
};
// Telnyx signs with Ed25519; the tenant holds the public key (a fixed seed).
function keyFromSeed(seedHex) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const privateKey = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const pub = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url').toString('base64');
  return { privateKey, pub };
}
const TELNYX = keyFromSeed('8a1f3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a');
SECRETS.telnyx = TELNYX.pub;

const captures = [];
const counters = {};
const header = (headers, name) => headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

// One capture: written as the receiver's capture files are, and listed in
// the manifest with its expected verdict and events ({id, type}).
function add(route, name, headers, body, expect, events, why, query = '') {
  counters[route] = (counters[route] ?? 0) + 1;
  const file = `${route}/${String(counters[route]).padStart(4, '0')}-${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}.json`;
  const capture = {
    provider: route, kind: route, tenant: 'default', method: 'POST',
    path: `/webhooks/${route}`, query, headers, body_base64: Buffer.from(body).toString('base64'),
    received_at: RECEIVED_AT,
  };
  fs.mkdirSync(path.join(HERE, route), { recursive: true });
  fs.writeFileSync(path.join(HERE, file), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file, expect, events, ...(why ? { why } : {}) });
}

async function atClock(seconds, f) {
  const real = Date.now;
  Date.now = () => seconds * 1000;
  try { return await f(); } finally { Date.now = real; }
}
function must(ok, what) {
  if (!ok) throw new Error(`the provider's verifier refuses ${what}`);
}

// A stable UUID for a name: the delivery IDs GitHub would have given.
function uuidFor(name) {
  const h = crypto.createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// --- GitHub: octokit's 329 example payloads, each one delivery ----------------
// Signed by @octokit/webhooks-methods sign(); verify() must accept each.
async function github(body, event, delivery) {
  const signature = await octokitSign(SECRETS.github, body);
  must(await octokitVerify(SECRETS.github, body, signature), `GitHub delivery ${delivery}`);
  return [
    ['User-Agent', 'GitHub-Hookshot/corpus'], ['Content-Type', 'application/json'],
    ['X-GitHub-Event', event], ['X-GitHub-Delivery', delivery], ['X-Hub-Signature-256', signature],
  ];
}
let firstGithub;
for (const family of examples) {
  for (const [i, example] of family.examples.entries()) {
    const body = JSON.stringify(example);
    const delivery = uuidFor(`octokit ${family.name} ${i}`);
    const name = `${family.name}${example.action ? '-' + example.action : ''}-${i}`;
    add('github', name, await github(body, family.name, delivery), body, 'accepted',
      [{ id: delivery, type: family.name }]);
    firstGithub ??= { name, body, event: family.name, delivery };
  }
}
// A redelivery (the UI's "Redeliver"): the same X-GitHub-Delivery and body.
add('github', `${firstGithub.name}-redelivered`, await github(firstGithub.body, firstGithub.event, firstGithub.delivery),
  firstGithub.body, 'duplicate', [{ id: firstGithub.delivery, type: firstGithub.event }],
  'a redelivery keeps X-GitHub-Delivery: https://docs.github.com/en/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks');

// --- Mux: a retry grows attempts[] -------------------------------------------
// Signed as documented (t=<unix>,v1=<hex HMAC-SHA256(secret, t.body)>), accepted
// by @mux/mux-node webhooks.verifySignature at the signing time.
const mux = new Mux({ tokenId: 'unused', tokenSecret: 'unused' });
async function muxHeaders(body, ts) {
  const v1 = crypto.createHmac('sha256', SECRETS.mux).update(`${ts}.${body}`).digest('hex');
  const headers = [['Content-Type', 'application/json'], ['Mux-Signature', `t=${ts},v1=${v1}`]];
  await atClock(ts, () => mux.webhooks.verifySignature(body, { 'mux-signature': `t=${ts},v1=${v1}` }, SECRETS.mux));
  return headers;
}
const muxEvent = (attempts, status = 'ready') => JSON.stringify({
  type: 'video.asset.ready',
  object: { type: 'asset', id: 'AzXG6x5gN9tX02sZy02oV3ZJ5h2b3Gr4hK' },
  id: '3a56ac3d-33da-4366-855b-f592d898409d',
  environment: { name: 'Production', id: 'j0863n' },
  data: { status, id: 'AzXG6x5gN9tX02sZy02oV3ZJ5h2b3Gr4hK', duration: 23.8 },
  created_at: '2025-12-31T23:59:58.000000Z',
  attempts, accessor_source: null, accessor: null, request_id: null,
});
const muxAttempt = { webhook_id: 81253, response_status_code: 500, response_headers: {}, response_body: 'error', max_attempts: 30, id: 'c21e4d1c-6d3b-4b7d-9f5d-2c1c3e0e1a01', created_at: '2026-01-01T00:00:00.000000Z', address: `${PUBLIC_URL}/webhooks/mux` };
const MUX = { id: '3a56ac3d-33da-4366-855b-f592d898409d', type: 'video.asset.ready' };
add('mux', 'video.asset.ready', await muxHeaders(muxEvent([]), TS), muxEvent([]), 'accepted', [MUX]);
add('mux', 'video.asset.ready-retry', await muxHeaders(muxEvent([muxAttempt]), TS + 60), muxEvent([muxAttempt]), 'duplicate', [MUX],
  'a retry re-sends the event with attempts[] grown by one: https://www.mux.com/docs/core/listen-for-webhooks');
add('mux', 'video.asset.ready-changed', await muxHeaders(muxEvent([muxAttempt], 'errored'), TS + 120), muxEvent([muxAttempt], 'errored'), 'conflict', [MUX],
  'the same event ID with other content (data.status) is a conflict, not a retry');

// --- LINE: redelivery, a batch, and the console's Verify button ---------------
// x-line-signature = base64 HMAC-SHA256(channel secret, body), accepted by
// @line/bot-sdk validateSignature.
function lineHeaders(body) {
  const signature = crypto.createHmac('sha256', SECRETS.line).update(body).digest('base64');
  must(lineValidate(body, SECRETS.line, signature), 'the LINE request');
  return [['Content-Type', 'application/json; charset=utf-8'], ['x-line-signature', signature]];
}
const lineMessage = (id, text, redelivery) => ({
  type: 'message', message: { type: 'text', id: `1435379892${id.slice(-4)}`, text },
  timestamp: 1767225599000, source: { type: 'user', userId: 'U80696558e1aa831f7c2c2a3e7e4b1e30' },
  replyToken: `757913772c4646b784d4b7ce46d1${id.slice(-4)}`, mode: 'active',
  webhookEventId: id, deliveryContext: { isRedelivery: redelivery },
});
const LINE_A = '01HZ74A0TDDPYRVKNK77XKC3ZR';
const LINE_B = '01HZ74A0TDDPYRVKNK77XKC4AB';
const LINE_C = '01HZ74A0TDDPYRVKNK77XKC5CD';
const lineBody = (events) => JSON.stringify({ destination: 'U1234567890abcdef1234567890abcdef', events });
let body = lineBody([lineMessage(LINE_A, 'Hello, world', false)]);
add('line', 'message', lineHeaders(body), body, 'accepted', [{ id: LINE_A, type: 'message' }]);
body = lineBody([lineMessage(LINE_A, 'Hello, world', true)]);
add('line', 'message-redelivered', lineHeaders(body), body, 'duplicate', [{ id: LINE_A, type: 'message' }],
  'a redelivery keeps webhookEventId and sets deliveryContext.isRedelivery: https://developers.line.biz/en/docs/messaging-api/receiving-messages/#webhook-redelivery');
body = lineBody([lineMessage(LINE_B, 'first of two', false), lineMessage(LINE_C, 'second of two', false)]);
add('line', 'two-messages', lineHeaders(body), body, 'accepted', [{ id: LINE_B, type: 'message' }, { id: LINE_C, type: 'message' }],
  'one request may carry several events: https://developers.line.biz/en/reference/messaging-api/#request-body');
body = lineBody([]);
add('line', 'verify-button', lineHeaders(body), body, 'accepted', [],
  "the console's Verify button sends an empty events array: https://developers.line.biz/en/reference/messaging-api/#response");

// --- Telnyx: attempt 2 of one event ------------------------------------------
// Ed25519 over "<timestamp>|<body>", accepted by telnyx TelnyxWebhook#verify.
async function telnyxHeaders(body, ts) {
  const signature = crypto.sign(null, Buffer.from(`${ts}|${body}`), TELNYX.privateKey).toString('base64');
  const headers = [['Content-Type', 'application/json'], ['telnyx-timestamp', String(ts)], ['telnyx-signature-ed25519', signature]];
  await atClock(ts, () => new TelnyxWebhook(TELNYX.pub).verify(body, Object.fromEntries(headers)));
  return headers;
}
const TELNYX_ID = 'b301ed3f-1490-491f-995f-6e64e69674d4';
const telnyxEvent = (attempt) => JSON.stringify({
  data: {
    event_type: 'message.received', id: TELNYX_ID, occurred_at: '2025-12-31T23:59:59.000+00:00', record_type: 'event',
    payload: { direction: 'inbound', from: { phone_number: '+13125550001' }, id: '84cca175-9755-4859-b67f-4730d7f58aa3', text: 'Hello from Telnyx!', to: [{ phone_number: '+17735550002' }], type: 'SMS' },
  },
  meta: { attempt, delivered_to: `${PUBLIC_URL}/webhooks/telnyx` },
});
const TEL = [{ id: TELNYX_ID, type: 'message.received' }];
add('telnyx', 'message.received', await telnyxHeaders(telnyxEvent(1), TS), telnyxEvent(1), 'accepted', TEL);
add('telnyx', 'message.received-attempt-2', await telnyxHeaders(telnyxEvent(2), TS + 5), telnyxEvent(2), 'duplicate', TEL,
  'a retry re-sends data.id with meta.attempt raised: https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks');

// --- Intercom: a retry raises delivery_attempts ------------------------------
// X-Hub-Signature: sha1=<hex HMAC-SHA1(client secret, body)>, checked by the
// signature lines of Intercom's sample receiver (intercom/intercom-webhooks
// python/flask/webhook_flask.py), run unchanged by python3.
const INTERCOM_SAMPLE = `
import hashlib, hmac, sys
KEY, DATA, EXPECTED = sys.argv[1], sys.stdin.buffer.read(), sys.argv[2]
calculated = hmac.new(KEY.encode("ascii"), DATA, hashlib.sha1).hexdigest()
calculated = "sha1=" + (calculated)
sys.exit(0 if calculated == EXPECTED else 1)
`;
function intercomHeaders(body) {
  const signature = 'sha1=' + crypto.createHmac('sha1', SECRETS.intercom).update(body).digest('hex');
  execFileSync('python3', ['-c', INTERCOM_SAMPLE, SECRETS.intercom, signature], { input: body });
  return [['Content-Type', 'application/json'], ['X-Hub-Signature', signature]];
}
const INTERCOM_ID = 'notif_35c466b0-070a-11e6-a507-3d022cab75f8';
const intercomEvent = (attempts, deliveredAt) => JSON.stringify({
  type: 'notification_event', app_id: 'a86dr8yl',
  data: { type: 'notification_event_data', item: { type: 'contact', id: '57179c30c776e05d4c0002a8', user_id: '712529d3-919d-4a91-ac31-60979319594d', anonymous: true, email: '', name: null, pseudonym: 'Green Deer from Bandar Seri Begawan', app_id: 'a86dr8yl', created_at: '2025-12-31T23:59:50.074Z', updated_at: '2025-12-31T23:59:51.357Z', unsubscribed_from_emails: false, custom_attributes: {} } },
  links: {}, id: INTERCOM_ID, topic: 'contact.created', delivery_status: null,
  delivery_attempts: attempts, delivered_at: deliveredAt, first_sent_at: TS, created_at: TS - 9, self: null,
});
const INT = [{ id: INTERCOM_ID, type: 'contact.created' }];
body = intercomEvent(1, 0);
add('intercom', 'contact.created', intercomHeaders(body), body, 'accepted', INT);
body = intercomEvent(2, 0);
add('intercom', 'contact.created-attempt-2', intercomHeaders(body), body, 'duplicate', INT,
  'a retry raises delivery_attempts (and delivered_at on success): https://developers.intercom.com/docs/references/webhooks/webhook-models');

// --- HubSpot: a batch, then its retry with attemptNumber raised ---------------
// X-HubSpot-Signature-v3 from @hubspot/api-client Signature.getSignature,
// accepted by Signature.isValid at the signing time.
const { Signature } = hubspot;
function hubspotHeaders(body, tsMs) {
  const url = `${PUBLIC_URL}/webhooks/hubspot`;
  const signature = Signature.getSignature('POST', 'v3', { clientSecret: SECRETS.hubspot, url, requestBody: body, timestamp: tsMs });
  const ok = Date.now; Date.now = () => tsMs;
  try {
    must(Signature.isValid({ signatureVersion: 'v3', method: 'POST', signature, clientSecret: SECRETS.hubspot, requestBody: body, url, timestamp: tsMs }), 'the HubSpot batch');
  } finally { Date.now = ok; }
  return [['Content-Type', 'application/json'], ['X-HubSpot-Signature-v3', signature], ['X-HubSpot-Request-Timestamp', String(tsMs)]];
}
const hubspotBatch = (attempt) => JSON.stringify([
  { eventId: 1771, subscriptionId: 12345, portalId: 62515, appId: 54321, occurredAt: 1767225590000, subscriptionType: 'contact.creation', attemptNumber: attempt, objectId: 123, changeSource: 'CRM', changeFlag: 'NEW' },
  { eventId: 1772, subscriptionId: 12346, portalId: 62515, appId: 54321, occurredAt: 1767225591000, subscriptionType: 'contact.propertyChange', attemptNumber: attempt, objectId: 123, propertyName: 'email', propertyValue: 'bear@acme.example', changeSource: 'CRM' },
]);
const HUB = [{ id: '1771', type: 'contact.creation' }, { id: '1772', type: 'contact.propertyChange' }];
body = hubspotBatch(0);
add('hubspot', 'contact-batch', hubspotHeaders(body, TS * 1000), body, 'accepted', HUB,
  'a request is an array of up to 100 events, each with its own eventId: https://developers.hubspot.com/docs/api/webhooks');
body = hubspotBatch(1);
add('hubspot', 'contact-batch-retry', hubspotHeaders(body, TS * 1000 + 60000), body, 'duplicate', HUB,
  'a retry re-sends the events with attemptNumber raised: https://developers.hubspot.com/docs/api/webhooks');

// --- Stripe: the public example events, and a redelivery ---------------------
// Stripe-Signature from stripe-node webhooks.generateTestHeaderString,
// accepted by webhooks.constructEvent.
const stripe = new Stripe('sk_test_unused');
function stripeHeaders(body, ts) {
  const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRETS.stripe, timestamp: ts });
  const ok = Date.now; Date.now = () => ts * 1000;
  try { stripe.webhooks.constructEvent(body, signature, SECRETS.stripe); } finally { Date.now = ok; }
  return [['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)'], ['Content-Type', 'application/json; charset=utf-8'], ['Stripe-Signature', signature]];
}
const payload = (file) => fs.readFileSync(path.join(HERE, 'payloads', file), 'utf8');
let firstStripe;
for (const file of ['setup_intent-created.json', 'payment_intent-created.json', 'payment_intent-succeeded.json', 'charge-succeeded.json', 'invoice-paid.json', 'customer-created.json']) {
  const b = payload(`stripe/${file}`);
  const event = JSON.parse(b);
  add('stripe', event.type, stripeHeaders(b, TS), b, 'accepted', [{ id: event.id, type: event.type }]);
  firstStripe ??= { b, event };
}
add('stripe', `${firstStripe.event.type}-retry`, stripeHeaders(firstStripe.b, TS + 3600), firstStripe.b, 'duplicate',
  [{ id: firstStripe.event.id, type: firstStripe.event.type }],
  'a retry re-sends the same event, signed again with a new timestamp: https://docs.stripe.com/webhooks#retries');

// --- Standard Webhooks: the spec's examples -----------------------------------
// webhook-signature from the standardwebhooks reference library's sign(),
// accepted by its verify().
async function standardHeaders(id, body, ts) {
  const wh = new StandardWebhook(SECRETS['standard-webhooks']);
  const signature = wh.sign(id, new Date(ts * 1000), body);
  const headers = [['Content-Type', 'application/json'], ['webhook-id', id], ['webhook-timestamp', String(ts)], ['webhook-signature', signature]];
  await atClock(ts, () => wh.verify(body, Object.fromEntries(headers)));
  return headers;
}
for (const [file, id] of [['example-event.json', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4X'], ['contact-created-full.json', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4Y'], ['contact-created-thin-minified.json', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W']]) {
  const b = payload(`standard-webhooks/${file}`);
  add('standard-webhooks', file.replace('.json', ''), await standardHeaders(id, b, TS), b, 'accepted', [{ id, type: JSON.parse(b).type }]);
}

// --- Shopify: one order body under several topics ----------------------------
// X-Shopify-Hmac-Sha256 = base64 HMAC-SHA256(client secret, body), as the docs
// say; @shopify/shopify-api webhooks.validate accepts each request.
const shopify = shopifyApi({ apiKey: 'corpus', apiSecretKey: SECRETS.shopify, scopes: [], hostName: 'hooks.example.com',
  apiVersion: ApiVersion.July26, isEmbeddedApp: false, logger: { level: 0 } });
async function shopifyHeaders(b, topic, webhookId, eventId) {
  const hmac = crypto.createHmac('sha256', SECRETS.shopify).update(b).digest('base64');
  const headers = [['Content-Type', 'application/json'], ['X-Shopify-Topic', topic], ['X-Shopify-Hmac-Sha256', hmac],
    ['X-Shopify-Shop-Domain', 'acme.myshopify.com'], ['X-Shopify-API-Version', '2024-07'], ['X-Shopify-Webhook-Id', webhookId],
    ['X-Shopify-Event-Id', eventId], ['X-Shopify-Triggered-At', RECEIVED_AT]];
  const check = await shopify.webhooks.validate({ rawBody: b, rawRequest: { method: 'POST', url: '/webhooks/shopify', headers: Object.fromEntries(headers.map(([k, v]) => [k.toLowerCase(), v])) } });
  must(check.valid, `Shopify ${topic}`);
  return headers;
}
// shopify.dev's sample order is byte-identical for orders/create, /updated,
// /paid, /fulfilled, /partially_fulfilled and /cancelled (payloads/SOURCES.md).
const order = payload('shopify/orders-create.json');
const ORDER_TOPICS = [['orders/create', 'e07380e6-544a-40cc-b979-f70a8c5b60c9', '9a3f1c20-7d4e-4b5a-8c6d-1e2f3a4b5c6d'],
  ['orders/paid', '5b1e8f3c-2a4d-4e6f-9b7a-0c1d2e3f4a5b', '0d2b4f6a-8c1e-4a3b-9d5f-7e9a1c3b5d7f']];
for (const [topic, webhookId, eventId] of ORDER_TOPICS) {
  add('shopify', topic, await shopifyHeaders(order, topic, webhookId, eventId), order, 'accepted', [{ id: webhookId, type: topic }],
    topic === 'orders/paid' ? 'an order created paid: orders/create and orders/paid carry one identical body, distinct events' : undefined);
}
add('shopify', 'orders/create-retry', await shopifyHeaders(order, ...ORDER_TOPICS[0]), order, 'duplicate', [{ id: ORDER_TOPICS[0][1], type: 'orders/create' }],
  'a retry keeps X-Shopify-Webhook-Id and the original payload: https://shopify.dev/changelog/updates-to-webhook-retry-mechanism');
const product = payload('shopify/products-update.json');
add('shopify', 'products/update', await shopifyHeaders(product, 'products/update', '6a910b68-09ca-437d-9f7e-7f2af21f1b91', '2c4e6a8b-0d1f-4b3c-8e5a-7c9d1f3b5e7a'), product, 'accepted',
  [{ id: '6a910b68-09ca-437d-9f7e-7f2af21f1b91', type: 'products/update' }]);

await retries({ add, atClock, must, TS });
Object.assign(SECRETS, MORE_SECRETS);

const manifest = {
  about: 'The capture corpus in the order it is sent: the verdict hookline must give each capture and the events it carries. Built by generate.mjs; see README.md.',
  sent_at: TS,
  public_url: PUBLIC_URL,
  providers: Object.fromEntries(Object.entries(SECRETS).map(([route, secret]) => [route, { kind: route, secrets: [secret] }])),
  captures,
};
fs.writeFileSync(path.join(HERE, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
const byVerdict = captures.reduce((m, c) => ({ ...m, [c.expect]: (m[c.expect] ?? 0) + 1 }), {});
console.log(`${captures.length} captures`, byVerdict);
