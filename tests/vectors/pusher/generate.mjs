// Known-answer vectors for Pusher Channels webhooks: signed with the official SDK's
// Token.sign and every verdict from its WebHook.isValid (pusher, the Node server library).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import Pusher from 'pusher';

const Token = createRequire(import.meta.url)('pusher/lib/token');
const NOW = 1700000000;
// An app's token is a key (sent in X-Pusher-Key) and a secret (the HMAC key).
const KEY = '7f3a9c1e5b2d8f4a6c0e';
const SECRET = '3c9e1a7b5d2f8c4e6a0b';
const OLD_KEY = '1d4f7a2c9e5b3f8a6c0d';
const OLD_SECRET = '8b2e6c0a4f9d1b7e3c5a';
const OTHER_SECRET = 'aaaabbbbccccddddeeee';
const pair = (k, s) => `${k}:${s}`;
const HOOK_URL = 'https://hooks.example.com/webhooks/pusher/acme';
// The documented format: time_ms (creation time, milliseconds) and events[], here a channel_occupied.
const BODY = JSON.stringify({ time_ms: NOW * 1000 - 1500, events: [{ name: 'channel_occupied', channel: 'presence-room-42' }] });
const TAMPERED = BODY.replace('room-42', 'room-43');
// The same event created 301 s before or after NOW: the Node library does not
// check time_ms, the Python one (pusher 3.3.3, AuthenticationClient.validate_webhook)
// refuses it when abs(now_ms - time_ms) > 300000; hookline follows the Python SDK.
const STALE = JSON.stringify({ time_ms: (NOW - 301) * 1000, events: [{ name: 'channel_occupied', channel: 'presence-room-42' }] });
const EARLY = JSON.stringify({ time_ms: (NOW + 301) * 1000, events: [{ name: 'channel_occupied', channel: 'presence-room-42' }] });

const sign = (key, secret, body) => new Token(key, secret).sign(body);
const headersFor = (key, sig) => [['Content-Type', 'application/json'], ['X-Pusher-Key', key], ['X-Pusher-Signature', sig]];

// WebHook.isValid answers true or false; it takes the tenant's first token and any extra ones.
function sdkVerdict(c) {
  const lower = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const tokens = c.secrets.map((s) => { const [key, secret] = s.split(':'); return { key, secret }; });
  const pusher = new Pusher({ appId: '1234567', key: tokens[0].key, secret: tokens[0].secret, cluster: 'eu' });
  const missing = lower['x-pusher-signature'] === undefined;
  try {
    if (pusher.webhook({ headers: lower, rawBody: c.body }).isValid(tokens.slice(1))) return 'valid';
  } catch (e) {
    // Without the header isValid throws (secureCompare reads undefined.length): a rejection.
    if (missing && e instanceof TypeError) return 'missing_signature';
    throw e;
  }
  return missing ? 'missing_signature' : 'invalid_signature';
}

const req = (key, sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(key, sig), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-pusher-signature') });
const MINE = pair(KEY, SECRET);
const sig = sign(KEY, SECRET, BODY);
const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');
const ok = { event_type: 'channel_occupied', event_id: sha256(BODY) };
const cases = [
  { name: 'channel_occupied signed by Token.sign, accepted by WebHook.isValid', secrets: [MINE], ...req(KEY, sig), expect: 'valid', ...ok },
  { name: 'two tokens configured: Pusher signs with the oldest active one, which is the second here', secrets: [MINE, pair(OLD_KEY, OLD_SECRET)], ...req(OLD_KEY, sign(OLD_KEY, OLD_SECRET, BODY)), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [MINE], ...req(KEY, sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another secret for the same key', secrets: [pair(KEY, OTHER_SECRET)], ...req(KEY, sig), expect: 'invalid_signature' },
  { name: 'right signature, but X-Pusher-Key names a token the tenant does not hold', secrets: [MINE], ...req(OLD_KEY, sig), expect: 'invalid_signature' },
  { name: 'X-Pusher-Signature removed', secrets: [MINE], ...strip(req(KEY, sig)), expect: 'missing_signature' },
  { name: 'time_ms 301 s old (the Python SDK refuses it)', secrets: [MINE], ...req(KEY, sign(KEY, SECRET, STALE), STALE), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'time_ms 301 s ahead (the Python SDK refuses it)', secrets: [MINE], ...req(KEY, sign(KEY, SECRET, EARLY), EARLY), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  const want = c.sdk ?? c.expect;
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case expects ${want}`);
  delete c.sdk;
}

const DOCS = 'https://pusher.com/docs/channels/server_api/webhooks/';
const out = {
  kind: 'pusher',
  source: { kind: 'sdk', package: 'pusher', registry: 'npm', version: '5.3.4',
    function: 'Pusher#webhook(request).isValid(extraTokens); signed with lib/token.js Token.sign', url: DOCS },
  facts: {
    title: 'Pusher Channels',
    docs: DOCS,
    scheme: 'X-Pusher-Signature = hex(HMAC-SHA256(token secret as UTF-8, raw body)); X-Pusher-Key names the token (app key) and must match the configured key',
    secret: '"<app key>:<app secret>" from the app\'s App Keys page; one entry per token (an app may have several)',
    timestamp: 'the body\'s time_ms, unix milliseconds, signed (it is in the body); the Python SDK refuses it more than 300 s away (pusher 3.3.3 validate_webhook)',
    event_id: { body_sha256: true },
    event_id_note: 'no event or delivery ID; the body carries time_ms (creation time, signed; the Python SDK refuses it more than 300 s away, the Node one checks none) and the events: ' + DOCS,
    event_type: { json_pointer: '/events/0/name' },
    retry_horizon: 'retried with exponential backoff for 5 minutes',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
