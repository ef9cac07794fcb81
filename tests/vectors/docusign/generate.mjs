// Known-answer vectors for DocuSign Connect HMAC signatures. Every verdict comes from
// DocuSign's own code example (github.com/docusign/code-examples-node, file
// lib/connect/examples/validateWebhookMessage.js at commit 0be034e04b2798875722d239f8fb69240fdde87d,
// the "ds-snippet" the Connect HMAC guide embeds), copied verbatim below.
import crypto from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

// ---- verbatim from docusign/code-examples-node@0be034e (lib/connect/examples/validateWebhookMessage.js) ----
const computeHash = (args) => {
  const hmac = crypto.createHmac('sha256', args.secret);
  hmac.write(args.payload);
  hmac.end();
  return hmac.read().toString('base64');
};

const isHashValid = (args) => {
  return crypto.timingSafeEqual(Buffer.from(args.verify, 'base64'), Buffer.from(computeHash(args), 'base64'));
};
// ---- end of the DocuSign example ----

const NOW = 1700000000;
// Connect HMAC keys are 44-character base64 strings, used as text by the example.
const KEY1 = 'nG3rY0bNAW9tKfZ2mU1d7Qe4sLh8vXcP5jR6oTq0wIk=';
const KEY2 = 'Qm2hD8fVx1cZ4pL7sN0gT5yW3eR9uJ6kB2aH8mO1vYs=';
const OTHER = 'Zt7eU2wQ9rX4cV1bN6mK3jH8gF5dS0aP2oI7uY4tR1e=';
const HOOK_URL = 'https://hooks.example.com/webhooks/docusign/acme';
// A Connect (JSON SIM) envelope-completed message.
const BODY = JSON.stringify({
  event: 'envelope-completed', apiVersion: 'v2.1', uri: '/restapi/v2.1/accounts/8a1b2c3d-0000-4a5b-9c8d-7e6f5a4b3c2d/envelopes/93be49ab-0000-4a5b-8c7d-1e2f3a4b5c6d',
  retryCount: 0, configurationId: 10418, generatedDateTime: '2023-11-14T22:13:18.1234567Z',
  data: { accountId: '8a1b2c3d-0000-4a5b-9c8d-7e6f5a4b3c2d', userId: '1f2e3d4c-0000-4b5a-8d9c-6f5e4d3c2b1a', envelopeId: '93be49ab-0000-4a5b-8c7d-1e2f3a4b5c6d' },
});
const TAMPERED = BODY.replace('envelope-completed', 'envelope-completeD');

// DocuSign sends one X-DocuSign-Signature-N header per HMAC key configured on the account.
const headersFor = (keys, body) => [['Content-Type', 'application/json'],
  ...keys.map((k, i) => [`X-DocuSign-Signature-${i + 1}`, computeHash({ secret: k, payload: body })])];
const isSig = (name) => /^x-docusign-signature-\d+$/i.test(name);

function docsVerdict(c) {
  const sigs = c.headers.filter(([k]) => isSig(k)).map(([, v]) => v);
  if (sigs.length === 0) return 'missing_signature';
  const ok = c.secrets.some((secret) => sigs.some((verify) => isHashValid({ verify, secret, payload: c.body })));
  return ok ? 'valid' : 'invalid_signature';
}

const req = (keys, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(keys, body), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !isSig(k)) });
const ok = { event_type: 'envelope-completed' };
const cases = [
  { name: 'envelope-completed signed with one key, accepted by the DocuSign example', secrets: [KEY1], ...req([KEY1]), expect: 'valid', ...ok },
  { name: 'two HMAC keys on the account: X-DocuSign-Signature-1 and -2, the tenant holds only the second key', secrets: [KEY2], ...req([KEY1, KEY2]), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, KEY1], ...req([KEY1]), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [KEY1], ...req([KEY1]), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another key', secrets: [OTHER], ...req([KEY1, KEY2]), expect: 'invalid_signature' },
  { name: 'every X-DocuSign-Signature-N header removed', secrets: [KEY1], ...strip(req([KEY1])), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the DocuSign example says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'docusign',
  source: { kind: 'docs-code', package: '', registry: '', version: '',
    function: 'computeHash / isHashValid from docusign/code-examples-node@0be034e lib/connect/examples/validateWebhookMessage.js',
    url: 'https://developers.docusign.com/platform/webhooks/connect/hmac/' },
  facts: {
    title: 'DocuSign (Connect)',
    docs: 'https://developers.docusign.com/platform/webhooks/connect/hmac/',
    scheme: 'X-DocuSign-Signature-1 ... X-DocuSign-Signature-N (one per HMAC key on the account, up to 100) = base64(HMAC-SHA256(key, raw body))',
    secret: 'a Connect HMAC key from Settings > Connect > Connect Keys (44-character base64 text, used as the UTF-8 key as shown)',
    timestamp: null,
    event_id: { json_pointers: ['/event', '/data/envelopeId', '/generatedDateTime'], join: ':' },
    event_id_note: 'Connect messages have no delivery or event ID; retryCount (and possibly generatedDateTime) change between attempts, so an identical body only catches identical resends; see NOTES.md',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the pages consulted; keep the default window (see NOTES.md)',
    retry_source: 'https://developers.docusign.com/platform/webhooks/connect/',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
