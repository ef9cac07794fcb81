// Known-answer vectors for Twilio, signed with the official twilio package's
// own getExpectedTwilioSignature and checked by its validateIncomingRequest
// (the function its Express webhook() middleware calls), which picks the form
// or the JSON (bodySHA256) variant from the URL exactly as Twilio intends.
import fs from 'node:fs';
import crypto from 'node:crypto';
import querystring from 'node:querystring';
import twilio from 'twilio';
import { withIdentity } from '../identity.mjs';

const { getExpectedTwilioSignature, validateIncomingRequest } = twilio;
const SECRET = '12345';                    // Twilio's docs use this Auth Token in their example
const OTHER = 'a8c3f7e1b2d94c6e8f0a1b2c3d4e5f60';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/twilio?tenant=acme';
const SIG_HEADER = 'X-Twilio-Signature';
// An incoming SMS as Twilio posts it (application/x-www-form-urlencoded):
// https://www.twilio.com/docs/messaging/guides/webhook-request
const FORM = querystring.stringify({
  ToCountry: 'US', ToState: 'CA', SmsMessageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f', NumMedia: '0',
  ToCity: 'SAN FRANCISCO', FromZip: '94105', SmsSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f', FromState: 'CA',
  SmsStatus: 'received', FromCity: 'SAN FRANCISCO', Body: 'Hello from +1 (415) 867-5309 & friends', FromCountry: 'US',
  To: '+18005551212', ToZip: '94105', NumSegments: '1', MessageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
  AccountSid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', From: '+14158675309', ApiVersion: '2010-04-01',
});
// A JSON body: Twilio then adds bodySHA256 (hex SHA-256 of the body) to the
// query string and signs the URL alone.
const JSON_BODY = JSON.stringify({
  account_sid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', message_sid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
  status: 'delivered', to: '+18005551212', from: '+14158675309', date_updated: '2023-11-14T22:13:18Z',
});

const params = (body) => querystring.parse(body);
const bodyHash = (b) => crypto.createHash('sha256').update(b).digest('hex');
const jsonUrl = (b, base = URL) => `${base}&bodySHA256=${bodyHash(b)}`;
function form({ secret = SECRET, b = FORM, signed = FORM, url = URL, signedUrl = url, drop = false } = {}) {
  const headers = [['Content-Type', 'application/x-www-form-urlencoded']];
  if (!drop) headers.push([SIG_HEADER, getExpectedTwilioSignature(secret, signedUrl, params(signed))]);
  return { method: 'POST', url, headers, body: b };
}
function json({ secret = SECRET, b = JSON_BODY, url = jsonUrl(JSON_BODY) } = {}) {
  const headers = [['Content-Type', 'application/json'], [SIG_HEADER, getExpectedTwilioSignature(secret, url, {})]];
  return { method: 'POST', url, headers, body: b };
}
const cases = [
  { name: 'form POST signed over URL + sorted parameters', secrets: [SECRET], ...form(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...form({ b: FORM.replace('friends', 'friendz') }), expect: 'invalid_signature' },
  { name: 'verified with another Auth Token', secrets: [OTHER], ...form(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...form({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new Auth Token', secrets: [OTHER, SECRET], ...form(), expect: 'valid' },
  { name: 'query string of the URL changed', secrets: [SECRET], ...form({ url: URL.replace('acme', 'acmf'), signedUrl: URL }), expect: 'invalid_signature' },
  { name: 'signed with the explicit :443 port, received without it', secrets: [SECRET], ...form({ signedUrl: URL.replace('.com/', '.com:443/') }), expect: 'valid' },
  { name: 'parameters in another order in the body (the signature sorts them)', secrets: [SECRET], ...form({ b: FORM.split('&').reverse().join('&') }), expect: 'valid' },
  { name: 'a parameter added to the body', secrets: [SECRET], ...form({ b: `${FORM}&Extra=1` }), expect: 'invalid_signature' },
  { name: 'JSON body with bodySHA256 in the query string', secrets: [SECRET], ...json(), expect: 'valid' },
  { name: 'JSON body changed, bodySHA256 no longer matches', secrets: [SECRET], ...json({ b: JSON_BODY.replace('delivered', 'delivereD') }), expect: 'invalid_signature' },
  { name: 'JSON body verified with another Auth Token', secrets: [OTHER], ...json(), expect: 'invalid_signature' },
  { name: 'JSON body and bodySHA256 both changed, URL signature no longer matches', secrets: [SECRET], ...json({ b: JSON_BODY.replace('delivered', 'delivereD'), url: jsonUrl(JSON_BODY.replace('delivered', 'delivereD')) }), expect: 'invalid_signature', signedUrl: jsonUrl(JSON_BODY) },
].map((c) => ({ ...c, now: NOW }));
// The last case: the body and its hash were both swapped after signing, so
// its header must still carry the signature of the original URL.
{
  const c = cases[cases.length - 1];
  c.headers[1][1] = getExpectedTwilioSignature(SECRET, c.signedUrl, {});
  delete c.signedUrl;
}

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
// The SDK's verdict, through the same function its middleware calls: the
// middleware answers 400 to a missing header before validating.
function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  const isJson = header(c, 'Content-Type') === 'application/json';
  const req = {
    header: (name) => header(c, name),
    body: isJson ? JSON.parse(c.body) : params(c.body),
    rawBody: c.body,
  };
  const ok = c.secrets.some((token) => validateIncomingRequest(req, token, { url: c.url }));
  return ok ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: twilio says ${got}, the case says ${c.expect}`);
}

const DOCS = 'https://www.twilio.com/docs/usage/webhooks/webhooks-security';
const out = {
  kind: 'twilio',
  source: {
    kind: 'sdk', package: 'twilio', registry: 'npm', version: '6.2.0',
    function: 'webhooks.getExpectedTwilioSignature (signing); webhooks.validateIncomingRequest (verdicts)',
    url: DOCS,
  },
  facts: {
    title: 'Twilio',
    docs: DOCS,
    scheme: 'X-Twilio-Signature = base64 HMAC-SHA1(Auth Token, full URL + for each POST parameter sorted by name: name + value (decoded)); for a JSON body the URL carries bodySHA256 = hex SHA-256 of the raw body and the URL alone is signed',
    secret: "the account's primary Auth Token (32 hex characters) from the Console, used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a retry repeats the same request; Twilio bodies have no delivery ID (MessageSid repeats across status callbacks of one message). The I-Twilio-Idempotency-Token header is widely used for this but its documentation could not be read here (NOTES.md)',
    event_type: null,
    retry_horizon: 'by default one retry on connection failure, all attempts within 15 s (#rc=, #tt= URL overrides allow up to 5 retries within 15 s)',
    retry_source: 'https://www.twilio.com/docs/usage/webhooks/webhooks-connection-overrides',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`twilio: ${cases.length} cases`);
