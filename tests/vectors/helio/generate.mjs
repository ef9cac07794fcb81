// Known-answer vectors for Helio (hel.io) webhooks. Nothing is signed: "Each
// Webhook generates a sharedSecret used with the target API to authenticate
// the endpoints with a Bearer auth header" (https://docs.hel.io/developers/webhooks).
// Each case is a request with the page's payload example (trimmed) and the
// verdict is whether Authorization equals "Bearer " + the sharedSecret.
// It also writes the provider's corpus captures (tests/captures/helio/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const DOCS = 'https://docs.hel.io/developers/webhooks';
const SHARED = 'hSxK3v9QmB2tLw7pZc4fRj8nYd1gUe6a';
const OTHER = 'another-helio-shared-secret-0000';
// The page's PaylinkEventPayload example, trimmed: transaction (the
// transactionObject as a JSON string), event, transactionObject.
const txObject = (id, createdAt) => ({ id, paylinkId: '65dc9f9f1154beaac39976c8', quantity: 1, createdAt, paymentType: 'PAYLINK',
  meta: { id: '65e1df4d0ce08148bc333b60', amount: '9900000', senderPK: 'Er3RwfYqCETBTf5RktezXaNDT3zYgwBMftxBYbX8Zk1G', recipientPK: 'Er3RwfYqCETBTf5RktezXaNDT3zYgwBMftxBYbX8Zk1G' } });
const payload = (obj) => JSON.stringify({ transaction: JSON.stringify(obj), event: 'CREATED', transactionObject: obj });
const BODY = payload(txObject('65e1df4d0ce08148bc333b62', '2024-03-01T13:59:41.303Z'));
const request = (auth, body = BODY) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/helio/acme',
  headers: [['Content-Type', 'application/json'], ...(auth === null ? [] : [['Authorization', auth]])], body, now: NOW });
function docsVerdict(c) {
  const auth = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  if (auth === undefined) return 'missing_signature';
  return c.secrets.includes(auth) ? 'valid' : 'invalid_signature';
}
const bearer = (s) => `Bearer ${s}`;
const cases = [
  { name: 'the page\'s CREATED payload with Authorization: Bearer <sharedSecret>', secrets: [bearer(SHARED)], ...request(bearer(SHARED)), expect: 'valid' },
  { name: 'rotation: the tenant holds the old and the new secret', secrets: [bearer(OTHER), bearer(SHARED)], ...request(bearer(SHARED)), expect: 'valid' },
  { name: 'the sharedSecret with one character changed', secrets: [bearer(SHARED)], ...request(bearer(SHARED.slice(0, -1) + 'b')), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [bearer(OTHER)], ...request(bearer(SHARED)), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [bearer(SHARED)], ...request(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' rule says ${got}, the case expects ${c.expect}`);
}
const out = withIdentity({
  kind: 'helio',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the PaylinkEventPayload example and the Bearer sharedSecret authentication of "Webhooks"', url: DOCS },
  facts: {
    title: 'Helio (hel.io)',
    docs: DOCS,
    scheme: 'no signature: Authorization = "Bearer " + the webhook\'s sharedSecret',
    secret: '"Bearer " followed by the sharedSecret the webhook was created with (the whole Authorization value)',
    timestamp: null,
    event_id: { json_pointer: '/transactionObject/id' },
    event_id_note: 'transactionObject.id is the "Helio transaction ID"; the page\'s event names the webhook event type',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated on the page read',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS = bearer('corpus-helio-shared-secret');
const body = payload(txObject('6955b5800ce08148bc3340a1', '2026-01-01T00:00:00.000Z'));
const dir = new URL('../../captures/helio/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-CREATED.json', SENT_AT, 'accepted', `a Pay Link transaction CREATED event (${DOCS})`],
  ['0002-CREATED-resent.json', SENT_AT + 60, 'duplicate', 'the same event resent: the same transaction ID']];
for (const [name, at] of files) {
  const c = request(CORPUS, body);
  if (docsVerdict({ ...c, secrets: [CORPUS] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'helio', kind: 'helio', tenant: 'default', method: 'POST', path: '/webhooks/helio', query: '',
    headers: c.headers, body_base64: Buffer.from(body).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'helio', kind: 'helio', secrets: [CORPUS],
  source: 'the docs\' payload shape with the corpus Bearer secret, checked by the documented comparison (tests/vectors/helio/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `helio/${name}`, expect, events: [{ id: '6955b5800ce08148bc3340a1', type: 'CREATED' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
