// Known-answer vectors for MailerSend webhooks: every verdict from the official SDK's
// MailerSendUtils.verifyWebHook (mailersend). The SDK has no signer; the signatures
// are the hex HMAC-SHA256 the function recomputes, and each case is kept only
// because the SDK agrees with its expectation.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';

// 3.4.0's index does not export MailerSendUtils (the README imports it from "mailersend"): load its module file.
const { MailerSendUtils } = createRequire(import.meta.url)('mailersend/lib/services/mailersend.utils.js');

const NOW = 1700000000;
const SECRET = 'kFq3Yw8Zp2Lr7Tn5Vx9Bc4Hm6Jd1Sg0A';
const OTHER = 'Qz7Xw2Vt9Rp4Nm8Lk3Jh6Gf1Dc5Sb0Ay';
const HOOK_URL = 'https://hooks.example.com/webhooks/mailersend/acme';
// The docs' activity.sent payload example (fat payload: the activity and its email).
const BODY = JSON.stringify({
  type: 'activity.sent', domain_id: 'yv69oxl5kl785kw2', created_at: '2020-11-27T10:08:08.298647Z', webhook_id: '2351ndgwr4zqx8ko',
  url: 'https://your-domain.com/webhook',
  data: { object: 'activity', id: '5fc0d006b42c3e16e1774882', type: 'sent', created_at: '2020-11-27T10:08:06.258000Z',
    email: { object: 'email', id: '5fc0d003e7a5e7035446aa32', created_at: '2020-11-27T10:08:03.923000Z', from: 'test@mailersend.com',
      subject: 'Test email', status: 'sent', tags: null,
      message: { object: 'message', id: '5fc0d003f718c90162344ce3', created_at: '2020-11-27T10:08:03.000000Z' },
      recipient: { object: 'recipient', id: '5fc0d003e7a5e7035446aa33', email: 'test@example.com', created_at: '2020-11-27T10:08:03.000000Z' } },
    morph: null },
});
const TAMPERED = BODY.replace('Test email', 'Test emaim');

const sign = (secret, body) => createHmac('sha256', secret).update(body, 'utf8').digest('hex');
const headersFor = (sig) => [['Content-Type', 'application/json'], ['X-MailerSend-Signature', sig]];

// verifyWebHook throws "No signature provided" without one and returns true or false otherwise
// (timingSafeEqual throws on a length mismatch, which is also a rejection).
function sdkVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'x-mailersend-signature')?.[1];
  for (const secret of c.secrets) {
    try {
      if (MailerSendUtils.verifyWebHook(Buffer.from(c.body, 'utf8'), sig, secret)) return 'valid';
    } catch (e) {
      if (e.message === 'No signature provided') return 'missing_signature';
      throw e;
    }
  }
  return 'invalid_signature';
}

const req = (sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-mailersend-signature') });
const sig = sign(SECRET, BODY);
const ok = { event_id: '5fc0d006b42c3e16e1774882', event_type: 'activity.sent' };
const cases = [
  { name: 'activity.sent signed with the signing secret, accepted by MailerSendUtils.verifyWebHook', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured signing secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'X-MailerSend-Signature removed', secrets: [SECRET], ...strip(req(sig)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developers.mailersend.com/api/v1/webhooks.html';
const out = {
  kind: 'mailersend',
  source: { kind: 'sdk', package: 'mailersend', registry: 'npm', version: '3.4.0',
    function: 'MailerSendUtils.verifyWebHook(rawBody, signature, signingSecret) (lib/services/mailersend.utils.js)', url: DOCS },
  facts: {
    title: 'MailerSend',
    docs: DOCS,
    scheme: 'X-MailerSend-Signature = hex(HMAC-SHA256(signing secret as UTF-8, raw body)); header name from the SDK README (request.headers[\'x-mailersend-signature\'])',
    secret: 'the webhook\'s Signing secret from the MailerSend dashboard (Domains > Webhooks), used verbatim as UTF-8 bytes',
    timestamp: null,
    event_id: { json_pointer: '/data/id' },
    event_id_note: 'data.id is the activity\'s ID, one per email activity, so a retry of the same webhook repeats it; no delivery ID header is documented in the pages reachable here: ' + DOCS,
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
