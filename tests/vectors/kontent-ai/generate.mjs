// Known-answer vectors for Kontent.ai webhooks, signed by the official
// @kontent-ai/webhook-helper signatureHelper.getHashFromString and checked by
// its isValidSignatureFromString. The first case is the package's own test
// vector (lib/test/signatures/signature.spec.ts): its secret, payload and
// expected signature.
import fs from 'node:fs';
import pkg from '@kontent-ai/webhook-helper';
import { withIdentity } from '../identity.mjs';

const { signatureHelper } = pkg;
const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/kontent-ai/acme';
const SIG_HEADER = 'X-Kontent-ai-Signature';
const SECRET = 'BHPyfqwSy1iJjcscOB+GSkDf9THrBlfcKkwtADJdbP4=';
const OTHER = 'q0Dp3cJz9Lw1tYb7Vn2Xm5Rk8Hs4Fg6Ae0Uo3Ii9Pl2=';
const SPEC_SIGNATURE = 'CF9/hYLw2CDcVp2wW39OFUglh++fGdHFeOhiWxM3jZg=';
// The spec's payload, serialised as the spec does (two-space JSON, CRLF line breaks).
const payload = {
  notifications: [
    {
      data: {
        system: {
          id: 'aa7f127f-1920-4454-a89a-0609aba8ea6f',
          name: 'This changes everything!',
          codename: 'this_changes_everything_',
          collection: 'marketing',
          workflow: 'default',
          workflow_step: 'published',
          language: 'default',
          type: 'product_update',
          last_modified: '2024-03-25T07:55:57.0563735Z',
        },
      },
      message: {
        environment_id: '0f5b6cb2-ea82-014e-ac74-f71e7e8b6aee',
        object_type: 'content_item',
        action: 'published',
        delivery_slot: 'published',
      },
    },
  ],
};
const BODY = signatureHelper.replaceLinebreaks(JSON.stringify(payload, null, 2));
const sign = (secret, body) => signatureHelper.getHashFromString(body, secret);
if (sign(SECRET, BODY) !== SPEC_SIGNATURE) throw new Error('the spec vector no longer holds');

const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
function sdkVerdict(c) {
  const signature = header(c, SIG_HEADER) ?? header(c, 'X-KC-Signature');
  if (signature === undefined) return 'missing_signature';
  return c.secrets.some((s) => signatureHelper.isValidSignatureFromString(c.body, s, signature)) ? 'valid' : 'invalid_signature';
}
function request({ body = BODY, secret = SECRET, name = SIG_HEADER, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([name, sign(secret, BODY)]);
  return { method: 'POST', url: HOOK_URL, headers, body };
}
const TAMPERED = BODY.replace('This changes everything!', 'This changes everything?');
const cases = [
  { name: "the package's own test vector (signature.spec.ts)", secrets: [SECRET], ...request(), expect: 'valid', event_type: 'published' },
  { name: 'the legacy X-KC-Signature header', secrets: [SECRET], ...request({ name: 'X-KC-Signature' }), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...request({ body: TAMPERED }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
].map((c) => ({ ...c, now: NOW }));
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'kontent-ai',
  source: {
    kind: 'sdk', package: '@kontent-ai/webhook-helper', registry: 'npm', version: '3.0.3',
    function: 'signatureHelper.getHashFromString / signatureHelper.isValidSignatureFromString',
    url: 'https://kontent.ai/learn/docs/webhooks/webhooks/javascript',
  },
  facts: {
    title: 'Kontent.ai',
    docs: 'https://kontent.ai/learn/docs/webhooks/webhooks/javascript',
    scheme: 'X-Kontent-ai-Signature (formerly X-KC-Signature) = base64(HMAC-SHA256(webhook secret as UTF-8, raw body))',
    secret: "the webhook's secret from Environment settings > Webhooks, used as UTF-8 text",
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payload carries the changed objects and the event (action), no delivery ID',
    event_type: { json_pointer: '/notifications/0/message/action' },
    retry_horizon: 'deliveries are retried per a retry policy whose horizon the pages consulted do not give; keep the default window',
    retry_source: 'https://kontent.ai/learn/docs/webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
fs.writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
