// Known-answer vectors for Front rule webhooks, from the documentation's own
// Node.js sample (validateFrontSignature) on
// https://dev.frontapp.com/docs/rule-webhooks, run unchanged but for the
// secret, which the sample reads from a constant. Front publishes no SDK
// verifier. Each request is signed here and the doc's function decides
// every verdict.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';
const require = createRequire(import.meta.url);

let apiSecretForCase = '';
function docSample() {
// --- the documentation's sample, verbatim (apiSecret set per case) --------
const crypto = require('crypto');
const apiSecret = apiSecretForCase;

function validateFrontSignature(data, signature) {
    var hash = crypto.createHmac('sha1', apiSecret)
                     .update(JSON.stringify(data))
                     .digest('base64');

   return crypto.timingSafeEqual(Buffer.from(hash), Buffer.from(signature));
}
// ---------------------------------------------------------------------------
return validateFrontSignature;
}

const crypto = require('crypto');
const SECRET = 'f1d2c3b4a5968778695a4b3c2d1e0f1a';
const OTHER = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/front';
const SIG = 'X-Front-Signature';
// A rule webhook's event preview (https://dev.frontapp.com/reference/events):
// compact ASCII JSON, which JSON.stringify(JSON.parse(body)) gives back unchanged.
const BODY = JSON.stringify({
  _links: { self: 'https://yourCompany.api.frontapp.com/events/evt_55c8c149' },
  id: 'evt_55c8c149',
  type: 'inbound',
  emitted_at: 1699999995.123,
  conversation: { _links: { self: 'https://yourCompany.api.frontapp.com/conversations/cnv_55c8c149' }, id: 'cnv_55c8c149', subject: 'Order 1042 never arrived', status: 'unassigned' },
  source: { _meta: { type: 'inboxes' }, data: [{ id: 'inb_55c8c149', name: 'Support' }] },
  target: { _meta: { type: 'message' }, data: { id: 'msg_55c8c149', type: 'email', is_inbound: true, blurb: 'Hello' } },
});
const sign = (secret, body) => crypto.createHmac('sha1', secret).update(body, 'utf8').digest('base64');
function request({ secret = SECRET, body = BODY, sigBody = body, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG, sign(secret, sigBody)]);
  return { method: 'POST', url: URL, headers, body };
}
const flip = (b) => b.replace('"Order 1042 never arrived"', '"Order 1043 never arrived"');
const TYPE = 'inbound';
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid', event_type: TYPE },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ body: flip(BODY), sigBody: BODY }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid', event_type: TYPE },
].map((c) => ({ ...c, now: NOW }));

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
for (const c of cases) {
  if (JSON.stringify(JSON.parse(c.body)) !== c.body) throw new Error('body is not in the form the sample re-serialises');
  const sig = header(c, SIG);
  let v = 'missing_signature';
  if (sig !== undefined) {
    v = 'invalid_signature';
    for (const s of c.secrets) {
      apiSecretForCase = s;
      const f = docSample();
      // timingSafeEqual throws on unequal lengths: a refusal.
      let ok = false;
      try { ok = f(JSON.parse(c.body), sig); } catch { ok = false; }
      if (ok) v = 'valid';
    }
  }
  if (v !== c.expect) throw new Error(`${c.name}: the doc's function says ${v}, the case says ${c.expect}`);
}

const out = {
  kind: 'frontapp',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'validateFrontSignature (Node.js sample, rule webhooks)',
    url: 'https://dev.frontapp.com/docs/rule-webhooks',
  },
  facts: {
    title: 'Front (rule webhooks)',
    docs: 'https://dev.frontapp.com/docs/rule-webhooks',
    scheme: 'X-Front-Signature = base64(HMAC-SHA1(API secret, raw body))',
    secret: "the company's API Secret (Settings > Developers), used as UTF-8 bytes",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the body carries the event id, but the docs reachable here do not say a retry keeps it, so the body hash is used: https://dev.frontapp.com/docs/rule-webhooks',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated in the pages reachable here; use the default window',
    retry_source: 'https://dev.frontapp.com/docs/rule-webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`frontapp: ${cases.length} cases`);
