// Known-answer vectors for webhooks from Nango. Every verdict is the official
// @nangohq/node verifyIncomingWebhookRequest(body, headers)'s, which checks
// X-Nango-Hmac-Sha256; the SDK has no signer, so the header is computed here as
// the SDK computes its expectation (hex HMAC-SHA256 of the raw body) and each
// case is kept only because the SDK agrees with it.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { Nango } from '@nangohq/node';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'nango-webhook-signing-key-7f3a9c1e5b2d8f4a';
const OTHER = 'nango-webhook-signing-key-0b1c2d3e4f5a6b7c';
const HOOK_URL = 'https://hooks.example.com/webhooks/nango/acme';
const SIG_HEADER = 'X-Nango-Hmac-Sha256';
// A sync webhook as the docs show one: type, connectionId, providerConfigKey, syncName, model, responseResults...
const BODY = JSON.stringify({
  type: 'sync',
  connectionId: 'conn-42',
  providerConfigKey: 'salesforce',
  syncName: 'contacts',
  model: 'Contact',
  syncType: 'INCREMENTAL',
  success: true,
  modifiedAfter: '2023-11-14T22:13:00.000Z',
  responseResults: { added: 3, updated: 1, deleted: 0 },
});
const TAMPERED = BODY.replace('"added":3', '"added":4');

const sign = (secret, body) => crypto.createHmac('sha256', secret).update(body).digest('hex');
function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers);
  if (!Object.keys(headers).some((k) => k.toLowerCase() === SIG_HEADER.toLowerCase())) return 'missing_signature';
  const ok = c.secrets.some((s) => new Nango({ secretKey: 'unused', webhookSigningKey: s }).verifyIncomingWebhookRequest(c.body, headers));
  return ok ? 'valid' : 'invalid_signature';
}
function request({ body = BODY, secret = SECRET, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'a sync webhook accepted by verifyIncomingWebhookRequest', secrets: [SECRET], ...request(), expect: 'valid', event_type: 'sync' },
  { name: 'rotation: the second configured signing key verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another signing key', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'nango',
  source: { kind: 'sdk', package: '@nangohq/node', registry: 'npm', version: '0.71.10',
    function: 'Nango#verifyIncomingWebhookRequest(body, headers)',
    url: 'https://nango.dev/docs/guides/platform/webhooks-from-nango' },
  facts: {
    title: 'Nango',
    docs: 'https://nango.dev/docs/guides/platform/webhooks-from-nango',
    scheme: 'X-Nango-Hmac-Sha256 = hex(HMAC-SHA256(environment webhook signing key, raw body)); the legacy X-Nango-Signature (plain SHA-256 of key + JSON) is not used',
    secret: "the environment's webhook signing key (Environment Settings; older environments sign with the secret key)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'webhooks from Nango carry no delivery ID; a retry resends the same payload',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'two retries with exponential backoff, 20 s timeout (changelog, November 27, 2025)',
    retry_source: 'https://nango.dev/docs/changelog/dev-updates',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
