// Known-answer vectors for SignatureAPI, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://signatureapi.com/docs/api/guides/how-to/verify-webhooks).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: standardwebhooks 1.1.1 Webhook#verify, the Standard Webhooks reference library.
// It also writes the provider's corpus captures (tests/captures/signatureapi/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'standardwebhooks';
import { withIdentity } from '../identity.mjs';

const C = {
  kind: 'signatureapi',
  title: 'SignatureAPI',
  docs: 'https://signatureapi.com/docs/api/guides/how-to/verify-webhooks',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLXNpZ25hdHVyZWFwaS1zZWNyZXQ=',
  secretNote: 'the endpoint\'s Signing Secret (Dashboard > Settings > Webhooks), "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_2dSu9ISf5vAd3zIx6Ms1BuNj2Yp',
  // The docs' recipient.completed event object (https://signatureapi.com/docs/api/webhooks).
  body: { id: 'evt_4p2oouvNvjp1I9ckgqycH2', type: 'recipient.completed', timestamp: '2025-12-31T15:00:01.999Z',
    data: { envelope_id: 'e387553d-cbb7-4924-abd8-b2d89699e9b5', envelope_metadata: { customer_ref: 'x9550501', account_annual_revenue: '$4,500,000' },
      object_id: 're_7v7Sion0vqjJioYmwfZ9mf', object_type: 'recipient', recipient_type: 'signer' } },
  type: 'recipient.completed',
  typePointer: '/type',
  tamper: ['"x9550501"', '"x9550502"'],
  idNote: 'SignatureAPI signs each delivery following the Standard Webhooks specification (https://signatureapi.com/docs/api/guides/how-to/verify-webhooks), whose webhook-id is the message ID, the same when a message is resent',
  retry: 'SignatureAPI retries failed deliveries and tells receivers to expect duplicates; the pages read give no schedule',
  retrySource: 'https://signatureapi.com/docs/api/webhooks',
};

const NOW = 1700000000;
const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const H = { id: `${C.headers}-id`, ts: `${C.headers}-timestamp`, sig: `${C.headers}-signature` };
const BODY = JSON.stringify(C.body);
const TAMPERED = BODY.replace(C.tamper[0], C.tamper[1]);
if (TAMPERED === BODY) throw new Error('the tamper string is not in the body');

const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], [H.id, id], [H.ts, String(ts)], [H.sig, sigs.join(' ')]];

// The official verifier's verdict on a case: any configured secret verifies.
function sdkVerdict(c) {
  const realNow = Date.now;
  Date.now = () => c.now * 1000; // the verifiers read the clock themselves
  try {
    const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
    if (!headers[H.sig]) return 'missing_signature';
    let verdict = 'invalid_signature';
    for (const s of c.secrets) {
      try {
        new Verifier(s).verify(c.body, headers);
        return 'valid';
      } catch (e) {
        if (/timestamp too (old|new)/i.test(e.message)) verdict = 'timestamp_out_of_tolerance';
        else if (!/No matching signature/i.test(e.message)) throw e;
      }
    }
    return verdict;
  } finally {
    Date.now = realNow;
  }
}

const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: `https://hooks.example.com/webhooks/${C.kind}/acme`, headers: headersFor(C.msgId, sigs, ts), body, now: NOW, tolerance: 300 });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== H.sig) });
const ts = NOW - 2;
const cases = [
  { name: `${C.type} signed by standardwebhooks, accepted by the verifier`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the header carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [C.secret], ...req([sign(OLD, C.msgId, ts, BODY), sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
  { name: 'one body byte changed after signing', secrets: [C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'invalid_signature' },
  { name: `${H.sig} removed`, secrets: [C.secret], ...strip(req([sign(C.secret, C.msgId, ts, BODY)], ts)), expect: 'missing_signature' },
  { name: `${H.ts} 301 seconds old`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, NOW - 301, BODY)], NOW - 301), expect: 'timestamp_out_of_tolerance' },
  { name: `${H.ts} 301 seconds in the future`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, NOW + 301, BODY)], NOW + 301), expect: 'timestamp_out_of_tolerance' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the verifier says ${got}, the case expects ${c.expect}`);
}

const out = withIdentity({
  kind: C.kind,
  source: { kind: 'sdk', package: 'standardwebhooks', registry: 'npm', version: '1.1.1',
    function: `Webhook#verify (standardwebhooks); signed with standardwebhooks 1.1.1 Webhook#sign`, url: C.docs },
  facts: {
    title: C.title,
    docs: C.docs,
    scheme: `Standard Webhooks: ${H.sig} = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, ${H.id} + "." + ${H.ts} + "." + raw body))>"`,
    secret: C.secretNote,
    timestamp: `${H.ts}, unix seconds, signed; 5 minutes either way`,
    event_id: { header: H.id },
    event_id_note: C.idNote,
    event_type: { json_pointer: C.typePointer },
    retry_horizon: C.retry,
    retry_source: C.retrySource,
    handshake: null,
  },
  cases,
});
for (const c of out.cases.filter((c) => c.expect === 'valid')) {
  if (c.event_id !== C.msgId || c.event_type !== C.type) throw new Error(`${c.name}: identity ${c.event_id} ${c.event_type}`);
}
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// The corpus: the event as sent at SENT_AT, then its retry five minutes
// later (same message ID, signed again), which must be a duplicate.
const dir = new URL(`../../captures/${C.kind}/`, import.meta.url);
mkdirSync(dir, { recursive: true });
const capture = (ts) => ({
  provider: C.kind, kind: C.kind, tenant: 'default', method: 'POST', path: `/webhooks/${C.kind}`, query: '',
  headers: headersFor(C.msgId, [sign(C.corpusSecret, C.msgId, ts, BODY)], ts),
  body_base64: Buffer.from(BODY).toString('base64'),
  received_at: new Date(ts * 1000).toISOString().replace('.000Z', '+00:00'),
});
const files = [[`0001-${C.type}.json`, SENT_AT, 'accepted', `the event as first sent (${C.docs})`],
  [`0002-${C.type}-retry.json`, SENT_AT + 300, 'duplicate', `its retry: the same ${H.id}, signed again at a later ${H.ts} (${C.idNote})`]];
for (const [name, at] of files) {
  const c = capture(at);
  const verdict = sdkVerdict({ headers: c.headers, body: BODY, secrets: [C.corpusSecret], now: at });
  if (verdict !== 'valid') throw new Error(`capture ${name}: the verifier says ${verdict}`);
  writeFileSync(new URL(name, dir), JSON.stringify(c, null, 2) + '\n');
}
const manifest = {
  route: C.kind, kind: C.kind, secrets: [C.corpusSecret],
  source: 'signed by standardwebhooks 1.1.1 Webhook#sign, checked by standardwebhooks 1.1.1 Webhook#verify (tests/vectors/signatureapi/generate.mjs)',
  captures: files.map(([name, , expect, why]) => ({ file: `${C.kind}/${name}`, expect, events: [{ id: C.msgId, type: C.type }], why })),
};
writeFileSync(new URL('manifest.json', dir), JSON.stringify(manifest, null, 2) + '\n');
console.log(`wrote ${cases.length} cases and ${files.length} captures`);
