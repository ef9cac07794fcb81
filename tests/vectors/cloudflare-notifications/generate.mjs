// Known-answer vectors for Cloudflare Notifications generic webhooks.
// Cloudflare signs nothing: "When you configure a webhook with a secret,
// Cloudflare includes this header [cf-webhook-auth] with your secret value in
// every request. Reject any requests where this header is missing or does not
// match your configured secret."
// (https://developers.cloudflare.com/notifications/reference/webhook-payload-schema/).
// The verdict is that comparison, as the docs describe it. Also writes the
// corpus captures (tests/captures/cloudflare-notifications/).
import crypto from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const DOCS = 'https://developers.cloudflare.com/notifications/reference/webhook-payload-schema/';
const SECRET = 'cf-notify-secret-5e8b2d7a9c1f4e63';
const OTHER = 'cf-notify-secret-0f1e2d3c4b5a6978';
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/cloudflare-notifications';
// The documented envelope (name, text, data, ts, account_id, policy_id,
// policy_name, alert_type, alert_correlation_id, alert_event), with the
// docs' origin health check example's alert type; values invented.
const alert = (ts, event, correlation, status) => JSON.stringify({
  name: 'Origin health', text: `Pool origin-pool-1 is ${status}`,
  data: { alert_name: 'Origin health', expected_codes: '200', health_check_id: 'a7b3c1e9f2d84c6e9b0a1d2c3e4f5a6b',
    name: 'origin-1', preview_error: '', status, time: new Date(ts * 1000).toISOString() },
  ts, account_id: '9035f53656c247e895c5a6939ae8a0e0', policy_id: '0e0f2d5a-9b8c-4d7e-a1f2-3b4c5d6e7f80', policy_name: 'Origin health',
  alert_type: 'health_check_status_notification', alert_correlation_id: correlation, alert_event: event,
});
const BODY = alert(NOW - 20, 'ALERT_STATE_EVENT_START', '000eaa907ed24e78946d3a93adb2ae57', 'Unhealthy');

function request({ secret = SECRET, body = BODY } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (secret !== null) headers.push(['cf-webhook-auth', secret]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
}
const cases = [
  { name: 'cf-webhook-auth matches the configured secret', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one byte of the secret changed', secrets: [SECRET], ...request({ secret: SECRET.slice(0, -1) + '4' }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'cf-webhook-auth removed', secrets: [SECRET], ...request({ secret: null }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
];
// The header value is the secret, compared as is.
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'cf-webhook-auth')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.includes(h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) {
  if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);
}

const out = {
  kind: 'cloudflare-notifications',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the webhook destination\'s secret sent verbatim in cf-webhook-auth, as documented', url: DOCS },
  facts: {
    title: 'Cloudflare Notifications',
    docs: DOCS,
    scheme: 'static header: cf-webhook-auth equals the secret set on the webhook destination; the body is not signed',
    secret: 'the Secret of the generic webhook destination (Notifications > Destinations), compared verbatim',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries no notification ID (alert_correlation_id groups the start and the end of one alert, policy_id names the policy), and ts differs per notification, so the body\'s SHA-256 is the ID: ' + DOCS,
    event_type: { json_pointer: '/alert_type' },
    retry_horizon: 'not documented: the default window',
    retry_source: 'https://developers.cloudflare.com/notifications/get-started/configure-webhooks/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// Corpus: an alert's start, the same delivery again, the same alert's end.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'cf-corpus-webhook-secret-7a1c3e5b';
const DIR = new URL('../../captures/cloudflare-notifications/', import.meta.url);
const CORR = '3f1e9a7c2b5d4e6f8a0b1c2d3e4f5a6b';
const START = alert(SENT - 600, 'ALERT_STATE_EVENT_START', CORR, 'Unhealthy');
const END = alert(SENT - 60, 'ALERT_STATE_EVENT_END', CORR, 'Healthy');
const shots = [
  ['0001-health-check-start.json', START, 'accepted', `an origin health check alert starts (alert_event ALERT_STATE_EVENT_START): ${DOCS}`],
  ['0002-health-check-start-again.json', START, 'duplicate', 'the same notification delivered again (the same body, whose SHA-256 is the ID)'],
  ['0003-health-check-end.json', END, 'accepted', 'the same alert ends (ALERT_STATE_EVENT_END, the same alert_correlation_id): another notification'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const headers = [['Content-Type', 'application/json'], ['cf-webhook-auth', CORPUS_SECRET]];
  const capture = { provider: 'cloudflare-notifications', kind: 'cloudflare-notifications', tenant: 'default', method: 'POST',
    path: '/webhooks/cloudflare-notifications', query: '', headers, body_base64: Buffer.from(body).toString('base64'),
    received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const sha = crypto.createHash('sha256').update(body).digest('hex');
  captures.push({ file: `cloudflare-notifications/${file}`, expect, events: [{ id: sha, type: JSON.parse(body).alert_type }], why });
}
const manifest = { route: 'cloudflare-notifications', kind: 'cloudflare-notifications', secrets: [CORPUS_SECRET],
  source: `nothing is signed: the cf-webhook-auth header carries the configured secret (${DOCS}): tests/vectors/cloudflare-notifications/generate.mjs`, captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`cloudflare-notifications: ${cases.length} cases, ${captures.length} captures`);
