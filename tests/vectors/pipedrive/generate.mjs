// Known-answer vectors for Pipedrive webhooks. Pipedrive signs nothing: a
// webhook may carry HTTP Basic credentials, set as http_auth_user and
// http_auth_password when the webhook is created ("The HTTP basic auth username
// / password of the subscription URL endpoint (if required)", Webhooks API,
// https://developers.pipedrive.com/docs/api/v1/Webhooks#addWebhook; the same
// fields are in the official `pipedrive` SDK's AddWebhookRequest model). The
// Authorization header is RFC 7617 Basic; each verdict is whether it carries
// one of the tenant's user:password pairs.
import fs from 'node:fs';
import { withIdentity } from '../identity.mjs';

const SECRET = 'hookline:pd-test-password-0123456789';
const OTHER = 'hookline:pd-other-password-987654321';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/pipedrive';
// A v1 webhook body: https://pipedrive.readme.io/docs/guide-for-webhooks
const BODY = JSON.stringify({
  v: 1,
  matches_filters: { current: [] },
  meta: { v: 1, action: 'added', object: 'deal', id: 1042, company_id: 7351520, user_id: 11231280, host: 'acme.pipedrive.com', timestamp: 1699999995, permitted_user_ids: [11231280], trans_pending: false, is_bulk_update: false, webhook_id: '1337' },
  current: { id: 1042, title: 'Acme deal', value: 5000, currency: 'EUR', status: 'open' },
  previous: null,
  event: 'added.deal',
  retry: 0,
});
const basic = (pair) => 'Basic ' + Buffer.from(pair, 'utf8').toString('base64');

function request({ auth = basic(SECRET) } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (auth !== null) headers.push(['Authorization', auth]);
  return { method: 'POST', url: URL, headers, body: BODY };
}
const cases = [
  { name: 'Basic credentials match', secrets: [SECRET], ...request(), expect: 'valid', event_type: 'added.deal' },
  { name: 'wrong password', secrets: [SECRET], ...request({ auth: basic('hookline:pd-test-password-0123456780') }), expect: 'invalid_signature' },
  { name: 'verified with another credential pair', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...request({ auth: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new password', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_type: 'added.deal' },
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
    event_id_note: 'no delivery ID; the v1 body carries a retry counter ("retry"), so a retried delivery has a different body hash: https://pipedrive.readme.io/docs/guide-for-webhooks',
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
