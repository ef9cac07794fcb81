// Known-answer vectors for Snyk webhooks, from the docs' own verifySignature sample
// ("Validation and versioning of payloads",
// https://docs.snyk.io/snyk-api/how-to-use-snyk-webhooks-apis/validation-and-versioning-of-payloads),
// run unchanged below. No Snyk SDK on npm or PyPI verifies webhooks.
import { writeFileSync } from 'node:fs';
import * as crypto from 'crypto';
import { withIdentity } from '../identity.mjs';

// The docs' sample, verbatim. It hashes JSON.stringify(request.body), i.e. the parsed body
// re-serialized, which equals the raw body for the compact JSON Snyk sends.
function verifySignature(request, secret) {
  const hmac = crypto.createHmac('sha256', secret);
  const buffer = JSON.stringify(request.body);
  hmac.update(buffer, 'utf8');

  const signature = `sha256=${hmac.digest('hex')}`;

  return signature === request.headers['x-hub-signature'];
}

const NOW = 1700000000;
const SECRET = 'snyk-webhook-secret-5e3f8a1b9c2d4e6f';
const OTHER = 'snyk-other-secret-0a0b0c0d0e0f1a1b';
const HOOK_URL = 'https://hooks.example.com/webhooks/snyk/acme';
// A project_snapshot/v0 event: project, org, group, newIssues, removedIssues.
const BODY = JSON.stringify({
  project: { name: 'acme/payments-api:package.json', id: 'af137b96-6966-46c1-826b-2e79ac49bbd9', created: '2023-11-01T09:12:45.123Z', origin: 'github', type: 'npm', branch: 'main' },
  org: { name: 'acme', id: '689ce7f9-7943-4a71-b704-2ba575f01089', slug: 'acme' },
  group: { name: 'Acme Corp', id: '0c7c1a2b-3d4e-4f5a-8b9c-0d1e2f3a4b5c' },
  newIssues: [{ id: 'SNYK-JS-LODASH-567746', issueType: 'vuln', pkgName: 'lodash', pkgVersions: ['4.17.15'], issueData: { id: 'SNYK-JS-LODASH-567746', title: 'Prototype Pollution', severity: 'high' } }],
  removedIssues: [],
});
const TAMPERED = BODY.replace('"high"', '"higi"');

function verdict(c) {
  const request = { headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])), body: JSON.parse(c.body) };
  if (request.headers['x-hub-signature'] === undefined) return 'missing_signature';
  return c.secrets.some((s) => verifySignature(request, s)) ? 'valid' : 'invalid_signature';
}

const sign = (secret, body = BODY) => `sha256=${crypto.createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
const headersFor = (sig) => [['Content-Type', 'application/json'], ['X-Snyk-Event', 'project_snapshot/v0'], ['X-Snyk-Transport-ID', '4b1f3a9e-7d2c-4e8f-9a6b-5c0d1e2f3a4b'],
  ['X-Snyk-Timestamp', '2023-11-14T22:13:18Z'], ['User-Agent', 'Snyk-Webhooks/044aadd'], ['X-Hub-Signature', sig]];
const req = (sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'x-hub-signature') });
const sig = sign(SECRET);
const ok = { event_type: 'project_snapshot/v0' };
const cases = [
  { name: 'project_snapshot/v0 with X-Hub-Signature = "sha256=" + hex HMAC-SHA256, accepted by the docs\' verifySignature', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'X-Hub-Signature removed', secrets: [SECRET], ...strip(req(sig)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.snyk.io/snyk-api/how-to-use-snyk-webhooks-apis/validation-and-versioning-of-payloads';
const out = {
  kind: 'snyk',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' Node.js verifySignature(request, secret) sample', url: DOCS },
  facts: {
    title: 'Snyk',
    docs: 'https://docs.snyk.io/snyk-api-info/snyk-webhooks',
    scheme: 'X-Hub-Signature = "sha256=" + hex(HMAC-SHA256(webhook secret as UTF-8, body))',
    secret: 'the secret given when the webhook was created through the Snyk Webhooks API (POST /org/{orgId}/webhooks, "secret"), used verbatim as UTF-8 bytes',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'X-Snyk-Transport-ID is "a GUID to identify this delivery"; the docs reachable here do not say it survives retries, so the body hash is used: https://docs.snyk.io/snyk-api-info/snyk-webhooks',
    event_type: { header: 'X-Snyk-Event' },
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: 'https://docs.snyk.io/snyk-api-info/snyk-webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
