// Known-answer vectors for Twitch EventSub (webhook transport), checked by
// Twitch's own sample, github.com/twitchdev/eventsub-webhooks-node-sample
// (index.js): its verifySignature() (the secret passed in instead of its
// literal) decides every verdict, and its /notification handler's answer to
// webhook_callback_verification gives the handshake. Twitch has no official
// SDK with a verifier.
import fs from 'node:fs';
import crypto from 'node:crypto';

const SECRET = 's3cRe7kEEpItSafe0123456789';      // the transport.secret given when subscribing (10-100 ASCII)
const OTHER = 'an0therSecr3tKeepItSafe9876';
const NOW = 1700000000;
const TOLERANCE = 600;                            // "older than 10 minutes": https://dev.twitch.tv/docs/eventsub/handling-webhook-events/#verifying-the-event-message
const URL = 'https://hooks.example.com/webhooks/twitch';
const MSG_ID = 'befa7b53-d79d-478f-86b9-120f112b044e';
const iso = (t) => new Date(t * 1000).toISOString().replace('.000Z', '.123456789Z');
// The documented channel.follow notification:
// https://dev.twitch.tv/docs/eventsub/eventsub-reference/#channel-follow-event
const BODY = JSON.stringify({
  subscription: { id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4', status: 'enabled', type: 'channel.follow', version: '2', cost: 0,
    condition: { broadcaster_user_id: '1337', moderator_user_id: '1337' }, transport: { method: 'webhook', callback: URL }, created_at: '2023-11-14T21:00:00.634234626Z' },
  event: { user_id: '1234', user_login: 'cool_user', user_name: 'Cool_User', broadcaster_user_id: '1337', broadcaster_user_login: 'cooler_user', broadcaster_user_name: 'Cooler_User', followed_at: '2023-11-14T22:13:16.587372Z' },
});

// --- Twitch's sample (index.js), verifySignature with the secret as an argument ---
function verifySignature(secret, messageSignature, messageID, messageTimestamp, body) {
    let message = messageID + messageTimestamp + body
    let signature = crypto.createHmac('sha256', secret).update(message)
    let expectedSignatureHeader = "sha256=" + signature.digest("hex")

    return expectedSignatureHeader === messageSignature
}
// ----------------------------------------------------------------------------------

const sign = (secret, id, ts, b) => 'sha256=' + crypto.createHmac('sha256', secret).update(id + ts + b).digest('hex');
function request({ at = NOW - 2, secret = SECRET, b = BODY, signed = BODY, type = 'notification', drop = false } = {}) {
  const ts = iso(at);
  const headers = [
    ['Content-Type', 'application/json'],
    ['Twitch-Eventsub-Message-Id', MSG_ID],
    ['Twitch-Eventsub-Message-Retry', '0'],
    ['Twitch-Eventsub-Message-Type', type],
    ['Twitch-Eventsub-Message-Timestamp', ts],
    ['Twitch-Eventsub-Subscription-Type', 'channel.follow'],
    ['Twitch-Eventsub-Subscription-Version', '2'],
  ];
  if (!drop) headers.push(['Twitch-Eventsub-Message-Signature', sign(secret, MSG_ID, ts, signed)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const cases = [
  { name: 'valid notification signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('cool_user', 'cool_usex') }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Twitch-Eventsub-Message-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  // The sample does not look at the clock; Twitch's docs say to (NOTES.md).
  { name: 'timestamp 601 s old', secrets: [SECRET], ...request({ at: NOW - 601 }), expect: 'timestamp_out_of_tolerance', sample: 'valid' },
  { name: 'timestamp 601 s in the future', secrets: [SECRET], ...request({ at: NOW + 601 }), expect: 'timestamp_out_of_tolerance', sample: 'valid' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: TOLERANCE, ...(c.expect === 'valid' ? { event_id: MSG_ID, event_type: 'channel.follow' } : {}) }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
const accepts = (c, secret) => verifySignature(secret, header(c, 'Twitch-Eventsub-Message-Signature'), header(c, 'Twitch-Eventsub-Message-Id'), header(c, 'Twitch-Eventsub-Message-Timestamp'), c.body);
for (const c of cases) {
  const want = c.sample ?? c.expect;
  const got = header(c, 'Twitch-Eventsub-Message-Signature') === undefined ? 'missing_signature'
    : c.secrets.some((s) => accepts(c, s)) ? 'valid' : 'invalid_signature';
  if (got !== want) throw new Error(`${c.name}: Twitch's sample says ${got}, the case says ${want}`);
  delete c.sample;
}

// webhook_callback_verification: signed like a notification; answered 200
// with the raw challenge (the sample's res.send(req.body.challenge)).
const CHALLENGE = 'pogchamp-kappa-360noscope-vohiyo';
const VBODY = JSON.stringify({
  challenge: CHALLENGE,
  subscription: { id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4', status: 'webhook_callback_verification_pending', type: 'channel.follow', version: '2', cost: 0,
    condition: { broadcaster_user_id: '1337', moderator_user_id: '1337' }, transport: { method: 'webhook', callback: URL }, created_at: '2023-11-14T22:13:17.634234626Z' },
});
const vreq = (secret) => request({ b: VBODY, signed: VBODY, secret, type: 'webhook_callback_verification' });
const sampleAnswer = (req) => (c => c.secrets.some((s) => accepts(c, s)) ? { status: 200, body: JSON.parse(c.body).challenge } : { status: 403 })({ ...req, secrets: [SECRET] });
const good = sampleAnswer(vreq(SECRET));
if (good.status !== 200 || good.body !== CHALLENGE || sampleAnswer(vreq(OTHER)).status !== 403) throw new Error('unexpected verification answers');
const handshakes = [
  { name: 'webhook_callback_verification answered with the raw challenge', request: vreq(SECRET),
    expect: { status: 200, content_type: 'text/plain', body: good.body, headers: [] } },
  { name: 'webhook_callback_verification signed with another secret: refused', request: vreq(OTHER),
    expect: { status: 401, content_type: null, body: null, headers: [] } },
].map((h) => ({ name: h.name, secrets: [SECRET], verify_token: null, request: h.request, now: NOW, expect: h.expect }));

const DOCS = 'https://dev.twitch.tv/docs/eventsub/handling-webhook-events/';
const out = {
  kind: 'twitch',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: "twitchdev/eventsub-webhooks-node-sample index.js verifySignature() and the /notification handler (Twitch's sample), run unchanged",
    url: DOCS,
  },
  facts: {
    title: 'Twitch EventSub',
    docs: DOCS,
    scheme: 'Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256(secret, Twitch-Eventsub-Message-Id + Twitch-Eventsub-Message-Timestamp + raw body)>',
    secret: 'the transport.secret the app chose when creating the subscription (10 to 100 ASCII characters), used as bytes',
    timestamp: 'Twitch-Eventsub-Message-Timestamp, RFC 3339 with nanoseconds, signed verbatim; refuse messages older than 10 minutes',
    event_id: { header: 'Twitch-Eventsub-Message-Id' },
    event_id_note: 'the message ID stays the same when Twitch resends a message; docs say to use it to drop duplicates: ' + DOCS + '#processing-an-event',
    event_type: { header: 'Twitch-Eventsub-Subscription-Type' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: 'a signed POST with Twitch-Eventsub-Message-Type: webhook_callback_verification and {"challenge": C, ...} answered 200 text/plain with the raw C, after the signature check: ' + DOCS + '#responding-to-a-challenge-request',
  },
  cases,
  handshakes,
};
// The definition's tolerance, the same as the SDK's, is the one in force.
for (const c of out.cases) delete c.tolerance;
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`twitch: ${cases.length} cases, ${handshakes.length} handshakes`);
