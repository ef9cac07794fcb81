// Known-answer vectors for Hygraph signed webhooks, signed by the official
// @hygraph/utils generateWebhookSignature and checked by its verifyWebhookSignature.
import { writeFileSync } from 'node:fs';
import hygraph from '@hygraph/utils';
import { withIdentity } from '../identity.mjs';

const { generateWebhookSignature, verifyWebhookSignature } = hygraph;
const NOW = 1700000000;
const SECRET = 'rCNwyiloY3oJYYkxgpBXaleIiUv5MYlx'; // the README's example secret
const OTHER = 'Qm9ndXNTZWNyZXRGb3JWZWN0b3JzMTIz';
const HOOK_URL = 'https://hooks.example.com/webhooks/hygraph/acme';
// A content webhook: the operation and the entry's data (with its __typename and stage).
const BODY = JSON.stringify({
  operation: 'publish',
  data: { __typename: 'Post', id: 'clp0xqz1k0001m80f5n7s9d2x', stage: 'PUBLISHED', title: 'Hello world', slug: 'hello-world',
    updatedAt: '2023-11-14T22:13:18.000Z', publishedAt: '2023-11-14T22:13:18.000Z' },
});
const TAMPERED = BODY.replace('Hello world', 'Hello World');

function headersFor(secret, body, tsMs, env = 'master') {
  const realNow = Date.now;
  Date.now = () => tsMs; // generateWebhookSignature stamps the current time
  try {
    return [['Content-Type', 'application/json'], ['gcms-signature', generateWebhookSignature({ rawPayload: body, secret, environmentName: env })]];
  } finally {
    Date.now = realNow;
  }
}
const SIG_HEADERS = ['gcms-signature'];

function sdkVerdict(c) {
  const signature = c.headers.find(([k]) => k.toLowerCase() === 'gcms-signature')?.[1];
  if (!signature) return 'missing_signature';
  const ok = c.secrets.some((secret) => verifyWebhookSignature({ rawPayload: c.body, signature, secret }));
  return ok ? 'valid' : 'invalid_signature';
}

const req = (secret, tsMs, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body, tsMs), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW * 1000 - 1500;
const cases = [
  { name: 'a publish webhook signed by generateWebhookSignature', secrets: [SECRET], ...req(SECRET, ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET, ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'the env= field of gcms-signature changed after signing', secrets: [SECRET], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'gcms-signature removed', secrets: [SECRET], ...strip(req(SECRET, ts)), expect: 'missing_signature' },
  { name: 't= 301 seconds old', secrets: [SECRET], ...req(SECRET, NOW * 1000 - 301000), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
  { name: 't= 301 seconds in the future', secrets: [SECRET], ...req(SECRET, NOW * 1000 + 301000), expect: 'timestamp_out_of_tolerance', sdk: 'valid' },
];
cases[3].headers = cases[3].headers.map(([k, v]) => [k, v.replace('env=master', 'env=staging')]);
for (const c of cases) {
  const got = sdkVerdict(c);
  // verifyWebhookSignature never looks at the time: the stale and future cases must pass on signature.
  const want = c.sdk ?? c.expect;
  if (got !== want) throw new Error(`${c.name}: SDK says ${got}, case expects ${want}`);
  delete c.sdk;
}

const out = {
  kind: 'hygraph',
  source: { kind: 'sdk', package: '@hygraph/utils', registry: 'npm', version: '1.2.1',
    function: 'generateWebhookSignature / verifyWebhookSignature', url: 'https://hygraph.com/docs/api-reference/basics/webhooks' },
  facts: {
    title: 'Hygraph',
    docs: 'https://hygraph.com/docs/api-reference/basics/webhooks',
    scheme: 'gcms-signature = "sign=<s>, env=<environment>, t=<unix ms>"; s = base64(HMAC-SHA256(secret, JSON.stringify({"Body": raw body as a JSON string, "EnvironmentName": env, "TimeStamp": t})))',
    secret: "the webhook's secret key as entered/shown in the webhook settings (Project settings > Webhooks), used as UTF-8 text",
    timestamp: 't= inside gcms-signature, unix milliseconds, signed; the SDK does not check it, no tolerance is documented',
    event_id: { body_sha256: true },
    event_id_note: 'the body is the operation and the entry; no delivery ID is documented',
    event_type: { json_pointer: '/operation' },
    retry_horizon: 'the pages consulted give no retry schedule; keep the default window',
    retry_source: 'https://hygraph.com/docs/api-reference/basics/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
