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
import { readFileSync, writeFileSync } from 'node:fs';
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
    retry_horizon: 'not stated on the pages reached',
    retry_source: 'https://dev.wix.com/docs/build-apps/develop-your-app/access/authentication/verify-requests-received-from-wix.md',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wix: ${cases.length} cases`);
