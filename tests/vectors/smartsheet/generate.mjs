// Handshake vectors for Smartsheet webhooks, from the documented verification
// request (https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-verification):
// "The request includes a Smartsheet-Hook-Challenge header that contains a
// unique random value and includes a request body containing a JSON object
// with only challenge and webhookId attributes ... the subscriber's response
// ... must return a 200 HTTP status code and must echo back the same unique
// random value in the Smartsheet-Hook-Response header of the response or with
// a JSON smartsheetHookResponse attribute."
// Signature cases: the "Authenticating callbacks (optional)" section of
// https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks
// names the Smartsheet-Hmac-SHA256 header, an HMAC-SHA256 of the callback
// body keyed with the webhook's sharedSecret; the digest is written as hex
// here (see NOTES.md for where that comes from).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/smartsheet';
const CHALLENGE = 'd78dd1d3-01ce-4481-81de-92b4f3aa5ab1';
const WEBHOOK_ID = 2674017481058180;
const body = JSON.stringify({ challenge: CHALLENGE, webhookId: WEBHOOK_ID });
const SECRET = '2ugfmbsuuetkvcwzlaf2qqp9ch';
// A skinny event callback (the documented shape: nonce, timestamp,
// webhookId, scope, scopeObjectId, events).
const CALLBACK = JSON.stringify({
  nonce: '4b2ed20d-6f00-4b0c-8fac-082182aa9aac', timestamp: '2023-11-14T22:13:20.000+00:00',
  webhookId: WEBHOOK_ID, scope: 'sheet', scopeObjectId: 3285357287499652,
  events: [{ objectType: 'cell', eventType: 'updated', rowId: 7886095586224004, columnId: 5846345529771908, userId: 1879903811766148, timestamp: '2023-11-14T22:13:10.000+00:00' }],
});
const hmac = (key, body) => crypto.createHmac('sha256', key).update(body).digest('hex');
const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');
const callbackHeaders = (sig) => [['Content-Type', 'application/json'], ['Smartsheet-Hmac-SHA256', sig]];
const cases = [
  { name: 'an event callback signed with the sharedSecret', secrets: [SECRET], method: 'POST', url: URL, headers: callbackHeaders(hmac(SECRET, CALLBACK)), body: CALLBACK, now: NOW, expect: 'valid', event_id: sha256(CALLBACK) },
  { name: 'signed with another secret', secrets: [SECRET], method: 'POST', url: URL, headers: callbackHeaders(hmac('another-secret', CALLBACK)), body: CALLBACK, now: NOW, expect: 'invalid_signature' },
  { name: 'the body changed after signing', secrets: [SECRET], method: 'POST', url: URL, headers: callbackHeaders(hmac(SECRET, CALLBACK)), body: CALLBACK.replace('updated', 'created'), now: NOW, expect: 'invalid_signature' },
  { name: 'no signature header', secrets: [SECRET], method: 'POST', url: URL, headers: [['Content-Type', 'application/json']], body: CALLBACK, now: NOW, expect: 'missing_signature' },
];

const handshakes = [{
  name: 'verification request: the challenge echoed in Smartsheet-Hook-Response and smartsheetHookResponse',
  secrets: [SECRET], verify_token: null,
  request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], ['Smartsheet-Hook-Challenge', CHALLENGE]], body },
  now: NOW,
  // Either the header or the JSON attribute satisfies Smartsheet; the vector
  // asks for both, so a receiver's answer is right for any Smartsheet client.
  expect: { status: 200, content_type: 'application/json', body: JSON.stringify({ smartsheetHookResponse: CHALLENGE }), headers: [['Smartsheet-Hook-Response', CHALLENGE]] },
}, {
  name: 'a challenge longer than hookline echoes is refused',
  secrets: [SECRET], verify_token: null,
  request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], ['Smartsheet-Hook-Challenge', 'c'.repeat(513)]], body: JSON.stringify({ challenge: 'c'.repeat(513), webhookId: WEBHOOK_ID }) },
  now: NOW,
  expect: { status: 400, code: 'malformed_payload' },
}];

const DOCS = 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-verification';
const out = {
  kind: 'smartsheet',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the documented verification request and answer; the documented callback HMAC computed with node:crypto', url: DOCS },
  facts: {
    title: 'Smartsheet',
    docs: 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    scheme: 'Smartsheet-Hmac-SHA256 = hex HMAC-SHA256(sharedSecret, raw body); the hex encoding is not quoted from Smartsheet (NOTES.md)',
    secret: "the webhook's sharedSecret (returned by the webhooks API)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'callbacks are skinny and batch events without a delivery ID: https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    event_type: null,
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    handshake: 'POST with Smartsheet-Hook-Challenge: C and body {"challenge": C, "webhookId": N} answered 200 echoing C in Smartsheet-Hook-Response (or JSON smartsheetHookResponse); repeated while the webhook lives: ' + DOCS,
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`smartsheet: ${cases.length} cases, ${handshakes.length} handshakes`);
