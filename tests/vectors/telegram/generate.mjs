// Known-answer vectors for Telegram Bot API webhooks. There is nothing to
// compute: setWebhook's secret_token is sent back verbatim in the
// X-Telegram-Bot-Api-Secret-Token header of every update
// (https://core.telegram.org/bots/api#setwebhook), so each case is the request
// Telegram documents and the verdict is whether that header equals the secret.
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'tg_Test-Secret_Token_0123456789';
const OTHER = 'tg_Other-Secret_Token_987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/telegram';
const SIG_HEADER = 'X-Telegram-Bot-Api-Secret-Token';
const EVENT_ID = 10000;
// An Update with a message: https://core.telegram.org/bots/api#update
const BODY = JSON.stringify({
  update_id: EVENT_ID,
  message: {
    message_id: 1365,
    from: { id: 1111111, is_bot: false, first_name: 'Test', username: 'Test', language_code: 'en' },
    chat: { id: 1111111, first_name: 'Test', username: 'Test', type: 'private' },
    date: 1699999995,
    text: '/start',
  },
});
// The docs' rule for secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -.
for (const s of [SECRET, OTHER]) if (!/^[A-Za-z0-9_-]{1,256}$/.test(s)) throw new Error(`not a valid secret_token: ${s}`);

function request({ token = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, token]);
  return { method: 'POST', url: URL, headers, body: BODY };
}
const cases = [
  { name: 'secret token matches', secrets: [SECRET], ...request(), expect: 'valid', event_id: String(EVENT_ID) },
  { name: 'verified with another secret token', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'secret token with one character changed', secrets: [SECRET], ...request({ token: SECRET.slice(0, -1) + 'X' }), expect: 'invalid_signature' },
  { name: 'X-Telegram-Bot-Api-Secret-Token removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new token (rotation via a second setWebhook)', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_id: String(EVENT_ID) },
].map((c) => ({ ...c, now: NOW }));

// The documented verdict: the header must equal one of the tenant's tokens.
for (const c of cases) {
  const sent = c.headers.find(([k]) => k === SIG_HEADER)?.[1];
  const got = sent === undefined ? 'missing_signature' : c.secrets.includes(sent) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: ${got} != ${c.expect}`);
}

const out = {
  kind: 'telegram',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'setWebhook secret_token, sent verbatim in X-Telegram-Bot-Api-Secret-Token',
    url: 'https://core.telegram.org/bots/api#setwebhook',
  },
  facts: {
    title: 'Telegram Bot API',
    docs: 'https://core.telegram.org/bots/api#setwebhook',
    scheme: 'static token: X-Telegram-Bot-Api-Secret-Token must equal the secret_token given to setWebhook (no signature over the body)',
    secret: 'the secret_token the bot passed to setWebhook (1-256 characters: A-Z, a-z, 0-9, _ and -)',
    timestamp: null,
    event_id: { json_pointer: '/update_id' },
    event_id_note: 'update_id is the unique, increasing identifier of an update; a redelivered update keeps it: https://core.telegram.org/bots/api#update',
    event_type: null,
    retry_horizon: 'not stated ("we will give up after a reasonable amount of attempts"); use the default window',
    retry_source: 'https://core.telegram.org/bots/api#setwebhook',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`telegram: ${cases.length} cases`);
