// Known-answer vectors for Sinch Voice (and Verification) callback request signing
// ("Authorization: Application <key>:<signature>"): the docs' worked example copied
// verbatim, plus requests signed with the official SDK's generateAuthorizationHeader;
// every verdict is VoiceCallbackWebhooks.validateAuthenticationHeader's
// (@sinch/sdk-core, calling @sinch/sdk-client validateAuthenticationHeader).
import { writeFileSync } from 'node:fs';
import { VoiceCallbackWebhooks, generateAuthorizationHeader } from '@sinch/sdk-core';
import { withIdentity, withLateCopy } from '../identity.mjs';

// The docs' example (https://developers.sinch.com/docs/voice/api-reference/authentication/callback-signed-request):
const DOC = {
  key: '669E367E-6BBA-48AB-AF15-266871C28135',
  secret: 'BeIukql3pTKJ8RGL5zo0DA==',
  url: 'https://callbacks.yourdomain.com/sinch/callback/ace',
  body: '{"event":"ace","callid":"822aa4b7-05b4-4d83-87c7-1f835ee0b6f6_257","timestamp":"2014-09-24T10:59:41Z","version":1}',
  timestamp: '2014-09-24T10:59:41Z',
  authorization: 'application 669E367E-6BBA-48AB-AF15-266871C28135:Tg6fMyo8mj9pYfWQ9ssbx3Tc1BNC87IEygAfLbJqZb4=',
};
const NOW = Math.floor(Date.parse(DOC.timestamp) / 1000) + 1;
const pair = (k, s) => `${k}:${s}`;
const OTHER_SECRET = 'c2VjcmV0LW90aGVyLWtleQ==';
const OTHER_KEY = '0B8D7E6F-5A4B-4C3D-9E2F-1A0B9C8D7E6F';
// A disconnected call event (dice), signed with the SDK's own request signer.
const DICE_URL = 'https://callbacks.yourdomain.com/sinch/callback/dice';
const DICE = '{"event":"dice","callid":"822aa4b7-05b4-4d83-87c7-1f835ee0b6f6_257","timestamp":"2014-09-24T11:03:12Z","reason":"CALLERHANGUP","result":"ANSWERED","version":1,"duration":211,"from":{"type":"number","endpoint":"+46700000000"},"to":{"type":"number","endpoint":"+46700000001"}}';
const DICE_TS = '2014-09-24T11:03:12Z';
const signed = (url, body, ts, key = DOC.key, secret = DOC.secret) =>
  generateAuthorizationHeader('POST', body, 'application/json', `x-timestamp:${ts}`, new URL(url).pathname, key, secret);
const headersFor = (auth, ts) => [['content-type', 'application/json'], ['x-timestamp', ts], ['authorization', auth]];

function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (headers.authorization === undefined) return 'missing_signature';
  for (const s of c.secrets) {
    const [applicationKey, applicationSecret] = s.split(':');
    if (new VoiceCallbackWebhooks({ applicationKey, applicationSecret }).validateAuthenticationHeader(headers, c.body, new URL(c.url).pathname, c.method)) return 'valid';
  }
  return 'invalid_signature';
}

const MINE = pair(DOC.key, DOC.secret);
const docReq = { method: 'POST', url: DOC.url, headers: headersFor(DOC.authorization, DOC.timestamp), body: DOC.body, now: NOW };
const diceReq = { method: 'POST', url: DICE_URL, headers: headersFor(signed(DICE_URL, DICE, DICE_TS), DICE_TS), body: DICE, now: NOW + 211 };
const cases = [
  { name: 'the docs\' worked example (ace event), accepted by validateAuthenticationHeader', secrets: [MINE], ...docReq, expect: 'valid', event_type: 'ace' },
  { name: 'dice event signed by generateAuthorizationHeader', secrets: [MINE], ...diceReq, expect: 'valid', event_type: 'dice' },
  { name: 'rotation: the second configured application key pair verifies', secrets: [pair(OTHER_KEY, OTHER_SECRET), MINE], ...docReq, expect: 'valid', event_type: 'ace' },
  { name: 'one body byte changed after signing (Content-MD5 no longer matches)', secrets: [MINE], ...docReq, body: DOC.body.replace('"ace"', '"acf"'), expect: 'invalid_signature' },
  { name: 'x-timestamp changed after signing (it is signed)', secrets: [MINE], ...docReq, headers: headersFor(DOC.authorization, '2014-09-24T10:59:42Z'), expect: 'invalid_signature' },
  { name: 'delivered to another path than the one signed', secrets: [MINE], ...docReq, url: DICE_URL, expect: 'invalid_signature' },
  { name: 'verified with another application secret for the same key', secrets: [pair(DOC.key, OTHER_SECRET)], ...docReq, expect: 'invalid_signature' },
  { name: 'right secret, but the header names another application key', secrets: [MINE], ...docReq, headers: headersFor(DOC.authorization.replace(DOC.key, OTHER_KEY), DOC.timestamp), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [MINE], ...docReq, headers: docReq.headers.filter(([k]) => k !== 'authorization'), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developers.sinch.com/docs/voice/api-reference/authentication/callback-signed-request';
const out = {
  kind: 'sinch-voice',
  source: { kind: 'sdk', package: '@sinch/sdk-core', registry: 'npm', version: '1.4.0',
    function: 'VoiceCallbackWebhooks.validateAuthenticationHeader (@sinch/sdk-client 1.5.0 validateAuthenticationHeader); the docs\' worked example verbatim, other requests signed with generateAuthorizationHeader', url: DOCS },
  facts: {
    title: 'Sinch Voice and Verification callbacks',
    docs: DOCS,
    scheme: 'Authorization: Application <application key>:<base64(HMAC-SHA256(base64-decoded application secret, "POST\\n" + base64(MD5(body)) + "\\n" + content-type + "\\n" + "x-timestamp:" + x-timestamp + "\\n" + request path))>; the scheme word is case-insensitive',
    secret: '"<application key>:<application secret>" from the Sinch dashboard (Voice or Verification app); the secret is base64 and is decoded to form the HMAC key',
    timestamp: 'x-timestamp (ISO 8601, UTC), signed; the SDK applies no tolerance and the docs only say it "can be validated"',
    event_id: { body_sha256: true },
    event_id_note: 'callbacks carry the call ID (callid), shared by every event of a call, and no delivery ID',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withLateCopy(out, 306, "the SDK checks none; the definition's tolerance is 300 s");
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
