// Known-answer vectors for Ansa webhooks. "Our webhook partner, Svix, offers
// libraries that make verifying webhooks very simple"
// (https://docs.ansa.dev/docs/signature-verification): Svix's headers, which
// its library reads as svix-* or unbranded webhook-*. Signed with svix 2.5.0
// Webhook.sign and every verdict is its Webhook.verify. Also writes Ansa's
// corpus captures (tests/captures/ansa/), signed and checked the same way.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Webhook } from 'svix';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/ansa';
const MSG_ID = 'msg_2bXansaQe3LmT7vR1pN4sY8wZq';
// The documented autoreload.success sample (https://docs.ansa.dev/docs/webhooks).
const autoreload = (id, txn, balance) => JSON.stringify({
  customer_id: '811233AE-ED61-4C52-A729-754B7396D0A3',
  data: { current_balance: { amount: balance, currency: 'usd' }, event_created_timestamp: '2023-08-01T12:34:56.123Z',
    reload_amount: 500, transaction_id: txn },
  error: null, id, merchant_id: 'E3C103D6-2BD2-4E30-9B1F-D6EF4E5699B4', type: 'autoreload.success', version: 'v2',
});
const BODY = autoreload('EAF61643-5B8D-4E8C-84B6-60D29D4CCA27', '46B5C79C-84AE-4175-8AFD-0A6D0AF7368F', 2000);
const TAMPERED = BODY.replace('2000', '9000');

const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], ['svix-id', id], ['svix-timestamp', String(ts)], ['svix-signature', sigs.join(' ')]];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // the verifier reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        new Webhook(s).verify(c.body, Object.fromEntries(c.headers));
        return 'valid';
      } catch (e) {
        if (e.message === 'Missing required headers') return 'missing_signature';
        if (/timestamp too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (e.message !== 'No matching signature found') throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(MSG_ID, sigs, ts), body, now: NOW, tolerance: 300 });
const unbranded = (r) => ({ ...r, headers: r.headers.map(([k, v]) => [k.replace(/^svix-/, 'webhook-'), v]) });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'svix-signature') });
const ts = NOW - 2;
const cases = [
  { name: 'autoreload.success signed by Webhook.sign, accepted by Webhook.verify', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'the same request under the unbranded webhook-id / webhook-timestamp / webhook-signature names', secrets: [SECRET], ...unbranded(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'valid' },
  { name: 'rotation: svix-signature carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [SECRET], ...req([sign(OLD, MSG_ID, ts, BODY), sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.ansa.dev/docs/signature-verification';
const out = {
  kind: 'ansa',
  source: { kind: 'sdk', package: 'svix', registry: 'npm', version: '2.5.0',
    function: 'Webhook.sign / Webhook.verify (the Svix library Ansa\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Ansa',
    docs: DOCS,
    scheme: 'Svix: svix-signature (or webhook-signature) = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, id + "." + timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s signing secret (Merchant Portal > webhooks settings > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp / webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: ['svix-id', 'webhook-id'] },
    event_id_note: 'the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const SENT = Date.parse('2026-01-01T00:00:00Z') / 1000;
const CORPUS_SECRET = 'whsec_YW5zYS1jb3JwdXMtc2lnbmluZy1zZWNyZXQtMDE=';
const DIR = new URL('../../captures/ansa/', import.meta.url);
const ID1 = 'msg_2cA1ansaCorpus0001xYzWqR';
const ID2 = 'msg_2cA1ansaCorpus0002pQrStU';
const BODY2 = autoreload('1F0C2B7E-9A3D-4E51-B6C8-2D4E6F8A0B1C', '5A6B7C8D-9E0F-4A1B-8C2D-3E4F5A6B7C8D', 1500);
const shots = [
  ['0001-autoreload-success.json', ID1, SENT - 20, BODY, 'accepted', 'an autoreload.success webhook: https://docs.ansa.dev/docs/webhooks'],
  ['0002-autoreload-success-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
  ['0003-autoreload-success-other.json', ID2, SENT, BODY2, 'accepted', 'another autoreload.success under its own message ID'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, id, at, body, expect, why] of shots) {
  const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
  if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
  const capture = { provider: 'ansa', kind: 'ansa', tenant: 'default', method: 'POST', path: '/webhooks/ansa', query: '',
    headers, body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `ansa/${file}`, expect, events: [{ id, type: JSON.parse(body).type }], why });
}
const manifest = { route: 'ansa', kind: 'ansa', secrets: [CORPUS_SECRET],
  source: 'signed by svix 2.5.0 Webhook.sign and checked by its Webhook.verify: tests/vectors/ansa/generate.mjs', captures };
writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
console.log(`ansa: ${cases.length} cases, ${captures.length} captures`);
