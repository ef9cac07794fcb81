// Known-answer vectors for Pipedrive webhooks. Pipedrive signs nothing: a
// webhook may carry HTTP Basic credentials, set as http_auth_user and
// http_auth_password when the webhook is created ("The HTTP basic auth username
// / password of the subscription URL endpoint (if required)", Webhooks API,
// https://developers.pipedrive.com/docs/api/v1/Webhooks#addWebhook; the same
// fields are in the official `pipedrive` SDK's AddWebhookRequest model). The
// Authorization header is RFC 7617 Basic; each verdict is whether it carries
// one of the tenant's user:password pairs.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const SECRET = 'hookline:pd-test-password-0123456789';
const OTHER = 'hookline:pd-other-password-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/pipedrive';
// A v1 webhook body: https://pipedrive.readme.io/docs/guide-for-webhooks
const EVENT = {
  v: 1,
  matches_filters: { current: [] },
  meta: { v: 1, action: 'added', object: 'deal', id: 1042, company_id: 7351520, user_id: 11231280, host: 'acme.pipedrive.com', timestamp: 1699999995, permitted_user_ids: [11231280], trans_pending: false, is_bulk_update: false, webhook_id: '1337' },
  current: { id: 1042, title: 'Acme deal', value: 5000, currency: 'EUR', status: 'open' },
  previous: null,
  event: 'added.deal',
  retry: 0,
};
const BODY = JSON.stringify(EVENT);
// Pipedrive's retry of the same delivery: "the retry field in the payload"
// counts the attempts (https://devcommunity.pipedrive.com/t/troubleshooting-webhook-delivery-and-payload-structure/4964;
// webhooks v2 moved it to meta.attempt: https://pipedrive.readme.io/docs/webhooks-v2-migration-guide).
const RETRY = JSON.stringify({ ...EVENT, retry: 1 });
// The event ID is the SHA-256 of the body without those counters, in
// canonical JSON (members sorted, no whitespace): the definition's
// `[fingerprint] ignore` (docs/configuration.md), so a retry keeps its ID.
const canonical = (v) => Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
  : JSON.stringify(v);
function eventId(body) {
  const doc = JSON.parse(body);
  delete doc.retry;
  if (doc.meta) delete doc.meta.attempt;
  return crypto.createHash('sha256').update(canonical(doc)).digest('hex');
}
const ID = eventId(BODY);
const basic = (pair) => 'Basic ' + Buffer.from(pair, 'utf8').toString('base64');

function request({ auth = basic(SECRET), body = BODY } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (auth !== null) headers.push(['Authorization', auth]);
  return { method: 'POST', url: URL, headers, body };
}
const cases = [
  { name: 'Basic credentials match', secrets: [SECRET], ...request(), expect: 'valid', event_id: ID, event_type: 'added.deal' },
  { name: 'its retry (retry: 1) keeps the event ID', secrets: [SECRET], ...request({ body: RETRY }), expect: 'valid', event_id: ID, event_type: 'added.deal' },
  { name: 'wrong password', secrets: [SECRET], ...request({ auth: basic('hookline:pd-test-password-0123456780') }), expect: 'invalid_signature' },
  { name: 'verified with another credential pair', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...request({ auth: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new password', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_id: ID, event_type: 'added.deal' },
].map((c) => ({ ...c, now: NOW }));

// RFC 7617: decode the credentials and compare them with each configured pair.
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'Authorization')?.[1];
  const sent = h === undefined ? undefined : Buffer.from(h.replace(/^Basic /, ''), 'base64').toString('utf8');
  const got = sent === undefined ? 'missing_signature' : c.secrets.includes(sent) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: ${got} != ${c.expect}`);
}

const out = {
  kind: 'pipedrive',
  source: {
    kind: 'docs-example', package: '', registry: '', version: '',
    function: 'Webhooks API http_auth_user / http_auth_password (HTTP Basic, RFC 7617)',
    url: 'https://developers.pipedrive.com/docs/api/v1/Webhooks#addWebhook',
  },
  facts: {
    title: 'Pipedrive',
    docs: 'https://developers.pipedrive.com/docs/api/v1/Webhooks#addWebhook',
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(http_auth_user + ":" + http_auth_password); the body is not signed',
    secret: 'user:password, the http_auth_user and http_auth_password set on the webhook',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'no delivery ID: the SHA-256 of the body without its retry counter (v1 "retry", v2 "meta.attempt"), so a retry keeps its ID: https://pipedrive.readme.io/docs/webhooks-v2-migration-guide',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the pages cited; use the default window',
    retry_source: 'https://pipedrive.readme.io/docs/guide-for-webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`pipedrive: ${cases.length} cases`);

// The corpus (tests/captures/README.md): a delivery and its retry, sent with
// the Basic credentials Pipedrive is configured with.
const dir = '../../captures/pipedrive';
fs.mkdirSync(dir, { recursive: true });
const capture = (body) => ({
  provider: 'pipedrive', kind: 'pipedrive', tenant: 'default', method: 'POST', path: '/webhooks/pipedrive', query: '',
  headers: request({ body }).headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00',
});
fs.writeFileSync(`${dir}/0001-added.deal.json`, JSON.stringify(capture(BODY), null, 2) + '\n');
fs.writeFileSync(`${dir}/0002-added.deal-retry.json`, JSON.stringify(capture(RETRY), null, 2) + '\n');
const events = [{ id: ID, type: 'added.deal' }];
fs.writeFileSync(`${dir}/manifest.json`, JSON.stringify({
  route: 'pipedrive', kind: 'pipedrive', secrets: [SECRET],
  source: 'tests/vectors/pipedrive/generate.mjs: Pipedrive signs nothing; the Basic credentials it is configured with',
  captures: [
    { file: 'pipedrive/0001-added.deal.json', expect: 'accepted', events,
      why: 'a v1 deal webhook: https://pipedrive.readme.io/docs/guide-for-webhooks' },
    { file: 'pipedrive/0002-added.deal-retry.json', expect: 'duplicate', events,
      why: 'its retry, the retry counter grown by one: https://devcommunity.pipedrive.com/t/troubleshooting-webhook-delivery-and-payload-structure/4964' },
  ],
}, null, 2) + '\n');
