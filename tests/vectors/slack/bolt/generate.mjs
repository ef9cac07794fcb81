// Handshake vectors for Slack's Events API url_verification, produced by
// Slack's own @slack/bolt: its AwsLambdaReceiver (the receiver that takes a
// raw body and headers) verifies X-Slack-Signature, then answers
// url_verification; its answers are the vectors' expectations. The request is
// signed here (v0 scheme). Slack's signature vectors proper live in
// tests/vectors/slack/ (another batch); this directory holds the handshake only.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { AwsLambdaReceiver, LogLevel } from '@slack/bolt';

// The signing secret and challenge from Slack's docs examples
// (https://api.slack.com/authentication/verifying-requests-from-slack,
// https://api.slack.com/events/url_verification).
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const OTHER = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/slack';
const BODY = JSON.stringify({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' });

const sign = (secret, ts, b) => 'v0=' + crypto.createHmac('sha256', secret).update(`v0:${ts}:${b}`).digest('hex');
function request({ secret = SECRET, at = NOW - 2 } = {}) {
  return {
    method: 'POST', url: URL,
    headers: [['Content-Type', 'application/json'], ['X-Slack-Request-Timestamp', String(at)], ['X-Slack-Signature', sign(secret, at, BODY)]],
    body: BODY,
  };
}

// Bolt's answer with its clock at `now`.
async function bolt(req, now) {
  const RealNow = Date.now;
  Date.now = () => now * 1000;
  try {
    const receiver = new AwsLambdaReceiver({ signingSecret: SECRET, logLevel: LogLevel.ERROR, invalidRequestSignatureHandler: () => {} });
    const handler = receiver.toHandler();
    return await handler({ body: req.body, headers: Object.fromEntries(req.headers), isBase64Encoded: false }, {}, () => {});
  } finally {
    Date.now = RealNow;
  }
}
const answer = (r) => (r.statusCode === 200
  ? { status: 200, content_type: r.headers?.['Content-Type'] ?? null, body: r.body, headers: [] }
  : { status: r.statusCode, content_type: null, body: null, headers: [] });

const specs = [
  { name: 'url_verification, correctly signed: the challenge echoed', request: request() },
  { name: 'url_verification signed with another secret: refused before any answer', request: request({ secret: OTHER }) },
  { name: 'url_verification with a timestamp 301 s old: refused', request: request({ at: NOW - 301 }) },
];
const handshakes = [];
for (const s of specs) {
  handshakes.push({ name: s.name, secrets: [SECRET], verify_token: null, request: s.request, now: NOW, expect: answer(await bolt(s.request, NOW)) });
}
if (JSON.parse(handshakes[0].expect.body).challenge !== JSON.parse(BODY).challenge || handshakes[1].expect.status !== 401 || handshakes[2].expect.status !== 401) {
  throw new Error(`unexpected answers: ${JSON.stringify(handshakes.map((h) => h.expect))}`);
}

const DOCS = 'https://api.slack.com/events/url_verification';
const out = {
  kind: 'slack',
  source: {
    kind: 'sdk', package: '@slack/bolt', registry: 'npm', version: '4.7.2',
    function: 'AwsLambdaReceiver#toHandler (isValidRequestSignature, then url_verification)',
    url: DOCS,
  },
  facts: {
    title: 'Slack (url_verification handshake only)',
    docs: DOCS,
    scheme: 'the signature facts live in tests/vectors/slack/; the handshake is checked with X-Slack-Signature = v0= + hex HMAC-SHA256(signing secret, "v0:" + X-Slack-Request-Timestamp + ":" + raw body), 300 s',
    secret: "the app's Signing Secret (Basic Information page)",
    timestamp: 'X-Slack-Request-Timestamp, unix seconds, signed; Bolt refuses requests older than 5 minutes',
    event_id: null,
    event_id_note: 'a handshake is never an event',
    event_type: null,
    retry_horizon: null,
    retry_source: null,
    handshake: 'Events API url_verification: a signed POST {"token","challenge","type":"url_verification"} answered 200 with the challenge (Bolt: application/json {"challenge": ...}; Slack also accepts it as plain text), after the signature check: ' + DOCS,
  },
  cases: [],
  handshakes,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`slack-handshake: ${handshakes.length} handshakes`);
