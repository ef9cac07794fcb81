// Known-answer vectors for PayPal webhooks (REST), checked by PayPal's own
// paypal-rest-sdk@1.6.9 (github.com/paypal/PayPal-node-SDK), whose
// notification.webhookEvent.verify checks the transmission signature locally
// (later versions call PayPal's verify-webhook-signature API instead, which
// needs account credentials). Requests are signed here with a self-signed
// test certificate (test-key.pem / test-cert.pem, made once with openssl;
// RSA PKCS#1 v1.5 is deterministic) over the documented string
// transmission_id|transmission_time|webhook_id|crc32(body); the SDK's
// certificate download is redirected to that PEM inside this process only.
import fs from 'node:fs';
import crypto from 'node:crypto';
import https from 'node:https';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { withLateCopy } from '../identity.mjs';

const require = createRequire(import.meta.url);
const crc32 = require('buffer-crc32');
const KEY = fs.readFileSync('test-key.pem', 'utf8');
const CERT = fs.readFileSync('test-cert.pem', 'utf8');
const CERT_URL = 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-hookline0';
const WEBHOOK_ID = '1JE4291016473214C';          // the webhook's ID from the developer dashboard
const OTHER_WEBHOOK_ID = '8PT597110X687430LKGECATA';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/paypal';
const TRANSMISSION_ID = '69cd13f0-d67a-11e5-baa3-778b53f4ae55';
const TRANSMISSION_TIME = '2023-11-14T22:13:18Z';

// The SDK fetches PAYPAL-CERT-URL with https.get: serve our PEM for our URL.
https.get = (url, cb) => {
  const res = new EventEmitter();
  process.nextTick(() => {
    cb(res);
    if (url === CERT_URL) res.emit('data', CERT);
    res.emit('end');
  });
  return new EventEmitter();
};
const paypal = require('paypal-rest-sdk');

// The documented PAYMENT.CAPTURE.COMPLETED event: https://developer.paypal.com/api/rest/webhooks/event-names/
const EVENT_ID = 'WH-58D329510W468432D-8HN650336L201105X';
const BODY = JSON.stringify({
  id: EVENT_ID, create_time: '2023-11-14T22:13:16.000Z', resource_type: 'capture', event_version: '1.0',
  event_type: 'PAYMENT.CAPTURE.COMPLETED', summary: 'Payment completed for $ 7.47 USD',
  resource: { id: '42311647XV020574X', status: 'COMPLETED', amount: { currency_code: 'USD', value: '7.47' }, final_capture: true, create_time: '2023-11-14T22:13:15Z' },
  links: [{ href: 'https://api.paypal.com/v1/notifications/webhooks-events/WH-58D329510W468432D-8HN650336L201105X', rel: 'self', method: 'GET' }],
});

const expected = (id, time, webhookId, body) => `${id}|${time}|${webhookId}|${crc32.unsigned(body)}`;
const sign = (text) => crypto.sign('RSA-SHA256', Buffer.from(text), KEY).toString('base64');
function request({ webhookId = WEBHOOK_ID, b = BODY, certUrl = CERT_URL, drop = false, algo = 'SHA256withRSA' } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['PAYPAL-AUTH-ALGO', algo],
    ['PAYPAL-CERT-URL', certUrl],
    ['PAYPAL-TRANSMISSION-ID', TRANSMISSION_ID],
    ['PAYPAL-TRANSMISSION-TIME', TRANSMISSION_TIME],
  ];
  if (!drop) headers.push(['PAYPAL-TRANSMISSION-SIG', sign(expected(TRANSMISSION_ID, TRANSMISSION_TIME, webhookId, BODY))]);
  return { method: 'POST', url: URL, headers, body: b };
}
const cases = [
  { name: 'valid transmission signature', secrets: [WEBHOOK_ID], ...request(), expect: 'valid' },
  { name: 'one body byte changed (the CRC32 no longer matches)', secrets: [WEBHOOK_ID], ...request({ b: BODY.replace('7.47', '7.48') }), expect: 'invalid_signature' },
  { name: 'verified for another webhook ID', secrets: [OTHER_WEBHOOK_ID], ...request(), expect: 'invalid_signature' },
  { name: 'PAYPAL-TRANSMISSION-SIG removed', secrets: [WEBHOOK_ID], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds two webhook IDs', secrets: [OTHER_WEBHOOK_ID, WEBHOOK_ID], ...request(), expect: 'valid' },
  // The SDK downloads any URL it is given; hookline fetches only from its
  // allow-list (NOTES.md). The SDK here gets nothing for that URL.
  { name: 'PAYPAL-CERT-URL outside the allow-list', secrets: [WEBHOOK_ID], ...request({ certUrl: 'https://paypal.com.evil.example/v1/notifications/certs/CERT-1' }), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: 'PAYMENT.CAPTURE.COMPLETED' } : {}) }));

const verify = (c, webhookId) => new Promise((resolve) => {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k, v]));
  paypal.notification.webhookEvent.verify(headers, c.body, webhookId, (err, ok) => resolve(!err && ok === true));
});
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function sdkVerdict(c) {
  if (header(c, 'PAYPAL-TRANSMISSION-SIG') === undefined) return 'missing_signature';
  for (const id of c.secrets) if (await verify(c, id)) return 'valid';
  return 'invalid_signature';
}
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: paypal-rest-sdk says ${got}, the case says ${c.expect}`);
}

const DOCS = 'https://developer.paypal.com/api/rest/webhooks/rest/';
const out = {
  kind: 'paypal',
  source: {
    kind: 'sdk', package: 'paypal-rest-sdk', registry: 'npm', version: '1.6.9',
    function: 'notification.webhookEvent.verify (local signature check; certificate download redirected to test-cert.pem)',
    url: DOCS + '#link-selfverificationmethod',
  },
  facts: {
    title: 'PayPal (REST webhooks)',
    docs: DOCS,
    scheme: 'PAYPAL-TRANSMISSION-SIG = base64 RSA signature (PAYPAL-AUTH-ALGO, SHA256withRSA) of PAYPAL-TRANSMISSION-ID + "|" + PAYPAL-TRANSMISSION-TIME + "|" + webhook ID + "|" + decimal unsigned CRC32 of the raw body, verified with the X.509 certificate at PAYPAL-CERT-URL (https, allow-listed PayPal host)',
    secret: "the webhook's ID shown in the developer dashboard (My Apps & Credentials > app > Webhooks); not secret, but it binds the signature to this webhook",
    timestamp: 'PAYPAL-TRANSMISSION-TIME, ISO 8601, signed; no tolerance documented',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the event id (WH-...) identifies the event; PAYPAL-TRANSMISSION-ID identifies one delivery: ' + DOCS,
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'redelivered up to 25 times over 3 days when no 2xx is received',
    retry_source: 'https://developer.paypal.com/api/rest/webhooks/',
    handshake: null,
  },
  certs: { [CERT_URL]: CERT },
  cases,
};
withLateCopy(out, 306, "no tolerance documented; the definition's is 300 s");
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`paypal: ${cases.length} cases`);
