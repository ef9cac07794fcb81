// Known-answer vectors for Buildkite webhook signatures (X-Buildkite-Signature). Buildkite
// publishes no verifier package; every verdict comes from the documentation's own Ruby sample,
// run unchanged with Debian's ruby and ruby-rack (apt-get install ruby ruby-rack).
// Sample: https://buildkite.com/docs/apis/webhooks/pipelines#webhook-signature, source file
// pages/apis/webhooks/_verifying_hmac_signatures.md in github.com/buildkite/docs at commit
// fd5193822f2bcc9175d9ec29f5da5b68b7400ca6.
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const DOCS_SAMPLE = `require 'openssl'

class BuildkiteWebhook
  def self.valid?(webhook_request_body, header, secret)
    timestamp, signature = get_timestamp_and_signatures(header)
    expected = OpenSSL::HMAC.hexdigest("sha256", secret, "#{timestamp}.#{webhook_request_body}")
    Rack::Utils.secure_compare(expected, signature)
  end

  def self.get_timestamp_and_signatures(header)
    parts = header.split(",").map { |kv| kv.split("=", 2).map(&:strip) }.to_h
    [parts["timestamp"], parts["signature"]]
  end
end

BuildkiteWebhook.valid?(
  request.body.read,
  request.headers["X-Buildkite-Signature"],
  ENV["BUILDKITE_WEBHOOK_SECRET"]
)`;

// The sample expects a Rack-style \`request\` and the secret in ENV; the prelude provides both
// from stdin, then prints the sample's value.
const PRELUDE = `require 'json'; require 'stringio'; require 'rack/utils'
INPUT = JSON.parse(STDIN.read)
ENV["BUILDKITE_WEBHOOK_SECRET"] = INPUT["secret"]
Request = Struct.new(:body, :headers)
def request; Request.new(StringIO.new(INPUT["body"]), INPUT["headers"]); end
`;
function docsAccepts(body, headers, secret) {
  const program = `${PRELUDE}\nresult = begin\n${DOCS_SAMPLE}\nend\nputs(result ? "valid" : "invalid")\n`;
  return execFileSync('ruby', ['-e', program], { input: JSON.stringify({ body, headers, secret }) }).toString().trim() === 'valid';
}

const NOW = 1700000000;
const SECRET = '309c9c842f8565adec5d7469a6005989';
const OTHER = '7b1e0c9d4a3f2e8b6c5d4e3f2a1b0c9d';
const HOOK_URL = 'https://hooks.example.com/webhooks/buildkite/acme';
// A build.finished event as the build events page shows it (trimmed).
const BODY = JSON.stringify({ event: 'build.finished',
  build: { id: '01890e2c-3a4b-4c5d-8e9f-0a1b2c3d4e5f', number: 1042, state: 'passed', branch: 'main', commit: 'a65572555600c07c7ee79a2bd5bea6b1b7bee7d6',
    created_at: '2023-11-14T22:10:00.000Z', started_at: '2023-11-14T22:10:05.000Z', finished_at: '2023-11-14T22:13:15.000Z' },
  pipeline: { id: '01890e2c-1111-4c5d-8e9f-0a1b2c3d4e5f', slug: 'my-pipeline', name: 'My pipeline' },
  sender: { id: '01890e2c-2222-4c5d-8e9f-0a1b2c3d4e5f', name: 'Some Person' } });
const TAMPERED = BODY.replace('"state":"passed"', '"state":"failed"');

// Our signer, per the docs' description; the Ruby sample is the judge.
const sign = (secret, body, ts) => `timestamp=${ts},signature=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
const headersFor = (secret, body, ts) => [['Content-Type', 'application/json'], ['X-Buildkite-Event', 'build.finished'], ['X-Buildkite-Signature', sign(secret, body, ts)]];
const SIG_HEADERS = ['x-buildkite-signature'];

// The sample checks the signature only; the docs tell receivers to check the timestamp too
// ("only accept them within a short window (for example, 5 minutes)"), which hookline does.
function docsVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k, v]));
  const header = c.headers.find(([k]) => k.toLowerCase() === 'x-buildkite-signature')?.[1];
  if (!header) return 'missing_signature';
  if (!c.secrets.some((s) => docsAccepts(c.body, headers, s))) return 'invalid_signature';
  const ts = Number(/timestamp=(\d+)/.exec(header)[1]);
  return Math.abs(c.now - ts) > c.tolerance ? 'timestamp_out_of_tolerance' : 'valid';
}

const req = (secret, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(secret, body, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW - 2;
const ok = { event_type: 'build.finished' };
const cases = [
  { name: 'build.finished signed per the docs, accepted by the docs Ruby sample', secrets: [SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured token verifies', secrets: [OTHER, SECRET], ...req(SECRET, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(SECRET, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another webhook token', secrets: [OTHER], ...req(SECRET, ts), expect: 'invalid_signature' },
  { name: 'X-Buildkite-Signature removed', secrets: [SECRET], ...strip(req(SECRET, ts)), expect: 'missing_signature' },
  { name: 'timestamp 301 seconds old', secrets: [SECRET], ...req(SECRET, NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 seconds in the future', secrets: [SECRET], ...req(SECRET, NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs sample says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'buildkite',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'BuildkiteWebhook.valid? (Ruby sample in buildkite/docs@fd51938 pages/apis/webhooks/_verifying_hmac_signatures.md)',
    url: 'https://buildkite.com/docs/apis/webhooks/pipelines#webhook-signature' },
  facts: {
    title: 'Buildkite',
    docs: 'https://buildkite.com/docs/apis/webhooks/pipelines#webhook-signature',
    scheme: 'X-Buildkite-Signature = "timestamp=<unix s>,signature=<hex(HMAC-SHA256(webhook token, timestamp + \\".\\" + raw body))>"',
    secret: 'the webhook token shown under Token in the pipeline\'s Webhook Notification service (with "Signature" selected as the token setting)',
    timestamp: 'timestamp= inside X-Buildkite-Signature, unix seconds, signed; docs suggest accepting a short window, e.g. 5 minutes',
    event_id: { body_sha256: true },
    event_id_note: 'Buildkite sends no delivery ID; the body carries the build (build.id) and the event name, so an identical body is the same notification',
    event_type: { header: 'X-Buildkite-Event' },
    retry_horizon: 'the docs describe no retries; keep the default window',
    retry_source: 'https://buildkite.com/docs/apis/webhooks/pipelines',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
