// Known-answer vectors for Storyblok webhooks, from Storyblok's own "Verify webhook signature - Nodejs + Express"
// sample (https://www.storyblok.com/tp/webhook-secret-with-different-technologies): its verification lines run
// unchanged below inside a function taking (req, webhookSecret). No Storyblok SDK verifies webhooks.
// Node's crypto only: no package.json.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';

function docsSample(req, webhookSecret) {
  // --- the sample's handler body, verbatim (webhookSecret supplied instead of the constant 'hello') ---
  const payload = req.rawBody
  const signature = req.headers['webhook-signature']
  const generatedSignature = createHmac('sha1', webhookSecret)
    .update(payload)
    .digest('hex')
  const isValid = generatedSignature === signature
  // ----------------------------------------------------------------------------------------------------
  return isValid;
}

const NOW = 1700000000;
const SECRET = 'sb-webhook-secret-6f1e2d3c4b5a69788796a5b4';
const OTHER = 'sb-webhook-secret-0a1b2c3d4e5f60718293a4b5';
const HOOK_URL = 'https://hooks.example.com/webhooks/storyblok';
// A story publish payload as the webhooks documentation shows it.
const BODY = JSON.stringify({ text: 'The user test@storyblok.com published the Story Home (home)', action: 'published', space_id: 126873, story_id: 371004817, full_slug: 'home' });
const TAMPERED = BODY.replace('"home"', '"homf"');

const sign = (secret, body = BODY) => createHmac('sha1', secret).update(body).digest('hex');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['webhook-signature', sig]])],
  body, now: NOW,
});
const sig = sign(SECRET);
const cases = [
  { name: 'story published, webhook-signature = hex HMAC-SHA1(secret, body), accepted by the sample', secrets: [SECRET], ...req(sig), expect: 'valid', event_type: 'published' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'an HMAC-SHA256 of the body is rejected', secrets: [SECRET], ...req(createHmac('sha256', SECRET).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: 'webhook-signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

for (const c of cases) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const got = h['webhook-signature'] === undefined ? 'missing_signature'
    : c.secrets.some((s) => docsSample({ rawBody: c.body, headers: h }, s)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://www.storyblok.com/tp/webhook-secret-with-different-technologies';
const out = {
  kind: 'storyblok',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'Storyblok\'s "Verify webhook signature - Nodejs + Express" sample', url: DOCS },
  facts: {
    title: 'Storyblok',
    docs: DOCS,
    scheme: 'webhook-signature = hex(HMAC-SHA1(webhook secret as UTF-8, raw body))',
    secret: 'the webhook secret set on the webhook in Storyblok (Settings > Webhooks), used verbatim as UTF-8',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload (text, action, space_id, story_id, full_slug) carries no event ID and no delivery-ID header is documented; the signed body is the identity',
    event_type: { json_pointer: '/action' },
    retry_horizon: 'not stated on the reachable pages: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
