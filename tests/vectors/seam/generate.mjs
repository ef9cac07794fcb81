// Known-answer vectors for Seam webhooks (delivered through Svix): every verdict
// is the official @seamapi/webhook SeamWebhook.verify's; the requests are signed
// with svix's Webhook.sign, the library SeamWebhook wraps (its dependency).
import { writeFileSync } from 'node:fs';
import { SeamWebhook } from '@seamapi/webhook';
import { Webhook } from 'svix';

const NOW = 1700000000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const HOOK_URL = 'https://hooks.example.com/webhooks/seam/acme';
const MSG_ID = 'msg_2bXq7Lw1Yk9Zp3Vn5Rt8Hs4Fg6A';
// A device.connected event as Seam documents its events: event_id, event_type, workspace_id, timestamps, the object.
const BODY = JSON.stringify({
  event_id: '8f3b9a2e-7c41-4d5e-9a0b-1c2d3e4f5a6b',
  event_type: 'device.connected',
  workspace_id: '4d2b1a9c-3e5f-4a6b-8c7d-9e0f1a2b3c4d',
  device_id: 'a83690b2-2b70-409a-9a94-426699b84c97',
  connected_account_id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  created_at: '2023-11-14T22:13:18.000Z',
  occurred_at: '2023-11-14T22:13:17.512Z',
});
const TAMPERED = BODY.replace('device.connected', 'device.connectex');

const sign = (secret, ts, body) => new Webhook(secret).sign(MSG_ID, new Date(ts * 1000), body);
const headersFor = (sigs, ts) => [['Content-Type', 'application/json'], ['svix-id', MSG_ID], ['svix-timestamp', String(ts)], ['svix-signature', sigs.join(' ')]];
const SIG_HEADERS = ['svix-signature'];

function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // svix reads the clock itself
  try {
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        new SeamWebhook(s).verify(c.body, Object.fromEntries(c.headers));
        return 'valid';
      } catch (e) {
        if (/Missing required headers/.test(e.message)) return 'missing_signature';
        if (/timestamp too (old|new)/i.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/No matching signature/.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ts = NOW - 2;
const ok = { event_id: MSG_ID, event_type: 'device.connected' };
const cases = [
  { name: 'device.connected signed by svix, accepted by SeamWebhook.verify', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: "rotation: svix-signature carries the old and the new secret's signatures, the tenant holds only the new", secrets: [SECRET], ...req([sign(OLD, ts, BODY), sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, ts, BODY)], ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: 'svix-signature removed', secrets: [SECRET], ...strip(req([sign(SECRET, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: 'svix-timestamp 301 seconds old', secrets: [SECRET], ...req([sign(SECRET, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: 'svix-timestamp 301 seconds in the future', secrets: [SECRET], ...req([sign(SECRET, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'seam',
  source: { kind: 'sdk', package: '@seamapi/webhook', registry: 'npm', version: '1.2.0',
    function: 'SeamWebhook#verify; signed with svix 1.99.1 Webhook#sign, its dependency',
    url: 'https://docs.seam.co/latest/developer-tools/webhooks' },
  facts: {
    title: 'Seam',
    docs: 'https://docs.seam.co/latest/developer-tools/webhooks',
    scheme: 'Svix / Standard Webhooks: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: "the webhook's signing secret from Seam Console or the API, \"whsec_\" + base64; the HMAC key is the base64-decoded part",
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the message ID, the same on every retry of the message: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
