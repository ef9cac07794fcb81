// Known-answer vectors for X (Twitter) webhooks, checked by twitter-autohook,
// the Account Activity library published by Twitter (github.com/twitterdev/autohook):
// validateSignature decides every case and validateWebhook gives the CRC
// answer. Two cases are the fixtures of the package's own test/signature.js.
// The package only verifies, so requests are signed here.
import fs from 'node:fs';
import crypto from 'node:crypto';
import autohook from 'twitter-autohook';
import { withIdentity } from '../identity.mjs';

const { validateSignature, validateWebhook } = autohook;
const SECRET = 'xTestConsumerSecret0123456789abcdefghijklmnopqrstuv';   // the shape of an API Key Secret
const OTHER = 'xOtherConsumerSecret9876543210zyxwvutsrqponmlkjihgfe';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/twitter';
const SIG_HEADER = 'x-twitter-webhooks-signature';
// An Account Activity event (a mention): https://docs.x.com/x-api/enterprise-gnip-2.0/fundamentals/account-activity
const BODY = JSON.stringify({
  for_user_id: '2244994945',
  user_has_blocked: false,
  tweet_create_events: [{
    created_at: 'Tue Nov 14 22:13:18 +0000 2023', id: 1724573923402559488, id_str: '1724573923402559488',
    text: '@XDevelopers hello from hookline', user: { id: 6253282, id_str: '6253282', screen_name: 'XDevelopers' },
  }],
});

const sign = (secret, data) => 'sha256=' + crypto.createHmac('sha256', secret).update(data).digest('base64');
function request({ secret = SECRET, b = BODY, signed = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, signed)]);
  return { method: 'POST', url: URL, headers, body: b };
}
// The package's own fixtures (test/signature.js): consumer_secret "test".
const fixture = (name, body, sig) => ({
  name, secrets: ['test'], method: 'POST', url: URL,
  headers: [['Content-Type', 'application/json'], [SIG_HEADER, sig]], body, expect: 'valid',
});
const cases = [
  fixture("the package's own JSON fixture", '{"test_number":1,"test_string":"two"}', 'sha256=YWHphPn/JFq43jkF0y4/w8R/SelmLjvpunhVFY8JhlI='),
  { name: 'valid sha256= signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('hello', 'hellp') }), expect: 'invalid_signature' },
  { name: 'verified with another consumer secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new consumer secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
// validateSignature takes a header object, the app's credentials and the body;
// it throws when the header is absent.
function accepts(headers, secret, data) {
  try {
    return validateSignature({ [SIG_HEADER]: headers }, { consumer_secret: secret }, data);
  } catch {
    return false;
  }
}
function sdkVerdict(c) {
  const sig = header(c, SIG_HEADER);
  if (sig === undefined) return 'missing_signature';
  return c.secrets.some((s) => accepts(sig, s, c.body)) ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: twitter-autohook says ${got}, the case says ${c.expect}`);
}

// CRC: GET ?crc_token=...; autohook checks x-twitter-webhooks-signature over
// the raw query string, then answers {"response_token": "sha256=" + base64
// HMAC-SHA256(consumer secret, crc_token)} as application/json.
const CRC = 'YmY0NjhmNTMtNDMwYi00Y2QyLWE2ZGEtZWNmOTI3NWM0YTU2';
const QUERY = `crc_token=${CRC}`;
const crc = (sig, query = QUERY) => ({ method: 'GET', url: `${URL}?${query}`, headers: sig === null ? [] : [[SIG_HEADER, sig]], body: '' });
// A CRC whose token is an event body: answering it would hand out that
// body's x-twitter-webhooks-signature.
const ORACLE = `crc_token=${encodeURIComponent(BODY)}`;
if (JSON.stringify(validateWebhook(BODY, { consumer_secret: SECRET })) !== JSON.stringify({ response_token: sign(SECRET, BODY) })) throw new Error('the oracle is not one');
const answer = JSON.stringify(validateWebhook(CRC, { consumer_secret: SECRET }));
if (!accepts(sign(SECRET, QUERY), SECRET, QUERY) || accepts(sign(OTHER, QUERY), SECRET, QUERY)) throw new Error('CRC signature check disagrees');
const refused = { status: 401, content_type: null, body: null, headers: [] };
const handshakes = [
  { name: 'CRC signed over its query string, answered with response_token', request: crc(sign(SECRET, QUERY)),
    expect: { status: 200, content_type: 'application/json', body: answer, headers: [] } },
  { name: 'CRC signed with another secret: refused (autohook does not answer it)', request: crc(sign(OTHER, QUERY)), expect: refused },
  // autohook logs a missing header and answers anyway; hookline must not, or
  // its answer is a valid signature for any body an attacker names (NOTES.md).
  { name: 'unsigned CRC whose token is an event body: refused (hookline, not autohook)', request: crc(null, ORACLE), expect: refused },
].map((h) => ({ name: h.name, secrets: [SECRET], verify_token: null, request: h.request, now: NOW, expect: h.expect }));

const DOCS = 'https://docs.x.com/x-api/webhooks/quickstart';
const out = {
  kind: 'twitter',
  source: {
    kind: 'sdk', package: 'twitter-autohook', registry: 'npm', version: '1.7.2',
    function: 'validateSignature (cases, CRC signature); validateWebhook (CRC answer)',
    url: DOCS,
  },
  facts: {
    title: 'X (Twitter)',
    docs: DOCS,
    scheme: 'x-twitter-webhooks-signature: sha256=<base64 HMAC-SHA256(consumer secret, raw body)>; a CRC GET carries the same header over its raw query string',
    secret: "the app's API Key Secret (consumer secret) from the Developer Portal's Keys and tokens page, used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'Account Activity payloads carry no delivery ID (for_user_id plus arrays of events): https://docs.x.com/x-api/enterprise-gnip-2.0/fundamentals/account-activity',
    event_type: null,
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: 'CRC: GET ?crc_token=T (at registration, hourly, on demand) answered 200 application/json {"response_token":"sha256=" + base64 HMAC-SHA256(consumer secret, T)} within 3 s: ' + DOCS + '#2-the-crc-check',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`twitter: ${cases.length} cases, ${handshakes.length} handshakes`);
