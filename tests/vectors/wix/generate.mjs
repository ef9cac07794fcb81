// Known-answer vectors for Wix webhooks, with every verdict from the official
// SDK: @wix/sdk 1.21.16, `createClient({ auth: AppStrategy({ appId, publicKey }) })`
// then `client.webhooks.parseJWT(body)`, which verifies the body (a JWT) with
// the app's public key (jose jwtVerify, RS256) and unwraps `data`.
//
// The body of a Wix webhook is a JWT signed RS256 by Wix; its `data` claim is a
// JSON string {eventType, instanceId, data}, whose `data` is again a JSON
// string: the event, with its `id`
// (https://dev.wix.com/docs/build-apps/develop-your-app/access/authentication/verify-requests-received-from-wix.md).
// The tokens are signed here with jose (the library the SDK verifies with)
// and a test key (test-wix-key.pem) standing for Wix's.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { createClient, AppStrategy } from '@wix/sdk';

const APP_ID = '7b1a8f2e-3c4d-4e5f-9a6b-1c2d3e4f5a6b';
const pem = (f) => readFileSync(new URL(`./${f}`, import.meta.url), 'utf8');
const spki = (p) => crypto.createPublicKey(p).export({ type: 'spki', format: 'pem' });
const WIX_PRIVATE = pem('test-wix-key.pem');
const PUBLIC = spki(WIX_PRIVATE);
const OTHER_PUBLIC = spki(pem('test-other-key.pem'));
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/wix';
const EVENT_ID = '5f9c2c8e-6a8f-4a67-9d1c-0b5b6f3c9d21';
const EVENT_TYPE = 'wix.ecom.v1.order_approved';
const inner = JSON.stringify({ id: EVENT_ID, entityFqdn: 'wix.ecom.v1.order', slug: 'approved',
  entityId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d', eventTime: '2023-11-14T22:13:15.000Z',
  actionEvent: { body: { order: { id: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d', number: '10001', status: 'APPROVED' } } } });
const data = JSON.stringify({ eventType: EVENT_TYPE, instanceId: '3c9d6f1a-2b4e-4c8d-a1f0-7e6d5c4b3a29', data: inner });
async function token(privatePem, iat, claims = { data }) {
  const key = await importPKCS8(privatePem, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'qG1kD2dz' }).setIssuedAt(iat)
    .setExpirationTime(iat + 300).sign(key);
}
const good = await token(WIX_PRIVATE, NOW - 2);
const flipped = (() => { const [h, p, s] = good.split('.'); const b = Buffer.from(p, 'base64url').toString().replace('APPROVED', 'APPROVEE'); return [h, Buffer.from(b).toString('base64url'), s].join('.'); })();
const req = (body) => ({ method: 'POST', url: HOOK_URL, now: NOW, headers: [['Content-Type', 'text/plain']], body });
const ok = { event_id: EVENT_ID, event_type: EVENT_TYPE };
const cases = [
  { name: 'order_approved JWT signed RS256, accepted by webhooks.parseJWT', secrets: [PUBLIC], ...req(good), expect: 'valid', ...ok },
  { name: 'a claim changed after signing', secrets: [PUBLIC], ...req(flipped), expect: 'invalid_signature' },
  { name: "verified with another app's public key", secrets: [OTHER_PUBLIC], ...req(good), expect: 'invalid_signature' },
  { name: 'rotation: the tenant holds the old and the new public key', secrets: [OTHER_PUBLIC, PUBLIC], ...req(good), expect: 'valid', ...ok },
  { name: 'the token expired 301 seconds ago (exp = iat + 300)', secrets: [PUBLIC], ...req(await token(WIX_PRIVATE, NOW - 601)), expect: 'timestamp_out_of_tolerance', at: NOW - 400 },
];

async function sdkVerdict(c, now) {
  // jose reads the clock (new Date()) for exp: fix it at `now`.
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try {
    for (const publicKey of c.secrets) {
      const client = createClient({ auth: AppStrategy({ appId: APP_ID, publicKey }), modules: {} });
      try { await client.webhooks.parseJWT(c.body); return "valid"; } catch (e) { if (process.env.DEBUG) console.error(e.message); }
    }
    return 'invalid_signature';
  } finally { globalThis.Date = RealDate; }
}
for (const c of cases) {
  let got = await sdkVerdict(c, c.now);
  if (got === 'invalid_signature' && c.at !== undefined && (await sdkVerdict(c, c.at)) === 'valid') got = 'timestamp_out_of_tolerance';
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
  delete c.at;
}

const out = {
  kind: 'wix',
  source: { kind: 'sdk', package: '@wix/sdk', registry: 'npm', version: '1.21.16',
    function: 'createClient({auth: AppStrategy}).webhooks.parseJWT (verifies with jose jwtVerify, RS256)',
    url: 'https://dev.wix.com/docs/build-apps/develop-your-app/access/authentication/verify-requests-received-from-wix.md' },
  facts: {
    title: 'Wix',
    docs: 'https://dev.wix.com/docs/build-apps/develop-your-app/access/authentication/verify-requests-received-from-wix.md',
    scheme: 'the body is a JWT, RS256, signed by Wix; verified with the app public key; data claim = JSON string {eventType, instanceId, data: JSON string of the event}',
    secret: "the app's public key (Custom Apps > app > View ID & keys), PEM",
    timestamp: 'the JWT iat/exp (exp checked by jose)',
    event_id: { note: 'inside the token: data (JSON string) -> data (JSON string) -> /id' },
    event_id_note: 'the event envelope id inside the doubly-encoded data claim',
    event_type: { note: 'inside the token: data (JSON string) -> /eventType' },
    retry_horizon: 'up to 12 more attempts after a failure, about 47 hours in all (1 min, 10 min, 1 h, 2 h x3, 4 h x3, 8 h x2, 12 h)',
    retry_source: 'https://dev.wix.com/docs/rest/articles/getting-started/webhook-resend-policy',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wix: ${cases.length} cases`);

// The corpus captures (tests/captures/wix/): tokens signed with jose (as above, the test key
// standing for Wix's) at the corpus's fixed time, each accepted by the SDK's webhooks.parseJWT
// before it is written; the tenant's secret is the test key's public half. An order_approved
// event, Wix's resend of it, and the next event of the order. Wix resends until it gets a 200
// (https://dev.wix.com/docs/rest/articles/getting-started/webhook-resend-policy); a resend hours
// later needs a token that has not expired, so it is signed again here (new iat/exp) around the
// same event: the event ID inside it makes it a duplicate.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const DIR = new URL('../../captures/wix/', import.meta.url);
const envelope = (eventType, id, slug, status) => JSON.stringify({ eventType, instanceId: '3c9d6f1a-2b4e-4c8d-a1f0-7e6d5c4b3a29',
  data: JSON.stringify({ id, entityFqdn: 'wix.ecom.v1.order', slug, entityId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
    eventTime: '2025-12-31T23:58:00.000Z', actionEvent: { body: { order: { id: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d', number: '10002', status } } } }) });
const APPROVED_ID = '0d6f3b1e-8a2c-4e5f-9b7a-1c3e5d7f9a2b';
const CANCELED_ID = '6e8a0c2e-4b6d-4f1a-8c3e-5a7b9d1f3c5e';
const RESEND = 'https://dev.wix.com/docs/rest/articles/getting-started/webhook-resend-policy';
const shots = [
  ['0001-order-approved.json', envelope('wix.ecom.v1.order_approved', APPROVED_ID, 'approved', 'APPROVED'), SENT - 120, 'accepted',
    APPROVED_ID, 'wix.ecom.v1.order_approved', 'an order_approved event, the body a JWT signed RS256: https://dev.wix.com/docs/rest/articles/getting-started/webhooks'],
  ['0002-order-approved-resent.json', envelope('wix.ecom.v1.order_approved', APPROVED_ID, 'approved', 'APPROVED'), SENT - 60, 'duplicate',
    APPROVED_ID, 'wix.ecom.v1.order_approved', `Wix resends an event it believes was not received (a token signed again, the same event inside): ${RESEND}`],
  ['0003-order-canceled.json', envelope('wix.ecom.v1.order_canceled', CANCELED_ID, 'canceled', 'CANCELED'), SENT, 'accepted',
    CANCELED_ID, 'wix.ecom.v1.order_canceled', 'the next event of the order, under its own ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, env, iat, expect, id, type, why] of shots) {
  const body = await token(WIX_PRIVATE, iat, { data: env });
  if ((await sdkVerdict({ secrets: [PUBLIC], body }, iat + 1)) !== 'valid') throw new Error(`${file}: not accepted by webhooks.parseJWT`);
  const capture = { provider: 'wix', kind: 'wix', tenant: 'default', method: 'POST', path: '/webhooks/wix', query: '',
    headers: [['Content-Type', 'text/plain']], body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `wix/${file}`, expect, events: [{ id, type }], why });
}
const manifest = { route: 'wix', kind: 'wix', secrets: [PUBLIC],
  source: 'signed RS256 with jose 5.10.0 and a test key standing for Wix\'s (tests/vectors/wix/test-wix-key.pem), accepted by @wix/sdk 1.21.16 webhooks.parseJWT with its public half, which the route\'s secrets hold: tests/vectors/wix/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`wix: ${captures.length} captures`);
