// Known-answer vectors for Trello webhooks. The docs state the scheme: "Each
// webhook trigger contains the HTTP header X-Trello-Webhook. The header is a
// base64 digest of an HMAC-SHA1 hash. The hashed content is the concatenation
// of the full request body and the callbackURL exactly as it was provided
// during webhook creation. The key used to sign this text is your
// application's secret." (https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/#webhook-signatures)
// Below is the docs' Node sample verifyTrelloWebhookRequest (double HMAC),
// with request.body taken as the raw body; it decides every verdict. See
// NOTES.md for how far this source could be checked from here.
// The same section says how the text becomes bytes: "Because of certain
// defaults in the crypto utilities in node, the payloads that we sign are
// treated as binary strings, not utf-8. For example, if you take the en-dash
// character (U+2013 or 8211 in decimal), and create a binary buffer out of it
// in Node, it will show up as a buffer of [19], which are the 8 least
// significant bits of 8211. That is the value that is being used in the
// digest to compute the SHA-1." The Node of that sample defaulted
// hmac.update(string) to 'binary'; today's defaults to 'utf8', so the sample
// below names the encoding it ran with, and nothing else changes.
import fs from 'node:fs';
import crypto from 'node:crypto';

const SECRET = '4f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8';  // the shape of an OAuth1.0 secret
const OTHER = 'f8e7d6c5b4a39281706f5e4d3c2b1a0908f7e6d5c4b3a29180706f5e4d3c2b1a';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/trello?board=team';
const SIG_HEADER = 'X-Trello-Webhook';
// A documented updateCard action: https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/#triggering-webhooks
const BODY = JSON.stringify({
  action: {
    id: '5a1f3b2c9d8e7f6a5b4c3d2e', idMemberCreator: '4f2b8b4d9e3b1e5a2c3d4e5f', type: 'updateCard', date: '2023-11-14T22:13:18.123Z',
    data: { card: { id: '5a1f3b2c9d8e7f6a5b4c3d10', name: 'Ship hookline', idList: '5a1f3b2c9d8e7f6a5b4c3d20' }, listBefore: { id: '5a1f3b2c9d8e7f6a5b4c3d21', name: 'Doing' }, listAfter: { id: '5a1f3b2c9d8e7f6a5b4c3d20', name: 'Done' }, board: { id: '5a1f3b2c9d8e7f6a5b4c3d00', name: 'Team' } },
    memberCreator: { id: '4f2b8b4d9e3b1e5a2c3d4e5f', username: 'taco', fullName: 'Taco Trello' },
  },
  model: { id: '5a1f3b2c9d8e7f6a5b4c3d00', name: 'Team', url: 'https://trello.com/b/abc123/team' },
});
const EVENT_ID = '5a1f3b2c9d8e7f6a5b4c3d2e';
// A card renamed with text beyond ASCII: an en dash (U+2013, the docs'
// example), an e acute and an emoji (two UTF-16 units), sent as UTF-8.
const BODY_TEXT = BODY.replace('Ship hookline', 'Ship hookline \u2013 caf\u00e9 \u{1F680}');

// --- the docs' sample ---
function verifyTrelloWebhookRequest(request, secret, callbackURL) {
  // Double-HMAC to blind any timing channel attacks
  // https://www.isecpartners.com/blog/2011/february/double-hmac-verification.asp
  var base64Digest = function (s) {
    return crypto.createHmac('sha1', secret).update(s, 'binary').digest('base64');
  }
  var content = request.body + callbackURL;
  var doubleHash = base64Digest(base64Digest(content));
  var headerHash = base64Digest(request.headers['x-trello-webhook']);
  return doubleHash == headerHash;
}
// ------------------------

// Trello's signer, as the docs state it: the text, each UTF-16 unit cut to 8 bits.
const sign = (secret, b, url, enc = 'binary') => crypto.createHmac('sha1', secret).update(b + url, enc).digest('base64');
function request({ secret = SECRET, signed = BODY, b = signed, url = URL, signedUrl = URL, drop = false, enc = 'binary' } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, signed, signedUrl, enc)]);
  return { method: 'POST', url, headers, body: b };
}
const cases = [
  { name: 'valid signature over body + callback URL', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('Ship hookline', 'Ship hooklind') }), expect: 'invalid_signature' },
  { name: 'verified with another application secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new application secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'signed for another callback URL (query differs)', secrets: [SECRET], ...request({ signedUrl: URL.replace('team', 'other') }), expect: 'invalid_signature' },
  { name: 'a body beyond ASCII, signed as Trello documents (binary string)', secrets: [SECRET], ...request({ signed: BODY_TEXT }), expect: 'valid' },
  { name: 'a body beyond ASCII, signed over its UTF-8 bytes instead', secrets: [SECRET], ...request({ signed: BODY_TEXT, enc: 'utf8' }), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: 'updateCard' } : {}) }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  const sig = header(c, SIG_HEADER);
  // The callback URL is the URL the request was sent to (NOTES.md).
  const got = sig === undefined ? 'missing_signature'
    : c.secrets.some((s) => verifyTrelloWebhookRequest({ body: c.body, headers: { 'x-trello-webhook': sig } }, s, c.url)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, the case says ${c.expect}`);
}

const handshakes = [{
  name: 'HEAD on the callback URL when the webhook is created: 200',
  secrets: [SECRET], verify_token: null,
  request: { method: 'HEAD', url: URL, headers: [], body: '' },
  now: NOW,
  expect: { status: 200, content_type: null, body: '', headers: [] },
}];

const DOCS = 'https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/';
const out = {
  kind: 'trello',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: "the webhooks guide's verifyTrelloWebhookRequest sample (double HMAC-SHA1), run unchanged but for the raw body",
    url: DOCS + '#webhook-signatures',
  },
  facts: {
    title: 'Trello',
    docs: DOCS,
    scheme: 'X-Trello-Webhook = base64 HMAC-SHA1(application secret, raw body + callbackURL exactly as given when the webhook was created), the text as a Node "binary" string (each UTF-16 unit cut to 8 bits)',
    secret: "the application's OAuth1.0 secret (Trello Power-Up admin, API key page), used as UTF-8 bytes — not the API key or a user token",
    timestamp: null,
    event_id: { json_pointer: '/action/id' },
    event_id_note: 'every webhook POST is one action with its own id: ' + DOCS + '#triggering-webhooks',
    event_type: { json_pointer: '/action/type' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: 'HEAD on the callbackURL when the webhook is created, answered 200 (the webhook is not created otherwise): ' + DOCS + '#creating-a-webhook',
  },
  cases,
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`trello: ${cases.length} cases, ${handshakes.length} handshakes`);
