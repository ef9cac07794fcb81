// Known-answer vectors for Sentry integration-platform webhooks, from the
// documentation's own Node.js sample (verifySignature) on
// https://docs.sentry.io/organization/integrations/integration-platform/webhooks/#verifying-the-signature,
// run unchanged. Sentry publishes no SDK verifier. Each request is signed here
// and the doc's function decides every verdict.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';
const require = createRequire(import.meta.url);

const SECRET = '633c49554d0841fa99481e6cfb86d44051696d5ac85041948da17c7fb4219e01';
const OTHER = '096a2843571d49009b665f986852847cba1900ad938048a29dfba4b639ea63ac';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/sentry';
const SIG_HEADER = 'Sentry-Hook-Signature';
const EVENT_TYPE = 'issue';
// The documented issue webhook shape: https://docs.sentry.io/organization/integrations/integration-platform/webhooks/issues/
// Compact, ASCII-only JSON, as Sentry serialises it (NOTES.md).
const BODY = JSON.stringify({
  action: 'created',
  installation: { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' },
  data: { issue: { id: '1170820242', shortId: 'NODE-EXPRESS-2', title: 'Error: Unexpected token', culprit: 'app/routes/index.js', level: 'error', status: 'unresolved', project: { id: '1', name: 'node-express', slug: 'node-express' }, firstSeen: '2023-11-14T22:13:10.000000Z' } },
  actor: { type: 'application', id: 'sentry', name: 'Sentry' },
});

// --- the documentation's sample, verbatim ---------------------------------
const crypto = require("crypto");

function verifySignature(request, secret = "") {
  const hmac = crypto.createHmac("sha256", secret);
  hmac.update(JSON.stringify(request.body), "utf8");
  const digest = hmac.digest("hex");
  return digest === request.headers["sentry-hook-signature"];
}
// ---------------------------------------------------------------------------

const sign = (secret) => crypto.createHmac('sha256', secret).update(BODY, 'utf8').digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [
    ['Content-Type', 'application/json'],
    ['Request-ID', '7a0f1a8e-3c1d-4f62-9d0e-5b2c6a1e4f37'],
    ['Sentry-Hook-Resource', 'issue'],
    ['Sentry-Hook-Timestamp', String(NOW - 5)],
  ];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const FLIP_FROM = '"NODE-EXPRESS-2"';
const FLIP_TO = '"NODE-EXPRESS-3"';
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

// The doc's function takes an Express request: a parsed body and lower-case headers.
const verify = (c, secret) => {
  if (JSON.stringify(JSON.parse(c.body)) !== c.body) throw new Error('body is not in the form the sample re-serialises');
  return verifySignature({ body: JSON.parse(c.body), headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])) }, secret);
};
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
  kind: 'sentry',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'verifySignature (Node.js sample)',
    url: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/#verifying-the-signature',
  },
  facts: {
    title: 'Sentry (integration platform)',
    docs: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/',
    scheme: 'Sentry-Hook-Signature = hex HMAC-SHA256(client secret, raw body)',
    secret: "the integration's Client Secret (Settings > Developer Settings > the integration), used as UTF-8 bytes",
    timestamp: 'Sentry-Hook-Timestamp is sent but NOT signed, so it proves nothing; no tolerance applies',
    event_id: { body_sha256: true },
    event_id_note: 'Request-ID identifies the request; the docs do not say it is kept on retries, so the body hash is used: https://docs.sentry.io/organization/integrations/integration-platform/webhooks/',
    event_type: { header: 'Sentry-Hook-Resource' },
    retry_horizon: 'not stated; use the default window',
    retry_source: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`sentry: ${cases.length} cases`);
