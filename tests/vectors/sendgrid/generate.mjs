// Known-answer vectors for the SendGrid Signed Event Webhook, checked by the
// official @sendgrid/eventwebhook package (EventWebhook#verifySignature).
// Two cases are real SendGrid requests published in that package's own test
// file (eventwebhook.spec.js); the others are signed here with a fixed test
// key. @noble/curves signs with RFC 6979 deterministic nonces, so this file is
// the same on every run; the package, not this script, decides every verdict.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { p256 } from '@noble/curves/nist.js';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { withIdentity } from '../identity.mjs';

const require = createRequire(import.meta.url);
const SPEC = fs.readFileSync(require.resolve('@sendgrid/eventwebhook/src/eventwebhook.spec.js'), 'utf8');
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/sendgrid';
const SIG_HEADER = 'X-Twilio-Email-Event-Webhook-Signature';
const TS_HEADER = 'X-Twilio-Email-Event-Webhook-Timestamp';

// A test key pair. `secrets` hold the public key the way SendGrid's Mail
// Settings page shows the "Verification Key": base64 of the DER
// SubjectPublicKeyInfo, without PEM armour.
const SPKI_P256 = '3059301306072a8648ce3d020106082a8648ce3d030107034200';
function keyPair(hex) {
  const sk = Buffer.from(hex, 'hex');
  const pub = Buffer.concat([Buffer.from(SPKI_P256, 'hex'), Buffer.from(p256.getPublicKey(sk, false))]).toString('base64');
  return { sk, pub };
}
const KEY = keyPair('c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721');
const OTHER = keyPair('0f56db78ca460b055c500064824bed999a25aaf48ebb519ac201537b85479813');

// A batch as SendGrid posts it: a JSON array, one event per line, each line
// ending in CRLF (the package's test file says so, and its real requests show it):
// https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event
const EVENTS = [
  { email: 'example@test.com', timestamp: 1699999990, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'processed', category: ['cat facts'], sg_event_id: 'rbtnWrG1DVDGGGFHFyun0A==', sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0' },
  { email: 'example@test.com', timestamp: 1699999995, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'delivered', category: ['cat facts'], sg_event_id: 'rWVYmVk90MjZJ9iohOBa3w==', sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0', response: '250 OK' },
];
const BODY = JSON.stringify(EVENTS).split('},{').join('},\r\n{') + '\r\n';

const sign = (key, ts, b) => Buffer.from(p256.sign(Buffer.from(`${ts}${b}`), key.sk, { format: 'der' })).toString('base64');
function request({ at = NOW - 2, key = KEY, b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json'], [TS_HEADER, String(at)]];
  if (!drop) headers.push([SIG_HEADER, sign(key, at, BODY)]);
  return { method: 'POST', url: URL, headers, body: b, at };
}

// The package's two real single- and multi-event requests, read from its spec.
const grab = (name) => SPEC.match(new RegExp(`const ${name} = '?([^';\\n]+)'?;`))[1];
const specPayload = JSON.stringify([{
  email: 'hello@world.com', event: 'dropped', reason: 'Bounced Address',
  sg_event_id: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
  sg_message_id: 'LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0',
  'smtp-id': '<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>', timestamp: 1600112492,
}]) + '\r\n';
if (!SPEC.includes("reason: 'Bounced Address'")) throw new Error('the spec file changed: re-read its PAYLOAD');
const real = (name, secret, body, sig, ts, expect) => ({
  name, secrets: [secret], method: 'POST', url: URL,
  headers: [['Content-Type', 'application/json'], [TS_HEADER, String(ts)], [SIG_HEADER, sig]],
  body, now: Number(ts) + 10, expect,
});

const flip = (b) => b.replace('"delivered"', '"delivereD"');
const cases = [
  real('a real SendGrid request (from the package\'s tests)', grab('PUBLIC_KEY'), specPayload, grab('SIGNATURE'), grab('TIMESTAMP'), 'valid'),
  real('the same real request checked with another key (from the package\'s tests)', 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqTxd43gyp8IOEto2LdIfjRQrIbsd4SXZkLW6jDutdhXSJCWHw8REntlo7aNDthvj+y7GjUuFDb/R1NGe1OPzpA==', specPayload, grab('SIGNATURE'), grab('TIMESTAMP'), 'invalid_signature'),
  real('the same real request without its trailing CRLF', grab('PUBLIC_KEY'), specPayload.trimEnd(), grab('SIGNATURE'), grab('TIMESTAMP'), 'invalid_signature'),
  { name: 'valid ECDSA signature over timestamp + body', secrets: [KEY.pub], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [KEY.pub], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another verification key', secrets: [OTHER.pub], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [KEY.pub], ...request({ drop: true }), expect: 'missing_signature' },
  // verifySignature does not look at the clock; hookline does, with the
  // definition's tolerance: the 24 h retry horizon (NOTES.md).
  { name: 'timestamp 23 h 59 min old (a late retry)', secrets: [KEY.pub], ...request({ at: NOW - 86340 }), expect: 'valid' },
  { name: 'timestamp 24 h + 1 s old', secrets: [KEY.pub], ...request({ at: NOW - 86401 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'timestamp 24 h + 1 s in the future', secrets: [KEY.pub], ...request({ at: NOW + 86401 }), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 'tenant holds the old and the new verification key', secrets: [OTHER.pub, KEY.pub], ...request(), expect: 'valid' },
].map((c) => ({ now: NOW, ...c }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
const ew = new EventWebhook();
function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined || header(c, TS_HEADER) === undefined) return 'missing_signature';
  const ok = c.secrets.some((k) => ew.verifySignature(ew.convertPublicKeyToECDSA(k), c.body, header(c, SIG_HEADER), header(c, TS_HEADER)));
  return ok ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: @sendgrid/eventwebhook says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const DOCS = 'https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features';
const out = {
  kind: 'sendgrid',
  source: {
    kind: 'sdk', package: '@sendgrid/eventwebhook', registry: 'npm', version: '8.0.0',
    function: 'EventWebhook#convertPublicKeyToECDSA + EventWebhook#verifySignature',
    url: DOCS,
  },
  facts: {
    title: 'Twilio SendGrid (Event Webhook)',
    docs: DOCS,
    scheme: 'X-Twilio-Email-Event-Webhook-Signature = base64 DER ECDSA P-256/SHA-256 signature of X-Twilio-Email-Event-Webhook-Timestamp + raw body',
    secret: 'the Signed Event Webhook "Verification Key" from Settings > Mail Settings > Event Webhook: base64 DER SubjectPublicKeyInfo of a P-256 key (starts "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE")',
    timestamp: 'X-Twilio-Email-Event-Webhook-Timestamp, unix seconds, signed (prepended to the body); no tolerance documented and the package checks none; hookline takes the retry horizon (24 h) as the tolerance, since the dedup key on the signed body lasts as long',
    batch: '',
    event_id: { json_pointer: '/sg_event_id' },
    event_id_note: 'a request is a batch of events, each with its own sg_event_id; the batch has no ID of its own: https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'retried for up to 24 hours (see NOTES.md: recalled, not re-read here)',
    retry_source: 'https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`sendgrid: ${cases.length} cases`);
