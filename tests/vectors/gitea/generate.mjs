// Known-answer vectors for Gitea webhooks (X-Gitea-Signature). Gitea publishes no verifier
// package; every verdict comes from the documentation's own PHP example, webhook.php here,
// byte for byte as in github.com/go-gitea/gitea docs/content/usage/webhooks.en-us.md at commit
// 6d4e92188b5f19bb3a2b0eb23e74b10d42521823 (https://docs.gitea.com/usage/webhooks), run with
// Debian's php-cli (apt-get install php-cli). prelude.php feeds it the request.
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const SAMPLE = readFileSync(join(here, 'webhook.php'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'gitea-vectors-'));

// The docs configure the webhook with "Secret: 123" and hard-code $secret_key = '123'. To judge
// another configured secret, that one line is given the other value (the step the docs leave to
// the reader); everything else runs as published.
function sampleSays(body, signature, secret) {
  const script = join(scratch, 'webhook.php');
  writeFileSync(script, SAMPLE.replace("$secret_key = '123';", `$secret_key = '${secret}';`));
  const env = { ...process.env, BODY: body };
  if (signature !== undefined) env.SIG = signature;
  return execFileSync('php', ['-d', `auto_prepend_file=${join(here, 'prelude.php')}`, script], { env }).toString().trim();
}

function docsVerdict(c) {
  const sig = c.headers.find(([k]) => k.toLowerCase() === 'x-gitea-signature')?.[1];
  const said = c.secrets.map((s) => sampleSays(c.body, sig, s));
  if (said.includes('ok')) return 'valid';
  if (said.every((s) => s === 'FAILED - header signature missing')) return 'missing_signature';
  if (said.every((s) => s === 'FAILED - payload signature')) return 'invalid_signature';
  throw new Error(`unexpected answers from the sample: ${said}`);
}

const NOW = 1700000000;
const SECRET = '123'; // the docs' own secret
const OTHER = '3gEsCfjlV2ugRwgpUw1WaWwa4NXgGmpCfkbG3';
const HOOK_URL = 'https://hooks.example.com/webhooks/gitea/acme';
const DELIVERY = 'f6266f16-1bf3-46a5-9ea4-602e06ead473';
// The docs' push event example, compact, without the deprecated "secret" field.
const BODY = JSON.stringify({ ref: 'refs/heads/develop', before: '28e1879d029cb852e4844d9c718537df08844e03', after: 'bffeb74224043ba2feb48d137756c8a9331c449a',
  compare_url: 'http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
  commits: [{ id: 'bffeb74224043ba2feb48d137756c8a9331c449a', message: 'Webhooks Yay!', url: 'http://localhost:3000/gitea/webhooks/commit/bffeb74224043ba2feb48d137756c8a9331c449a',
    author: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' }, committer: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
    timestamp: '2017-03-13T13:52:11-04:00' }],
  repository: { id: 140, name: 'webhooks', full_name: 'gitea/webhooks', private: false, fork: false, html_url: 'http://localhost:3000/gitea/webhooks', default_branch: 'master' },
  pusher: { id: 1, login: 'gitea', username: 'gitea' }, sender: { id: 1, login: 'gitea', username: 'gitea' } });
const TAMPERED = BODY.replace('Webhooks Yay!', 'Webhooks Yay?');

// Our signer, per the docs (hex HMAC-SHA256 of the body); the PHP sample is the judge.
const headersFor = (secret, body) => [['Content-Type', 'application/json'], ['X-Gitea-Delivery', DELIVERY], ['X-Gitea-Event', 'push'],
  ['X-Gitea-Signature', createHmac('sha256', secret).update(body).digest('hex')]];
const SIG_HEADERS = ['x-gitea-signature'];
const req = (secret, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_id: DELIVERY, event_type: 'push' };
const cases = [
  { name: 'the docs push event with the docs secret, accepted by the docs PHP example', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'X-Gitea-Signature removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs example says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'gitea',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'webhook.php example in go-gitea/gitea@6d4e921 docs/content/usage/webhooks.en-us.md, run with php-cli',
    url: 'https://docs.gitea.com/usage/webhooks' },
  facts: {
    title: 'Gitea',
    docs: 'https://docs.gitea.com/usage/webhooks',
    scheme: 'X-Gitea-Signature = hex(HMAC-SHA256(webhook secret, raw body)), no prefix',
    secret: "the webhook's Secret field (repository/organisation/system Settings > Webhooks), used as text",
    timestamp: null,
    event_id: { header: 'X-Gitea-Delivery' },
    event_id_note: 'X-Gitea-Delivery is a UUID per delivery (the docs\' example headers); Gitea also sends the same value as X-GitHub-Delivery and X-Gogs-Delivery',
    event_type: { header: 'X-Gitea-Event' },
    retry_horizon: 'the docs describe no automatic retries (deliveries can be replayed by hand from the settings page); keep the default window',
    retry_source: 'https://docs.gitea.com/usage/webhooks',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
