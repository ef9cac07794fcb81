// Known-answer vectors for Figma webhooks (V2). Nothing is signed: every
// payload carries the passcode given when the webhook was created ("should
// match what was initially provided"), so each case is a payload the docs
// print (https://developers.figma.com/docs/rest-api/webhooks-events), copied
// verbatim, and the verdict is whether its passcode equals the tenant's.
// It also writes the provider's corpus captures (tests/captures/figma/).
import { mkdirSync, writeFileSync } from 'node:fs';
import crypto from 'node:crypto';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const DOCS = 'https://developers.figma.com/docs/rest-api/webhooks-events';
// The docs' two examples, verbatim (passcode "secretpasscode").
const PING = '{"event_type":"PING","passcode":"secretpasscode","timestamp":"2020-02-23T20:27:16Z","webhook_id":"22"}';
const FILE_UPDATE = '{"event_type":"FILE_UPDATE","file_key":"CL06nJNn5eZLQKDoARMND5","file_name":"Developer page mockup demo","passcode":"secretpasscode","timestamp":"2020-02-23T20:27:16Z","webhook_id":"22"}';
const PASSCODE = 'secretpasscode';

// The docs' rule: the payload's passcode must equal the one the webhook was created with.
function docsVerdict(c) {
  const body = JSON.parse(c.body);
  if (typeof body.passcode !== 'string') return 'missing_signature';
  return c.secrets.includes(body.passcode) ? 'valid' : 'invalid_signature';
}
const req = (body) => ({ method: 'POST', url: 'https://hooks.example.com/webhooks/figma/acme', headers: [['Content-Type', 'application/json']], body, now: NOW });
const without = (body) => { const o = JSON.parse(body); delete o.passcode; return JSON.stringify(o); };
const cases = [
  { name: 'the docs\' FILE_UPDATE example with passcode secretpasscode', secrets: [PASSCODE], ...req(FILE_UPDATE), expect: 'valid' },
  { name: 'the docs\' PING example (sent when a webhook is created)', secrets: [PASSCODE], ...req(PING), expect: 'valid' },
  { name: 'rotation: the tenant holds another passcode and this one', secrets: ['anotherpasscode', PASSCODE], ...req(FILE_UPDATE), expect: 'valid' },
  { name: 'one character of the passcode changed', secrets: [PASSCODE], ...req(FILE_UPDATE.replace('secretpasscode', 'secretpasscodf')), expect: 'invalid_signature' },
  { name: 'verified with another passcode', secrets: ['anotherpasscode'], ...req(FILE_UPDATE), expect: 'invalid_signature' },
  { name: 'passcode removed', secrets: [PASSCODE], ...req(without(FILE_UPDATE)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = docsVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' rule says ${got}, the case expects ${c.expect}`);
}
const out = withIdentity({
  kind: 'figma',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the PING and FILE_UPDATE example payloads (passcode "secretpasscode") and the documented passcode comparison', url: DOCS },
  facts: {
    title: 'Figma (Webhooks V2)',
    docs: DOCS,
    scheme: 'no signature: the body\'s passcode must equal the passcode given when the webhook was created',
    secret: 'the passcode given to POST /v2/webhooks',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'the payloads carry no event ID (webhook_id names the webhook); each event has its own timestamp, so the body digest identifies it',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'not stated on the page read',
    retry_source: 'https://developers.figma.com/docs/rest-api/webhooks',
    handshake: null,
  },
  cases,
});
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_PASSCODE = 'corpus-figma-webhook-passcode';
const body = JSON.stringify({ event_type: 'FILE_UPDATE', file_key: 'CL06nJNn5eZLQKDoARMND5', file_name: 'Developer page mockup demo', passcode: CORPUS_PASSCODE, timestamp: '2026-01-01T00:00:00Z', webhook_id: '22' });
const id = crypto.createHash('sha256').update(body).digest('hex');
const dir = new URL('../../captures/figma/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = [['0001-FILE_UPDATE.json', SENT_AT, 'accepted', `a FILE_UPDATE event (${DOCS})`],
  ['0002-FILE_UPDATE-resent.json', SENT_AT + 300, 'duplicate', 'the same payload resent: the same body digest (the event ID)']];
for (const [name, at] of files) {
  if (docsVerdict({ body, secrets: [CORPUS_PASSCODE] }) !== 'valid') throw new Error(`capture ${name} refused`);
  writeFileSync(new URL(name, dir), JSON.stringify({ provider: 'figma', kind: 'figma', tenant: 'default', method: 'POST', path: '/webhooks/figma', query: '',
    headers: [['Content-Type', 'application/json']], body_base64: Buffer.from(body).toString('base64'),
    received_at: new Date(at * 1000).toISOString().replace('.000Z', '+00:00') }, null, 2) + '\n');
}
writeFileSync(new URL('manifest.json', dir), JSON.stringify({
  route: 'figma', kind: 'figma', secrets: [CORPUS_PASSCODE],
  source: 'the docs\' FILE_UPDATE example with the corpus passcode, checked by the documented passcode comparison (tests/vectors/figma/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `figma/${name}`, expect, events: [{ id, type: 'FILE_UPDATE' }], why })),
}, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
