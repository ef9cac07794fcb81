// Known-answer vectors for Viber bot callbacks. Every verdict is the official
// viber-bot (author "Viber LTD") MessageValidator#validateMessage(signature,
// body)'s, the check its middleware runs on X-Viber-Content-Signature; the
// signatures come from the same class's _calculateHmacFromMessage.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';

const require = createRequire(import.meta.url);
const MessageValidator = require('viber-bot/lib/message/message-validator');
const quiet = { debug() {} };

const NOW = 1700000000;
const SECRET = '445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9';
const OTHER = '4453b6ac1s345678-e02c5f12174805f9-daec9cbb5448c51f';
const HOOK_URL = 'https://hooks.example.com/webhooks/viber/acme';
const SIG_HEADER = 'X-Viber-Content-Signature';
// A "message" callback as the REST Bot API documents it (event, timestamp, message_token, sender, message).
const BODY = JSON.stringify({
  event: 'message',
  timestamp: 1699999998123,
  chat_hostname: 'SN-376_',
  message_token: 4912661846655238145,
  sender: { id: '01234567890A=', name: 'John McClane', language: 'en', country: 'UK', api_version: 1 },
  message: { type: 'text', text: 'a message to the service', tracking_data: 'tracking data' },
  silent: false,
});
const TAMPERED = BODY.replace('a message to', 'a message fo');

const sign = (secret, body) => new MessageValidator(quiet, secret)._calculateHmacFromMessage(body);
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
function sdkVerdict(c) {
  const signature = header(c, SIG_HEADER);
  if (signature === undefined) return 'missing_signature';
  return c.secrets.some((s) => new MessageValidator(quiet, s).validateMessage(signature, c.body)) ? 'valid' : 'invalid_signature';
}
function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'a message callback accepted by MessageValidator#validateMessage', secrets: [SECRET], ...request(), expect: 'valid', event_type: 'message' },
  { name: 'rotation: the second configured auth token verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another auth token', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'viber',
  source: { kind: 'sdk', package: 'viber-bot', registry: 'npm', version: '1.0.18',
    function: 'MessageValidator#validateMessage / #_calculateHmacFromMessage (lib/message/message-validator.js)',
    url: 'https://developers.viber.com/docs/api/rest-bot-api/#callbacks' },
  facts: {
    title: 'Viber (bots)',
    docs: 'https://developers.viber.com/docs/api/rest-bot-api/#callbacks',
    scheme: 'X-Viber-Content-Signature = hex(HMAC-SHA256(bot auth token, raw body))',
    secret: "the bot's authentication token (Viber Admin Panel), used as UTF-8 text",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'callbacks carry no delivery ID; message_token names the message, which several events (delivered, seen) share',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the pages consulted; keep the default window',
    retry_source: 'https://developers.viber.com/docs/api/rest-bot-api/#callbacks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
