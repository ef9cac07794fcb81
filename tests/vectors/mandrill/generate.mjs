// Known-answer vectors for Mailchimp Transactional (Mandrill) webhooks, from
// the documentation's own PHP generateSignature sample ("How to Authenticate
// Webhook Requests", https://mailchimp.com/developer/transactional/guides/track-respond-activity-webhooks/#authenticating-webhook-requests),
// run by `php`. No Mailchimp Transactional SDK on npm or PyPI verifies webhooks.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { withIdentity } from '../identity.mjs';

const SECRET = 'Kx0TestMandrillWebhookKey_ab12';
const OTHER = 'Zq9OtherMandrillWebhookKey_cd3';
const NOW = 1700000000;
// Mandrill signs the URL exactly as configured, query string included.
const URL = 'https://hooks.example.com/webhooks/mandrill?tenant=acme';
const SIG_HEADER = 'X-Mandrill-Signature';
// A batch with one event, the documented shape:
// https://mailchimp.com/developer/transactional/docs/webhooks/#webhook-format
const EVENTS = JSON.stringify([{
  event: 'send',
  _id: 'a7a5f0e1b2c3d4e5f60718293a4b5c6d',
  ts: 1699999995,
  msg: { ts: 1699999990, subject: 'This an example webhook message', email: 'example.webhook@mandrillapp.com', sender: 'example.sender@mandrillapp.com', tags: ['webhook-example'], state: 'sent', _id: 'a7a5f0e1b2c3d4e5f60718293a4b5c6d' },
}]);

// The documentation's PHP sample, verbatim; the driver below feeds it the
// request's URL and POST variables and prints its signature.
const DOC_SAMPLE = `
function generateSignature($webhook_key, $url, $params) {
    $signed_data = $url;
    ksort($params);
    foreach ($params as $key => $value) {
        $signed_data .= $key;
        $signed_data .= $value;
    }

    return base64_encode(hash_hmac('sha1', $signed_data, $webhook_key, true));
}
`;
function docSignature(key, url, body) {
  fs.writeFileSync('.body.tmp', body);
  try {
    const php = `${DOC_SAMPLE} parse_str(file_get_contents($argv[1]), $params); echo generateSignature($argv[2], $argv[3], $params);`;
    return execFileSync('php', ['-r', php, '--', '.body.tmp', key, url]).toString();
  } finally {
    fs.unlinkSync('.body.tmp');
  }
}

const form = (events) => new URLSearchParams({ mandrill_events: events }).toString();
const BODY = form(EVENTS);
const sign = (secret, url) => crypto.createHmac('sha1', secret).update(url + 'mandrill_events' + EVENTS).digest('base64');
function request({ b = BODY, drop = false, signedUrl = URL } = {}) {
  const headers = [['Content-Type', 'application/x-www-form-urlencoded']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET, signedUrl)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const changed = form(EVENTS.replace('"sent"', '"senu"'));
const cases = [
  { name: 'valid signature over URL + sorted POST variables', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one character of mandrill_events changed', secrets: [SECRET], ...request({ b: changed }), expect: 'invalid_signature' },
  { name: 'verified with another webhook key', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Mandrill-Signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'signed for the URL without its query string', secrets: [SECRET], ...request({ signedUrl: 'https://hooks.example.com/webhooks/mandrill' }), expect: 'invalid_signature' },
  { name: 'tenant holds the old and the new key', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW }));

const verify = (c, secret) => docSignature(secret, c.url, c.body) === header(c, SIG_HEADER);
// The verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'mandrill',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'generateSignature (PHP sample)',
    url: 'https://mailchimp.com/developer/transactional/guides/track-respond-activity-webhooks/#authenticating-webhook-requests',
  },
  facts: {
    title: 'Mailchimp Transactional (Mandrill)',
    docs: 'https://mailchimp.com/developer/transactional/guides/track-respond-activity-webhooks/#authenticating-webhook-requests',
    scheme: 'X-Mandrill-Signature = base64 HMAC-SHA1(webhook key, webhook URL exactly as configured + each POST variable name and value, sorted by name, no delimiters)',
    secret: "the webhook's authentication key (Key column of the Webhooks page, or webhooks/info)",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a request batches up to 1000 events in mandrill_events, each with its own _id; the request itself has no ID: https://mailchimp.com/developer/transactional/docs/webhooks/',
    event_type: null,
    retry_horizon: 'not stated on the pages cited; use the default window',
    retry_source: 'https://mailchimp.com/developer/transactional/docs/webhooks/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`mandrill: ${cases.length} cases`);
