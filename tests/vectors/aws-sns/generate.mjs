// Known-answer vectors for Amazon SNS HTTP(S) subscriptions, checked by AWS's
// own sns-validator (github.com/aws/aws-js-sns-message-validator):
// MessageValidator#validate decides every verdict. Messages are signed here
// with a self-signed test certificate (test-key.pem / test-cert.pem, made once
// with openssl; RSA PKCS#1 v1.5 is deterministic), following the documented
// string to sign; the validator's certificate download is redirected to that
// local PEM inside this process only, and `certs` maps the URL to it.
import fs from 'node:fs';
import crypto from 'node:crypto';
import https from 'node:https';
import { EventEmitter } from 'node:events';
import MessageValidator from 'sns-validator';
import { withLateCopy } from '../identity.mjs';

const KEY = fs.readFileSync('test-key.pem', 'utf8');
const CERT = fs.readFileSync('test-cert.pem', 'utf8');
const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-hookline-test.pem';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:hookline-orders';
const OTHER_TOPIC = 'arn:aws:sns:us-east-1:123456789012:someone-elses-topic';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/aws-sns';
const MESSAGE_ID = '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324';

// The validator fetches SigningCertURL with https.get: serve our PEM for our
// URL, refuse every other fetch (nothing leaves this process).
https.get = (url, cb) => {
  const req = new EventEmitter();
  const res = new EventEmitter();
  res.statusCode = url === CERT_URL ? 200 : 404;
  process.nextTick(() => {
    cb(res);
    if (res.statusCode === 200) res.emit('data', Buffer.from(CERT));
    res.emit('end');
  });
  return req;
};

// The documented string to sign: for each signed key present, in this order,
// "Key\nvalue\n" (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
const SIGNED = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};
function sign(msg, version) {
  const text = SIGNED[msg.Type].filter((k) => k in msg).map((k) => `${k}\n${msg[k]}\n`).join('');
  return crypto.sign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256', Buffer.from(text), KEY).toString('base64');
}
// The documented Notification example: https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html
function notification({ version = '2', topic = TOPIC, certUrl = CERT_URL, drop = false, tamper = null } = {}) {
  const msg = {
    Type: 'Notification', MessageId: MESSAGE_ID, TopicArn: topic, Subject: 'Order placed',
    Message: JSON.stringify({ order_id: 'ord_1042', amount: 4200, currency: 'EUR' }),
    Timestamp: '2023-11-14T22:13:18.123Z', SignatureVersion: version,
  };
  msg.Signature = sign(msg, version);
  msg.SigningCertURL = certUrl;
  msg.UnsubscribeURL = `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topic}:c9135db0-26c4-47ec-8998-413945fb5a96`;
  if (tamper) tamper(msg);
  if (drop) delete msg.Signature;
  return msg;
}
function request(msg) {
  const headers = [
    ['Content-Type', 'text/plain; charset=UTF-8'],
    ['x-amz-sns-message-type', msg.Type],
    ['x-amz-sns-message-id', msg.MessageId],
    ['x-amz-sns-topic-arn', msg.TopicArn],
  ];
  return { method: 'POST', url: URL, headers, body: JSON.stringify(msg, null, 2) };
}
const cases = [
  { name: 'SignatureVersion 2 (RSA-SHA256) notification', secrets: [TOPIC], ...request(notification()), expect: 'valid' },
  { name: 'SignatureVersion 1 (RSA-SHA1) notification', secrets: [TOPIC], ...request(notification({ version: '1' })), expect: 'valid' },
  { name: 'Message changed after signing', secrets: [TOPIC], ...request(notification({ tamper: (m) => { m.Message = m.Message.replace('4200', '4201'); } })), expect: 'invalid_signature' },
  // The tenant's secrets name the topics it subscribed; the validator checks
  // the signature only, so a validly signed message of another topic is
  // refused by hookline alone (NOTES.md).
  { name: 'validly signed, but from a topic the tenant did not subscribe', secrets: [OTHER_TOPIC], ...request(notification()), expect: 'invalid_signature', sdk: 'valid' },
  { name: 'Signature removed', secrets: [TOPIC], ...request(notification({ drop: true })), expect: 'missing_signature' },
  { name: 'SigningCertURL on a host outside the allow-list', secrets: [TOPIC], ...request(notification({ certUrl: 'https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-hookline-test.pem' })), expect: 'invalid_signature' },
  { name: 'SigningCertURL over http', secrets: [TOPIC], ...request(notification({ certUrl: CERT_URL.replace('https:', 'http:') })), expect: 'invalid_signature' },
  { name: 'SignatureVersion changed from 2 to 1 after signing', secrets: [TOPIC], ...request(notification({ tamper: (m) => { m.SignatureVersion = '1'; } })), expect: 'invalid_signature' },
  { name: 'tenant subscribed two topics', secrets: [OTHER_TOPIC, TOPIC], ...request(notification()), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: MESSAGE_ID, event_type: 'Notification' } : {}) }));

const validator = new MessageValidator();
const validates = (body) => new Promise((resolve) => validator.validate(body, (err) => resolve(!err)));
async function sdkVerdict(c) {
  const msg = JSON.parse(c.body);
  if (!('Signature' in msg)) return 'missing_signature';
  if (!(await validates(c.body))) return 'invalid_signature';
  return c.secrets.includes(msg.TopicArn) || c.sdk ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: sns-validator says ${got}, the case says ${want}`);
  delete c.sdk;
}

// SubscriptionConfirmation: signed like a notification (with SubscribeURL and
// Token); after verification the receiver confirms by GETting SubscribeURL.
const SUBSCRIBE_URL = `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37fb687f5d51e6e2425dacbbaeb4c3d5`;
const confirmation = {
  Type: 'SubscriptionConfirmation', MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
  Token: '2336412f37fb687f5d51e6e2425dacbbaeb4c3d5', TopicArn: TOPIC,
  Message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
  SubscribeURL: SUBSCRIBE_URL, Timestamp: '2023-11-14T22:13:17.000Z', SignatureVersion: '1',
};
confirmation.Signature = sign(confirmation, '1');
confirmation.SigningCertURL = CERT_URL;
const creq = request(confirmation);
if (!(await validates(creq.body))) throw new Error('sns-validator refuses the confirmation');
const forged = { ...confirmation, SubscribeURL: SUBSCRIBE_URL.replace('sns.us-east-1.amazonaws.com', 'sns.us-east-1.amazonaws.com.evil.example') };
const freq = request(forged);
if (await validates(freq.body)) throw new Error('sns-validator accepts a changed SubscribeURL');
const handshakes = [
  { name: 'SubscriptionConfirmation: verified, then SubscribeURL is fetched', request: creq,
    expect: { status: 200, content_type: null, body: null, headers: [], subscribe_url: SUBSCRIBE_URL } },
  { name: 'SubscriptionConfirmation whose SubscribeURL was changed after signing: refused, nothing fetched', request: freq,
    expect: { status: 401, content_type: null, body: null, headers: [], subscribe_url: null } },
].map((h) => ({ name: h.name, secrets: [TOPIC], verify_token: null, request: h.request, now: NOW, expect: h.expect }));

const DOCS = 'https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html';
const out = {
  kind: 'aws-sns',
  source: {
    kind: 'sdk', package: 'sns-validator', registry: 'npm', version: '0.3.5',
    function: 'MessageValidator#validate (certificate download redirected to test-cert.pem)',
    url: DOCS,
  },
  facts: {
    title: 'Amazon SNS (HTTP/S subscriptions)',
    docs: DOCS,
    scheme: 'Signature = base64 RSA signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) over "Key\\nvalue\\n" for the signed keys present, in order (Notification: Message, MessageId, Subject, Timestamp, TopicArn, Type; confirmations: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type), verified with the X.509 certificate at SigningCertURL (https, *.amazonaws.com, path ending .pem)',
    secret: 'no shared secret: the tenant lists the TopicArn(s) it subscribed; trust comes from the certificate host allow-list',
    timestamp: 'Timestamp is the publish time, signed and repeated on retries; no freshness tolerance documented (a short one would refuse legitimate retries)',
    event_id: { json_pointer: '/MessageId' },
    event_id_note: 'MessageId (also x-amz-sns-message-id) is the same for every delivery attempt of a message: https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html',
    event_type: { json_pointer: '/Type' },
    retry_horizon: 'HTTP/S default delivery policy: 3 retries 20 s apart (about a minute); custom policies allow up to 100 retries with delays up to 1 hour each',
    retry_source: 'https://docs.aws.amazon.com/sns/latest/dg/sns-message-delivery-retries.html',
    handshake: 'SubscriptionConfirmation (x-amz-sns-message-type), signed like notifications: verify, then GET SubscribeURL (allow-listed host) to confirm: https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.prepare.html',
  },
  certs: { [CERT_URL]: CERT },
  cases,
  handshakes,
};
withLateCopy(out, 4206, "the SDK checks none; the definition's tolerance is 70 min, SNS's retry horizon");
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`aws-sns: ${cases.length} cases, ${handshakes.length} handshakes`);
