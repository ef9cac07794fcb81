// Known-answer vectors for Bird (docs.bird.com Notifications API) webhooks, from the
// documentation's own PHP verifyWebhookSignature sample ("Verifying a webhook",
// https://docs.bird.com/api/notifications-api/api-reference/webhooks/verifying-a-webhook),
// run verbatim by `php`: every case's verdict is the sample's. No Bird SDK on npm or
// PyPI verifies these webhooks (the messagebird package verifies the older
// MessageBird-Signature-JWT scheme).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { withIdentity, withLateCopy } from '../identity.mjs';

const NOW = 1700000000;
const KEY = 'secureSigningKey-7f3a9c1e5b2d8f4a';
const OTHER = 'otherSigningKey-0a1b2c3d4e5f6a7b';
// Bird signs the URL the subscription was created with, exactly.
const HOOK_URL = 'https://hooks.example.com/webhooks/bird/acme?tenant=acme';
// The reachable page shows no payload; this body is an illustration (the signature does not depend on its shape).
const BODY = JSON.stringify({
  service: 'channels', event: 'whatsapp.inbound',
  payload: { id: '2d2a3b5e-7c1f-4e9a-9b0d-3f8e6c1a2b4d', channelId: '5f3e1a2b-9c8d-4e7f-a6b5-c4d3e2f1a0b9', direction: 'incoming', status: 'delivered',
    sender: { contact: { identifierValue: '+31612345678' } }, body: { type: 'text', text: { text: 'Hello' } }, createdAt: '2023-11-14T22:13:17.512Z' },
});
const TAMPERED = BODY.replace('Hello', 'Hellp');

// The documentation's PHP sample, verbatim (the driver after it reads the case from argv/files).
const DOC_SAMPLE = `
function verifyWebhookSignature(
    string $headerSignature,
    string $headerTimestamp,
    string $receivedBody,
    string $requestedUrl,
    string $signingKey
): bool {
    $receivedDecodedSignature = base64_decode($headerSignature);

    $bodyHash = hash('sha256', $receivedBody, true);
    $computedSignature = hash_hmac(
        'sha256',
        sprintf("%s\\n%s\\n%s", $headerTimestamp, $requestedUrl, $bodyHash),
        $signingKey,
        true
    );

    return hash_equals($computedSignature, $receivedDecodedSignature);
}
`;
const DRIVER = `echo verifyWebhookSignature($argv[1], $argv[2], file_get_contents($argv[3]), $argv[4], $argv[5]) ? 'valid' : 'invalid';`;

function docsVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  if (h['messagebird-signature'] === undefined) return 'missing_signature';
  const dir = mkdtempSync(join(tmpdir(), 'bird-vectors-'));
  try {
    writeFileSync(join(dir, 'body'), c.body);
    for (const key of c.secrets) {
      const out = execFileSync('php', ['-r', DOC_SAMPLE + DRIVER, '--', h['messagebird-signature'], h['messagebird-request-timestamp'], join(dir, 'body'), c.url, key]).toString();
      if (out === 'valid') return 'valid';
    }
    return 'invalid_signature';
  } finally {
    rmSync(dir, { recursive: true });
  }
}

// The documented construction: HMAC-SHA256(key, timestamp + "\n" + url + "\n" + binary SHA-256(body)), base64.
const sign = (key, ts, url = HOOK_URL, body = BODY) =>
  createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${ts}\n${url}\n`), createHash('sha256').update(body).digest()])).digest('base64');
const headersFor = (sig, ts) => [['Content-Type', 'application/json'], ['messagebird-request-timestamp', String(ts)], ['messagebird-signature', sig]];

const req = (sig, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(sig, ts), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'messagebird-signature') });
const ts = NOW - 2;
const sig = sign(KEY, ts);
const ok = {};
const cases = [
  { name: 'whatsapp.inbound signed as documented, accepted by the docs\' verifyWebhookSignature', secrets: [KEY], ...req(sig, ts), expect: 'valid', ...ok },
  { name: 'rotation: the second configured signing key verifies', secrets: [OTHER, KEY], ...req(sig, ts), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [KEY], ...req(sig, ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'delivered to another URL than the one signed (the URL is signed)', secrets: [KEY], ...req(sig, ts), url: HOOK_URL.replace('tenant=acme', 'tenant=other'), expect: 'invalid_signature' },
  { name: 'messagebird-request-timestamp changed after signing (it is signed)', secrets: [KEY], ...req(sig, ts + 1), expect: 'invalid_signature' },
  { name: 'verified with another signing key', secrets: [OTHER], ...req(sig, ts), expect: 'invalid_signature' },
  { name: 'messagebird-signature removed', secrets: [KEY], ...strip(req(sig, ts)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.bird.com/api/notifications-api/api-reference/webhooks/verifying-a-webhook';
const out = {
  kind: 'bird',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' PHP verifyWebhookSignature sample, run by php', url: DOCS },
  facts: {
    title: 'Bird (Notifications API webhooks)',
    docs: DOCS,
    scheme: 'messagebird-signature = base64(HMAC-SHA256(signing key as UTF-8, messagebird-request-timestamp + "\\n" + request URL + "\\n" + SHA-256(raw body) as 32 raw bytes))',
    secret: 'the signingKey given when the webhook subscription was created, used verbatim as UTF-8 bytes',
    timestamp: 'messagebird-request-timestamp, signed; the docs and their sample apply no tolerance',
    event_id: { body_sha256: true },
    event_id_note: 'no delivery ID header is documented on the reachable page: ' + DOCS,
    event_type: null,
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withLateCopy(out, 306, "the docs apply no tolerance; the definition's is 300 s");
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
