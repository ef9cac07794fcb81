// Known-answer vectors for Vercel webhooks, from Vercel's own example integration
// (github.com/vercel/example-marketplace-integration, app/webhook/route.ts at 4b971cff5c78): its `sha1` helper and
// signature check run unchanged below (TypeScript annotations removed; the secret passed in instead of
// env.INTEGRATION_CLIENT_SECRET). @vercel/sdk (1.28.35) has no webhook verifier. Node's crypto only.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

// --- vercel/example-marketplace-integration app/webhook/route.ts, verbatim --------------------------------
function sha1(data, secret) {
  return crypto
    .createHmac("sha1", secret)
    .update(new Uint8Array(data))
    .digest("hex");
}
// ------------------------------------------------------------------------------------------------------------
function exampleAccepts(req, secret) {
  const rawBody = req.body;
  // --- the route's check, verbatim (env.INTEGRATION_CLIENT_SECRET -> secret) ---
  const rawBodyBuffer = Buffer.from(rawBody, "utf-8");
  const bodySignature = sha1(rawBodyBuffer, secret);

  if (bodySignature !== req.headers.get("x-vercel-signature")) {
    return false;
  }
  // ------------------------------------------------------------------------------
  return true;
}

const NOW = 1700000000;
const SECRET = 'vercel-integration-client-secret-2f8a6c0e4b';
const OTHER = 'vercel-integration-client-secret-9d1b3f5a7c';
const HOOK_URL = 'https://hooks.example.com/webhooks/vercel';
const EVENT_ID = 'uev_3JF9ZrjaqF0WrSTw1bZ3pNma';
// The example's webhook event shape: { id, type, createdAt, payload } (lib/vercel/schemas.ts).
const BODY = JSON.stringify({
  id: EVENT_ID, type: 'deployment.succeeded', createdAt: 1699999995000, region: 'iad1',
  payload: { team: { id: 'team_2aS6kQ4vH5m1nB7cD8eF9gH0' }, user: { id: 'Ldfc2Y5qGZ3Ptxrb7Hs1Kjra' }, deployment: { id: 'dpl_6GbDrkwkNtAxj1fBE5iLxNyyKWKZ', url: 'my-app-3vw1x7yz.vercel.app', name: 'my-app' }, project: { id: 'prj_9GxuXYHqB5Lh4a2W6Jc8Q0fZ' }, target: 'production' },
});
const TAMPERED = BODY.replace('"production"', '"productiom"');

const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['x-vercel-signature', sig]])],
  body, now: NOW,
});
const sig = sha1(Buffer.from(BODY, 'utf-8'), SECRET);
const ok = { event_id: EVENT_ID, event_type: 'deployment.succeeded' };
const cases = [
  { name: 'deployment.succeeded with x-vercel-signature = hex HMAC-SHA1(client secret, body), accepted by the example', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'an HMAC-SHA256 of the body is rejected', secrets: [SECRET], ...req(crypto.createHmac('sha256', SECRET).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: 'x-vercel-signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

for (const c of cases) {
  const headers = new Headers(c.headers);
  const got = headers.get('x-vercel-signature') === null ? 'missing_signature'
    : c.secrets.some((s) => exampleAccepts({ body: c.body, headers }, s)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the example says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://vercel.com/docs/webhooks/webhooks-api#securing-webhooks';
const out = {
  kind: 'vercel',
  source: { kind: 'docs-code', package: '', registry: '', version: '4b971cff5c78f6c43e01bd13ff6bc34d84bfe6a3', function: 'vercel/example-marketplace-integration app/webhook/route.ts (sha1 + the x-vercel-signature check)', url: 'https://github.com/vercel/example-marketplace-integration/blob/4b971cff5c78f6c43e01bd13ff6bc34d84bfe6a3/app/webhook/route.ts' },
  facts: {
    title: 'Vercel',
    docs: DOCS,
    scheme: 'x-vercel-signature = hex(HMAC-SHA1(secret as UTF-8, raw body)); the secret is the integration\'s client secret, or an account webhook\'s own secret',
    secret: 'the integration\'s client secret (Integrations Console), or the secret shown once when an account webhook is created',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'every event carries its id (the example stores events by { id, type, createdAt, payload })',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated in the reachable sources: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
