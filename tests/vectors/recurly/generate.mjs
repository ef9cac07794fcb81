// Known-answer vectors for Recurly, checked by the official Ruby client's
// Recurly::Webhooks.verify_signature (gem `recurly`, lib/recurly/webhooks.rb),
// run by `ruby -r recurly`. Recurly's npm and PyPI clients have no webhook
// verifier; its Ruby, Go, Java, .NET and PHP clients do. Each request is signed
// here and the Ruby verifier decides every verdict, with its clock fixed.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

const SECRET = 'recurly-test-webhook-key-0123456789abcdef';
const OTHER = 'recurly-other-webhook-key-9876543210zyxwvu';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/recurly';
const SIG_HEADER = 'recurly-signature';
const EVENT_ID = 'sqm8qkizrprn';
const EVENT_TYPE = 'created';
// The documented JSON webhook shape: https://recurly.com/developers/guides/webhooks.html
const BODY = JSON.stringify({
  id: EVENT_ID,
  object_type: 'subscription',
  site_id: 'ntl7fkt46xdv',
  event_type: 'created',
  event_time: '2023-11-14T22:13:15Z',
  uuid: '5f2b3c4d5e6f4a7b8c9d0e1f2a3b4c5d',
  account_code: 'acme-1042',
});

const RUBY = `
ms = Integer(ENV['NOW_MS'])
class << Time; alias_method :real_now, :now; end
Time.define_singleton_method(:now) { Time.at(ms / 1000.0) }
begin
  Recurly::Webhooks.verify_signature(ENV['HEADER'], secret: ENV['SECRET'], body: File.binread(ARGV[0]))
  puts 'valid'
rescue Recurly::Errors::SignatureVerificationError => e
  puts(e.message =~ /out of date/ ? 'timestamp_out_of_tolerance' : 'invalid_signature')
end
`;
function rubySays(body, headerValue, secret, nowMs) {
  fs.writeFileSync('.body.tmp', body);
  try {
    return execFileSync('ruby', ['-r', 'recurly', '-e', RUBY, '.body.tmp'], { env: { ...process.env, NOW_MS: String(nowMs), HEADER: headerValue, SECRET: secret } }).toString().trim();
  } finally {
    fs.unlinkSync('.body.tmp');
  }
}

const sig = (secret, ms) => crypto.createHmac('sha256', secret).update(`${ms}.${BODY}`).digest('hex');
function request({ at = NOW - 5, signWith = [SECRET], b = BODY, drop = false } = {}) {
  const ms = at * 1000 + 863;
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, [ms, ...signWith.map((s) => sig(s, ms))].join(',')]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace('"acme-1042"', '"acme-1043"');
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'recurly-signature removed', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'timestamp 301 s old', secrets: [SECRET], ...request({ at: NOW - 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'timestamp 301 s in the future', secrets: [SECRET], ...request({ at: NOW + 301 }), expect: 'timestamp_out_of_tolerance' },
  { name: 'two signatures during key rotation, the second matching', secrets: [SECRET], ...request({ signWith: [OTHER, SECRET] }), expect: 'valid' },
  { name: 'tenant holds the old and the new key', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, tolerance: 300, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

function verdict(c) {
  const h = c.headers.find(([k]) => k === SIG_HEADER)?.[1];
  if (h === undefined) return 'missing_signature'; // the caller's check: verify_signature takes the header's value
  const answers = c.secrets.map((s) => rubySays(c.body, h, s, c.now * 1000));
  return answers.includes('valid') ? 'valid' : answers.includes('timestamp_out_of_tolerance') ? 'timestamp_out_of_tolerance' : 'invalid_signature';
}
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the Ruby client says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'recurly',
  source: {
    kind: 'sdk', package: 'recurly (Ruby gem; lib/recurly/webhooks.rb)', registry: '', version: '4.x (recurly-client-ruby 5233e1b)',
    function: 'Recurly::Webhooks.verify_signature',
    url: 'https://docs.recurly.com/recurly-subscriptions/docs/signature-verification',
  },
  facts: {
    title: 'Recurly',
    docs: 'https://docs.recurly.com/recurly-subscriptions/docs/signature-verification',
    scheme: 'recurly-signature: "<unix ms>,<hex HMAC-SHA256(key, ms + "." + raw body)>[,<more>]"; one signature per active key, any may match',
    secret: "the webhook endpoint's secret key from the Webhook Endpoints page, used as UTF-8 bytes",
    timestamp: 'the first field of recurly-signature, unix MILLISECONDS, signed; SDK tolerance 5 minutes both directions',
    event_id: { json_pointer: '/id' },
    event_id_note: 'the notification ID, the same on each of its retries: https://recurly.com/developers/guides/webhooks.html',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'up to 10 retries, the x-th after 10 + x * 2^(x+5) seconds: about 73 hours in all',
    retry_source: 'https://docs.recurly.com/recurly-subscriptions/docs/automatic-retries',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`recurly: ${cases.length} cases`);
