// Known-answer vectors for Typeform, from the documentation's own Ruby code
// sample (https://www.typeform.com/developers/webhooks/secure-your-webhooks/),
// run unchanged by `ruby` with the two Sinatra/Rack helpers it calls stubbed.
// Typeform publishes no SDK verifier. Each request is signed here and the doc's
// verify_signature decides every verdict; the script fails on a disagreement.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

const SECRET = 'typeform-test-secret-0123456789abcdef0123';
const OTHER = 'typeform-other-secret-9876543210fedcba987';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/typeform';
const SIG_HEADER = 'Typeform-Signature';
const EVENT_ID = 'LtWXD3crgy';
const EVENT_TYPE = 'form_response';
// The documented payload shape: https://www.typeform.com/developers/webhooks/example-payload/
const BODY = JSON.stringify({
  event_id: EVENT_ID,
  event_type: 'form_response',
  form_response: {
    form_id: 'lT4Z3j',
    token: 'a3a12ec67a1365927098a606107fac15',
    submitted_at: '2023-11-14T22:13:15Z',
    landed_at: '2023-11-14T22:12:00Z',
    definition: { id: 'lT4Z3j', title: 'Webhooks example', fields: [{ id: 'DlXFaesGBpoF', title: 'Thanks, {{answer_60906475}}! What did you think?', type: 'long_text', ref: 'readable_ref_long_text', properties: {} }] },
    answers: [{ type: 'text', text: 'It was great!', field: { id: 'DlXFaesGBpoF', type: 'long_text' } }],
  },
});
const FLIP_FROM = '"It was great!"';
const FLIP_TO = '"It was greaT!"';

// The documentation's Ruby sample, verbatim, plus stubs for `halt` (Sinatra)
// and Rack::Utils.secure_compare so it runs outside a web app.
const DOC_SAMPLE = `
def verify_signature(received_signature, payload_body)
  hash = OpenSSL::HMAC.digest(OpenSSL::Digest.new('sha256'), ENV['SECRET_TOKEN'], payload_body)
  actual_signature = 'sha256=' + Base64.strict_encode64(hash)
  return halt 500, "Signatures don't match!" unless Rack::Utils.secure_compare(actual_signature, received_signature)
end
`;
const RUBY = `
require 'openssl'
require 'base64'
module Rack; module Utils; def self.secure_compare(a, b) a.bytesize == b.bytesize && OpenSSL.fixed_length_secure_compare(a, b) end; end; end
def halt(status, message) raise message end
${DOC_SAMPLE}
payload_body = File.binread(ARGV[0])
begin
  verify_signature(ENV['RECEIVED'], payload_body)
  puts 'valid'
rescue RuntimeError
  puts 'invalid'
end
`;
fs.writeFileSync('.body.tmp', '');
function docSays(body, received, secret) {
  fs.writeFileSync('.body.tmp', body);
  return execFileSync('ruby', ['-e', RUBY, '.body.tmp'], { env: { ...process.env, SECRET_TOKEN: secret, RECEIVED: received } }).toString().trim() === 'valid';
}

const sign = (secret) => 'sha256=' + crypto.createHmac('sha256', secret).update(BODY).digest('base64');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => docSays(c.body, header(c, SIG_HEADER), secret);
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
fs.unlinkSync('.body.tmp');

const out = {
  kind: 'typeform',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'verify_signature (Ruby sample)',
    url: 'https://www.typeform.com/developers/webhooks/secure-your-webhooks/',
  },
  facts: {
    title: 'Typeform',
    docs: 'https://www.typeform.com/developers/webhooks/secure-your-webhooks/',
    scheme: 'Typeform-Signature = "sha256=" + base64 HMAC-SHA256(secret, raw body)',
    secret: "the webhook's secret, which the user sets (dashboard webhook settings or the Webhooks API), used as UTF-8 bytes",
    timestamp: null,
    event_id: { json_pointer: '/event_id' },
    event_id_note: 'event_id identifies the event and is re-sent unchanged on retries: https://www.typeform.com/developers/webhooks/example-payload/',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'not stated on the pages cited; use the default window',
    retry_source: 'https://www.typeform.com/developers/webhooks/',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`typeform: ${cases.length} cases`);
