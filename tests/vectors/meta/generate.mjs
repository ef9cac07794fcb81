// Known-answer vectors for Meta webhooks (Facebook, Instagram, WhatsApp,
// Threads), checked by Meta's own sample server, github.com/fbsamples/graph-api-webhooks-samples
// (typescript-server): its X-Hub signature check (src/utils/validate-x-hub.ts)
// and its verification-request handler (src/routes/subscribe.ts) are copied
// below with only the framework objects replaced, and decide every verdict.
// Meta's SDKs have no webhook verifier.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const SECRET = '6f1c3b2a9d8e7f60a1b2c3d4e5f60718';      // the shape of an App Secret
const OTHER = '0a9b8c7d6e5f40312a2b3c4d5e6f7081';
const VERIFY_TOKEN = 'hookline-meta-verify-token';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/meta';
const SIG_HEADER = 'X-Hub-Signature-256';
// A WhatsApp Business message notification, the documented shape:
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples
const BODY = JSON.stringify({
  object: 'whatsapp_business_account',
  entry: [{
    id: '102290129340398',
    changes: [{
      value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
        contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
        messages: [{ from: '16505551234', id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=', timestamp: '1699999997', text: { body: 'Does it come in another color?' }, type: 'text' }],
      },
      field: 'messages',
    }],
  }],
});
const EVENT_TYPE = 'whatsapp_business_account';

// --- Meta's sample, src/utils/validate-x-hub.ts (header and secret passed in) ---
function xhub(header, secret, body) {
    if (!header) {
        return false;
    }
    const [algorithm, sign] = header.split('=');
    const hash = crypto.createHmac(algorithm, secret).update(body).digest('hex');
    if (sign !== hash) {
        return false;
    }
    return true;
}
// --- Meta's sample, src/routes/subscribe.ts (query and token passed in) ---
function subscribe(query, TOKEN) {
    const mode = query['hub.mode'];
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    if (mode === 'subscribe' && token === TOKEN) {
        return { status: 200, body: challenge };
    } else {
        return { status: 403, body: 'Failed to verify webhook' };
    }
}
// ---------------------------------------------------------------------------------

const hex = (alg, secret, b) => crypto.createHmac(alg, secret).update(b).digest('hex');
function request({ secret = SECRET, b = BODY, drop = false } = {}) {
  // Meta sends both headers: the SHA-1 one is kept for old receivers.
  const headers = [['Content-Type', 'application/json'], ['X-Hub-Signature', 'sha1=' + hex('sha1', secret, BODY)]];
  if (!drop) headers.push([SIG_HEADER, 'sha256=' + hex('sha256', secret, BODY)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const cases = [
  { name: 'valid X-Hub-Signature-256', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('another color', 'another colos') }), expect: 'invalid_signature' },
  { name: 'verified with another app secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: 'X-Hub-Signature-256 removed (the SHA-1 header alone is not enough)', secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new app secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_type: EVENT_TYPE } : {}) }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  const sig = header(c, SIG_HEADER);
  const got = sig === undefined ? 'missing_signature' : c.secrets.some((s) => xhub(sig, s, Buffer.from(c.body))) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: Meta's sample says ${got}, the case says ${c.expect}`);
}

// Verification request: GET ?hub.mode=subscribe&hub.challenge=&hub.verify_token=
const CHALLENGE = '1158201444';
const verification = (token, mode = 'subscribe') => {
  const q = new URLSearchParams({ 'hub.mode': mode, 'hub.challenge': CHALLENGE, 'hub.verify_token': token });
  return { method: 'GET', url: `${URL}?${q}`, headers: [], body: '' };
};
const handshakes = [
  { name: 'verification request with the right verify token: the challenge echoed', request: verification(VERIFY_TOKEN) },
  { name: 'verification request with a wrong verify token: 403', request: verification('someone-elses-token') },
  { name: 'hub.mode other than subscribe: 403', request: verification(VERIFY_TOKEN, 'unsubscribe') },
].map((h) => {
  const query = Object.fromEntries(new globalThis.URL(h.request.url).searchParams);
  const a = subscribe(query, VERIFY_TOKEN);
  // The refusal text is the sample's own; only its status is the contract.
  const expect = a.status === 200
    ? { status: 200, content_type: 'text/plain', body: a.body, headers: [] }
    : { status: a.status, content_type: null, body: null, headers: [] };
  return { name: h.name, secrets: [SECRET], verify_token: VERIFY_TOKEN, request: h.request, now: NOW, expect };
});
if (handshakes[0].expect.body !== CHALLENGE || handshakes[1].expect.status !== 403) throw new Error('unexpected handshake answers');

const DOCS = 'https://developers.facebook.com/docs/graph-api/webhooks/getting-started';
const out = {
  kind: 'meta',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: "fbsamples/graph-api-webhooks-samples typescript-server: xhub() and the subscribe handler (Meta's sample), run unchanged",
    url: DOCS,
  },
  facts: {
    title: 'Meta (Facebook, Instagram, WhatsApp, Threads)',
    docs: DOCS,
    scheme: 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)> (X-Hub-Signature: sha1=<hex HMAC-SHA1> is sent too)',
    secret: "the app's App Secret from the App Dashboard (Settings > Basic), used as UTF-8 bytes; the verify token is a separate string the tenant chooses",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'notifications batch entries (object, entry[].id, entry[].time, changes/messaging) and carry no delivery ID: ' + DOCS + '#event-notifications',
    event_type: { json_pointer: '/object' },
    retry_horizon: 'retried immediately a few times, then with decreasing frequency over 36 hours',
    retry_source: DOCS + '#event-notifications',
    handshake: 'verification request: GET ?hub.mode=subscribe&hub.challenge=C&hub.verify_token=T answered 200 with body C when T is the tenant\'s verify_token, 403 otherwise: ' + DOCS + '#verification-requests',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`meta: ${cases.length} cases, ${handshakes.length} handshakes`);
