// Known-answer vectors for Postmark webhooks. Postmark signs nothing: its docs
// protect a webhook with HTTP Basic credentials put in the webhook URL
// ("https://<username>:<password>@example.com/webhook",
// https://postmarkapp.com/developer/webhooks/webhooks-overview#protecting-your-webhook),
// and its Webhooks API and official SDKs (npm `postmark`, CreateWebhookRequest)
// take the same pair as HttpAuth {Username, Password}. The client sends them as
// an RFC 7617 Basic Authorization header; each verdict is whether the header
// carries one of the tenant's user:password pairs.
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'hookline:pm-test-password-0123456789';
const OTHER = 'hookline:pm-other-password-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/postmark';
// The documented Bounce webhook: https://postmarkapp.com/developer/webhooks/bounce-webhook
const BODY = JSON.stringify({
  RecordType: 'Bounce',
  MessageStream: 'outbound',
  ID: 4323372036854775807,
  Type: 'HardBounce',
  TypeCode: 1,
  Name: 'Hard bounce',
  Tag: 'Invitation',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  Metadata: { a_key: 'a_value', b_key: 'b_value' },
  ServerID: 23,
  Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
  Details: 'Test bounce details',
  Email: 'john@example.com',
  From: 'sender@example.com',
  BouncedAt: '2023-11-14T22:13:15Z',
  DumpAvailable: true,
  Inactive: true,
  CanActivate: true,
  Subject: 'Test subject',
  Content: '<Full dump of bounce>',
});
const EVENT_TYPE = 'Bounce';
const basic = (pair) => 'Basic ' + Buffer.from(pair, 'utf8').toString('base64');

function request({ auth = basic(SECRET), b = BODY } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (auth !== null) headers.push(['Authorization', auth]);
  return { method: 'POST', url: URL, headers, body: b };
}
const cases = [
  { name: 'Basic credentials match', secrets: [SECRET], ...request(), expect: 'valid', event_type: EVENT_TYPE },
  { name: 'one byte of the password changed', secrets: [SECRET], ...request({ auth: basic('hookline:pm-test-password-0123456780') }), expect: 'invalid_signature' },
  { name: 'verified with another credential pair', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...request({ auth: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new password', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_type: EVENT_TYPE },
  { name: 'right password for another user name', secrets: [SECRET], ...request({ auth: basic('someone:pm-test-password-0123456789') }), expect: 'invalid_signature' },
  { name: 'a Bearer header instead of Basic', secrets: [SECRET], ...request({ auth: 'Bearer ' + Buffer.from(SECRET).toString('base64') }), expect: 'invalid_signature' },
].map((c) => ({ ...c, now: NOW }));

// RFC 7617: the scheme is "Basic" (case-insensitive), then base64 of user:password.
function verdict(c) {
  const h = c.headers.find(([k]) => k === 'Authorization')?.[1];
  if (h === undefined) return 'missing_signature';
  const m = /^basic (.+)$/i.exec(h);
  if (!m) return 'invalid_signature';
  return c.secrets.includes(Buffer.from(m[1], 'base64').toString('utf8')) ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: ${got} != ${c.expect}`);
}

const DOCS = 'https://postmarkapp.com/developer/webhooks/webhooks-overview';
const out = {
  kind: 'postmark',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'webhook URL with https://<username>:<password>@ (HTTP Basic, RFC 7617); HttpAuth {Username, Password} in the Webhooks API',
    url: DOCS,
  },
  facts: {
    title: 'Postmark',
    docs: DOCS,
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(username + ":" + password); the body is not signed',
    secret: 'user:password, the pair put in the webhook URL (https://user:password@host/...) or set as HttpAuth in the Webhooks API',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'no delivery ID; the IDs differ by record type (Bounce has ID, Delivery/Open/Click share the message\'s MessageID), so a MessageID is not an event ID: https://postmarkapp.com/developer/webhooks/webhooks-overview',
    event_type: { json_pointer: '/RecordType' },
    retry_horizon: 'inbound webhooks: 10 retries over about 10.5 hours (1, 5, 10, 10, 10, 15, 30 min, 1, 2, 6 h); a 403 answer stops them',
    retry_source: 'https://postmarkapp.com/support/article/understanding-inbound-webhook-retries-in-postmark',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`postmark: ${cases.length} cases`);
