// Known-answer vectors for Telnyx (API v2 webhooks), checked by Telnyx's
// official SDK: TelnyxWebhook#verify (telnyx/lib/webhooks.js) decides every
// verdict with its clock fixed at the case's `now`. The SDK only verifies, so
// requests are signed here with a seeded Ed25519 test key (deterministic).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { TelnyxWebhook } = require('telnyx/lib/webhooks.js');

// A test key pair from a fixed seed; the public key is what Mission Control
// shows: 32 bytes, base64.
function keyFromSeed(seedHex) {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const privateKey = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const pub = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url').toString('base64');
  return { privateKey, pub };
}
const KEY = keyFromSeed('c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7');
const OTHER = keyFromSeed('f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/telnyx';
const SIG_HEADER = 'telnyx-signature-ed25519';
const TS_HEADER = 'telnyx-timestamp';
// The documented message.received event: https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks
const EVENT_ID = 'b301ed3f-1490-491f-995f-6e64e69674d4';
const BODY = JSON.stringify({
  data: {
    event_type: 'message.received', id: EVENT_ID, occurred_at: '2023-11-14T22:13:17.000+00:00', record_type: 'event',
    payload: { direction: 'inbound', from: { phone_number: '+13125550001' }, id: '84cca175-9755-4859-b67f-4730d7f58aa3', text: 'Hello from Telnyx!', to: [{ phone_number: '+17735550002' }], type: 'SMS' },
  },
  meta: { attempt: 1, delivered_to: URL },
});

const sign = (key, ts, b) => crypto.sign(null, Buffer.from(`${ts}|${b}`), key.privateKey).toString('base64');
function request({ at = NOW - 2, key = KEY, b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [TS_HEADER, String(at)]];
  if (!drop) headers.push([SIG_HEADER, sign(key, at, BODY)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}
const cases = [
  { name: 'valid Ed25519 signature', secrets: [KEY.pub], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [KEY.pub], ...request({ b: BODY.replace('Hello', 'Jello') }), expect: 'invalid_signature' },
  { name: 'verified with another public key', secrets: [OTHER.pub], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [KEY.pub], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [KEY.pub], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [KEY.pub], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'tenant holds the old and the new public key', secrets: [OTHER.pub, KEY.pub], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: 'message.received' } : {}) }));

async function atClock(now, f) {
  const real = Date.now;
  Date.now = () => now * 1000;
  try { return await f(); } finally { Date.now = real; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const k of c.secrets) {
    try { await atClock(now, () => new TelnyxWebhook(k).verify(c.body, Object.fromEntries(c.headers))); return true; } catch { /* next key */ }
  }
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (await accepts(c, c.at)) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: telnyx says ${got}, the case says ${c.expect}`);
  delete c.at;
}

const DOCS = 'https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks';
const out = {
  kind: 'telnyx',
  source: { kind: 'sdk', package: 'telnyx', registry: 'npm', version: '7.24.0', function: 'TelnyxWebhook#verify (lib/webhooks.js)', url: DOCS },
  facts: {
    title: 'Telnyx',
    docs: DOCS,
    scheme: 'telnyx-signature-ed25519 = base64 Ed25519 signature of telnyx-timestamp + "|" + raw body; the secret is the account\'s public key',
    secret: 'the public key from Mission Control (Keys & Credentials > Public Key): 32 bytes, base64',
    timestamp: 'telnyx-timestamp, unix seconds, signed; the SDK refuses more than 300 s either way',
    event_id: { json_pointer: '/data/id' },
    event_id_note: 'data.id identifies the event; meta.attempt counts deliveries, so the body hash changes between attempts: ' + DOCS,
    event_type: { json_pointer: '/data/event_type' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`telnyx: ${cases.length} cases`);
