// Known-answer vectors for Aircall webhooks. Aircall signs nothing: every
// event body carries a top-level `token` equal to the token issued when the
// webhook was created, beside resource, event, timestamp and data
// (https://developer.aircall.io/docs/webhooks-overview,
// https://developer.aircall.io/docs/setup-webhooks). The verdict: the body's
// `token` equals one of the tenant's tokens. Also writes the corpus captures
// (tests/captures/aircall/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = '45XXYYZZa08f7c3e1b9d';
const OTHER = '91AABBCCd27e4f6a0c3b';
const HOOK_URL = 'https://hooks.example.com/webhooks/aircall';
const callEvent = (token, event, callId, ts) => JSON.stringify({
  resource: 'call', event, timestamp: ts,
  ...(token === undefined ? {} : { token }),
  data: { id: callId, direct_link: `https://api.aircall.io/v1/calls/${callId}`, direction: 'inbound', status: 'initial',
    started_at: ts, raw_digits: '+33 1 23 45 67 89', number: { id: 1234, digits: '+33 1 00 00 00 00', name: 'Support' } },
});
const BODY = callEvent(SECRET, 'call.created', 812, 1699999998);
const request = (body) => ({ method: 'POST', url: HOOK_URL, headers: [['Content-Type', 'application/json']], body, now: NOW });
const cases = [
  { name: 'call.created carrying the webhook\'s token', secrets: [SECRET], ...request(BODY), expect: 'valid' },
  { name: 'tenant holds the old and the new token', secrets: [OTHER, SECRET], ...request(BODY), expect: 'valid' },
  { name: 'one byte of the token changed', secrets: [SECRET], ...request(callEvent(SECRET.slice(0, -1) + 'e', 'call.created', 812, 1699999998)), expect: 'invalid_signature' },
  { name: 'verified with another token', secrets: [OTHER], ...request(BODY), expect: 'invalid_signature' },
  { name: 'the token field removed', secrets: [SECRET], ...request(callEvent(undefined, 'call.created', 812, 1699999998)), expect: 'missing_signature' },
];
const verdict = (c) => {
  const t = JSON.parse(c.body).token;
  return t === undefined ? 'missing_signature' : c.secrets.includes(t) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://developer.aircall.io/docs/webhooks-overview';
const out = {
  kind: 'aircall',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the webhook token carried in the body\'s `token`, as documented', url: DOCS },
  facts: {
    title: 'Aircall',
    docs: DOCS,
    scheme: 'body token: the JSON body\'s top-level `token` equals the token issued when the webhook was created; nothing is signed',
    secret: 'the webhook\'s token (returned when the webhook is created, shown in the Dashboard)',
    timestamp: null,
    event_id: { json_pointers: ['/event', '/data/id', '/timestamp'], join: ':' },
    event_id_note: 'the body carries no event ID; the event name, the resource\'s id and the event\'s timestamp name it (one call has several events)',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated: the default window',
    retry_source: 'https://developer.aircall.io/docs/setup-webhooks',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'corpusAircallToken7e2d';
const DIR = new URL('../../captures/aircall/', import.meta.url);
const C1 = callEvent(CORPUS_SECRET, 'call.created', 90417, 1767225570);
const C2 = callEvent(CORPUS_SECRET, 'call.answered', 90417, 1767225584);
const shots = [
  ['0001-call-created.json', C1, 'accepted', 'a call.created event: ' + DOCS],
  ['0002-call-created-again.json', C1, 'duplicate', 'the same event delivered again'],
  ['0003-call-answered.json', C2, 'accepted', 'the same call answered: another event'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'aircall', kind: 'aircall', tenant: 'default', method: 'POST', path: '/webhooks/aircall', query: '',
    headers: [['Content-Type', 'application/json']], body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const j = JSON.parse(body);
  captures.push({ file: `aircall/${file}`, expect, events: [{ id: `${j.event}:${j.data.id}:${j.timestamp}`, type: j.event }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'aircall', kind: 'aircall', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the body\'s `token` (' + DOCS + '): tests/vectors/aircall/generate.mjs', captures }, null, 2) + '\n');
console.log(`aircall: ${cases.length} cases, ${captures.length} captures`);
