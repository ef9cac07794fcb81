// Handshake vectors for Smartsheet webhooks, from the documented verification
// request (https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-verification):
// "The request includes a Smartsheet-Hook-Challenge header that contains a
// unique random value and includes a request body containing a JSON object
// with only challenge and webhookId attributes ... the subscriber's response
// ... must return a 200 HTTP status code and must echo back the same unique
// random value in the Smartsheet-Hook-Response header of the response or with
// a JSON smartsheetHookResponse attribute."
// No signature cases: see NOTES.md.
import fs from 'node:fs';

const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/smartsheet';
const CHALLENGE = 'd78dd1d3-01ce-4481-81de-92b4f3aa5ab1';
const WEBHOOK_ID = 2674017481058180;
const body = JSON.stringify({ challenge: CHALLENGE, webhookId: WEBHOOK_ID });
const handshakes = [{
  name: 'verification request: the challenge echoed in Smartsheet-Hook-Response and smartsheetHookResponse',
  secrets: [], verify_token: null,
  request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], ['Smartsheet-Hook-Challenge', CHALLENGE]], body },
  now: NOW,
  // Either the header or the JSON attribute satisfies Smartsheet; the vector
  // asks for both, so a receiver's answer is right for any Smartsheet client.
  expect: { status: 200, content_type: 'application/json', body: JSON.stringify({ smartsheetHookResponse: CHALLENGE }), headers: [['Smartsheet-Hook-Response', CHALLENGE]] },
}];

const DOCS = 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-verification';
const out = {
  kind: 'smartsheet',
  source: { kind: 'docs-example', package: '', registry: '', version: '', function: 'the documented verification request and answer', url: DOCS },
  facts: {
    title: 'Smartsheet',
    docs: 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    scheme: 'not vectored (NOTES.md): the docs describe an optional Smartsheet-Hmac-SHA256 header keyed with the webhook sharedSecret, but no code sample or SDK verifier could be read',
    secret: "the webhook's sharedSecret (returned by the webhooks API)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'callbacks are skinny and batch events without a delivery ID: https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    event_type: null,
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: 'https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-callbacks',
    handshake: 'POST with Smartsheet-Hook-Challenge: C and body {"challenge": C, "webhookId": N} answered 200 echoing C in Smartsheet-Hook-Response (or JSON smartsheetHookResponse); repeated while the webhook lives: ' + DOCS,
  },
  cases: [],
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`smartsheet: ${handshakes.length} handshakes`);
