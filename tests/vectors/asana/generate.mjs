// Known-answer vectors for Asana webhooks, checked by Asana's own example
// receiver, github.com/Asana/devrel-examples javascript/webhooks-nodejs/index.js:
// its handshake branch and its X-Hook-Signature check are copied below with
// only the Express objects replaced, and decide every verdict. Asana's SDKs
// have no webhook verifier.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

// What Asana sent in X-Hook-Secret during the handshake; the tenant's secret
// is this stored value, never typed in by hand.
const SECRET = 'b537207f20cbfa02357cf448134da559';
const OTHER = '0f9e8d7c6b5a49382716a5b4c3d2e1f0';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/asana';
const SIG_HEADER = 'X-Hook-Signature';
// The documented event shape: https://developers.asana.com/docs/webhooks-guide#receiving-events
// Compact JSON: the example hashes JSON.stringify(req.body), which equals the
// raw bytes only for such bodies.
const BODY = JSON.stringify({
  events: [{
    user: { gid: '1123', resource_type: 'user' },
    created_at: '2023-11-14T22:13:18.612Z',
    action: 'changed',
    resource: { gid: '1237', resource_type: 'task', resource_subtype: 'default_task' },
    parent: null,
    change: { field: 'assignee', action: 'changed' },
  }],
});

// --- Asana's example (index.js): the signature branch ---
function signatureMatches(X_HOOK_SECRET, signature, body) {
  const computedSignature = crypto
    .createHmac("SHA256", X_HOOK_SECRET)
    .update(JSON.stringify(body))
    .digest("hex");
  return crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(computedSignature));
}
// --- Asana's example (index.js): the handshake branch ---
function handshake(headers) {
  const newSecret = headers["x-hook-secret"];
  return { status: 200, headers: { "X-Hook-Secret": newSecret } };
}
// ---------------------------------------------------------

const sign = (secret, b) => crypto.createHmac('sha256', secret).update(b).digest('hex');
function request({ secret = SECRET, b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(secret, BODY)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const cases = [
  { name: 'valid X-Hook-Signature with the secret from the handshake', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: BODY.replace('"assignee"', '"assigned"') }), expect: 'invalid_signature' },
  { name: 'verified with another stored secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
].map((c) => ({ ...c, now: NOW }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  const sig = header(c, SIG_HEADER);
  // timingSafeEqual throws on a length mismatch: that too is a refusal.
  const ok = (s) => { try { return signatureMatches(s, sig, JSON.parse(c.body)); } catch { return false; } };
  const got = sig === undefined ? 'missing_signature' : c.secrets.some(ok) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: Asana's example says ${got}, the case says ${c.expect}`);
}

const hs = (secret) => ({ method: 'POST', url: URL, headers: [['X-Hook-Secret', secret]], body: '' });
const first = handshake({ 'x-hook-secret': SECRET });
const handshakes = [
  { name: 'handshake: X-Hook-Secret echoed in the answer and stored', secrets: [], verify_token: null, request: hs(SECRET), now: NOW,
    expect: { status: first.status, content_type: null, body: null, headers: [['X-Hook-Secret', first.headers['X-Hook-Secret']]] } },
  // hookline's rule (issue 11), not Asana's: the handshake proves nothing, so
  // a stored secret is not replaced until an operator re-arms the handshake.
  { name: 'second handshake while a secret is stored: refused (hookline, issue 11)', secrets: [SECRET], verify_token: null, request: hs(OTHER), now: NOW,
    expect: { status: 403, content_type: null, body: null, headers: [] } },
];

const DOCS = 'https://developers.asana.com/docs/webhooks-guide';
const out = {
  kind: 'asana',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: "Asana/devrel-examples javascript/webhooks-nodejs/index.js (Asana's example receiver), handshake and signature branches run unchanged",
    url: DOCS,
  },
  facts: {
    title: 'Asana',
    docs: DOCS,
    scheme: 'X-Hook-Signature = hex HMAC-SHA256(the X-Hook-Secret received in the handshake, raw body)',
    secret: 'not configured by hand: the X-Hook-Secret value Asana sent in the handshake, stored per provider and tenant',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a request batches events that carry no ID (user, created_at, action, resource, parent, change): ' + DOCS + '#receiving-events',
    event_type: { json_pointer: '/events/0/action' },
    retry_horizon: 'not confirmed here; use the default window',
    retry_source: DOCS,
    handshake: 'POST with X-Hook-Secret: S (no signature) answered 200 or 204 with X-Hook-Secret: S; S then keys X-Hook-Signature: ' + DOCS + '#the-webhook-handshake',
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`asana: ${cases.length} cases, ${handshakes.length} handshakes`);
