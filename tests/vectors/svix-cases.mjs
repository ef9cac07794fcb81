// The shared body of the Standard Webhooks (Svix-family) generators, in the
// two forms the copies had: generate (below) for the generators whose facts
// are one object `C`, signed with standardwebhooks and checked by svix or
// standardwebhooks; generateSdkVectors (further down) for those where one
// library signs and verifies and the generator spells out its facts and
// corpus. The constants (NOW, SENT_AT, the OLD and OTHER secrets, the
// 300-second tolerance) are the same for both, as they were in every copy.
//
// A generator of the first form holds its facts `C` and calls
//
//   generate(C, { here: import.meta.url, Signer, signer, Verifier, verifier })
//
// which builds the eight cases, checks every one against the verifier,
// writes the generator's vectors.json and its corpus captures
// (tests/captures/<C.kind>/ with manifest.json), and returns what it wrote.
//
// This module imports no npm package: node resolves a package relative to
// the file that imports it, so each generator imports the SDK classes from
// its own node_modules (pinned in its package.json) and passes them in.
//
// C (the provider's facts):
//   kind, title, docs          the kind, its display name, the docs URL
//   headers                    header prefix: 'svix' or 'webhook' (<prefix>-id, -timestamp, -signature)
//   secret, corpusSecret       the vectors' secret and the corpus's (whsec_...)
//   secretNote                 facts.secret
//   msgId                      the message ID of every request
//   body                       the event (a JSON value), sent as JSON.stringify(body)
//   type                       its event type (names the first case and the capture files)
//   typePointer                facts.event_type's json_pointer, or
//   typeSource                 facts.event_type given whole (e.g. { header: 'Webhook-Topic' }); wins over typePointer
//   extraHeaders               optional [name, value] pairs sent after Content-Type (e.g. Make's Webhook-Topic)
//   tamper                     [from, to]: the one-byte change of the tampered case (must occur in the body)
//   idNote, retry, retrySource facts.event_id_note, retry_horizon, retry_source
// options:
//   here                       the generator's import.meta.url: vectors.json is written beside it,
//                              captures under ../../captures/<kind>/ from it, and the manifest names it
//   Signer, signer             the class whose sign(id, Date, body) signs every request, and its
//                              { package, version } (e.g. standardwebhooks 1.1.1)
//   Verifier, verifier         the class whose verify(body, headers) gives every verdict, and its
//                              { package, version } (vectors.json's source; e.g. svix 2.5.0)
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withIdentity } from './identity.mjs';

const NOW = 1700000000;
export const SENT_AT = 1767225600; // the corpus's fixed send time, 2026-01-01T00:00:00Z
export const SENT_AT_ISO = '2026-01-01T00:00:00+00:00';
const OLD = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const OTHER = 'whsec_aGVsbG8gd29ybGQgdGhpcyBpcyBhIHRlc3Q=';
const TOLERANCE = 300;
const REPO = new URL('../../', import.meta.url);

export function generate(C, { here, Signer, signer, Verifier, verifier }) {
  for (const [k, v] of Object.entries({ here, Signer, signer, Verifier, verifier })) {
    if (!v) throw new Error(`svix-cases: option ${k} is missing`);
  }
  const script = relative(fileURLToPath(REPO), fileURLToPath(here));
  const H = { id: `${C.headers}-id`, ts: `${C.headers}-timestamp`, sig: `${C.headers}-signature` };
  const BODY = JSON.stringify(C.body);
  const TAMPERED = BODY.replace(C.tamper[0], C.tamper[1]);
  if (TAMPERED === BODY) throw new Error('the tamper string is not in the body');

  const sign = (secret, id, ts, body) => new Signer(secret).sign(id, new Date(ts * 1000), body);
  const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], ...(C.extraHeaders ?? []), [H.id, id], [H.ts, String(ts)], [H.sig, sigs.join(' ')]];

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

  const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: `https://hooks.example.com/webhooks/${C.kind}/acme`, headers: headersFor(C.msgId, sigs, ts), body, now: NOW, tolerance: TOLERANCE });
  const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== H.sig) });
  const ts = NOW - 2;
  const cases = [
    { name: `${C.type} signed by ${signer.package}, accepted by the verifier`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
    { name: 'rotation: the header carries the old and the new secret\'s signatures, the tenant holds only the new', secrets: [C.secret], ...req([sign(OLD, C.msgId, ts, BODY), sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
    { name: 'rotation: the second configured secret verifies', secrets: [OTHER, C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'valid' },
    { name: 'one body byte changed after signing', secrets: [C.secret], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
    { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(C.secret, C.msgId, ts, BODY)], ts), expect: 'invalid_signature' },
    { name: `${H.sig} removed`, secrets: [C.secret], ...strip(req([sign(C.secret, C.msgId, ts, BODY)], ts)), expect: 'missing_signature' },
    { name: `${H.ts} ${TOLERANCE + 1} seconds old`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, NOW - TOLERANCE - 1, BODY)], NOW - TOLERANCE - 1), expect: 'timestamp_out_of_tolerance' },
    { name: `${H.ts} ${TOLERANCE + 1} seconds in the future`, secrets: [C.secret], ...req([sign(C.secret, C.msgId, NOW + TOLERANCE + 1, BODY)], NOW + TOLERANCE + 1), expect: 'timestamp_out_of_tolerance' },
  ];
  for (const c of cases) {
    const got = sdkVerdict(c);
    if (got !== c.expect) throw new Error(`${c.name}: the verifier says ${got}, the case expects ${c.expect}`);
  }

  const out = withIdentity({
    kind: C.kind,
    source: { kind: 'sdk', package: verifier.package, registry: 'npm', version: verifier.version,
      function: `Webhook#verify (${verifier.package}); signed with ${signer.package} ${signer.version} Webhook#sign`, url: C.docs },
    facts: {
      title: C.title,
      docs: C.docs,
      scheme: `Standard Webhooks: ${H.sig} = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, ${H.id} + "." + ${H.ts} + "." + raw body))>"`,
      secret: C.secretNote,
      timestamp: `${H.ts}, unix seconds, signed; 5 minutes either way`,
      event_id: { header: H.id },
      event_id_note: C.idNote,
      event_type: C.typeSource ?? { json_pointer: C.typePointer },
      retry_horizon: C.retry,
      retry_source: C.retrySource,
      handshake: null,
    },
    cases,
  });
  for (const c of out.cases.filter((c) => c.expect === 'valid')) {
    if (c.event_id !== C.msgId || c.event_type !== C.type) throw new Error(`${c.name}: identity ${c.event_id} ${c.event_type}`);
  }
  writeFileSync(new URL('./vectors.json', here), JSON.stringify(out, null, 2) + '\n');

  // The corpus: the event as sent at SENT_AT, then its retry five minutes
  // later (same message ID, signed again), which must be a duplicate.
  const dir = new URL(`../../captures/${C.kind}/`, here);
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
    source: `signed by ${signer.package} ${signer.version} Webhook#sign, checked by ${verifier.package} ${verifier.version} Webhook#verify (${script})`,
    captures: files.map(([name, , expect, why]) => ({ file: `${C.kind}/${name}`, expect, events: [{ id: C.msgId, type: C.type }], why })),
  };
  writeFileSync(new URL('manifest.json', dir), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`wrote ${cases.length} cases and ${files.length} captures`);
  return { out, manifest };
}

// The value at a JSON pointer (RFC 6901) in a parsed body.
const atPointer = (value, pointer) => pointer.split('/').slice(1)
  .reduce((v, k) => v?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], value);

// The other form, where one library's Webhook class both signs and verifies
// (svix 2.5.0, or standardwebhooks 1.1.1 for Render) and the generator spells
// out its facts and its corpus itself. A provider's generate.mjs calls
//
//   generateSdkVectors(P, { here: import.meta.url, Webhook, library })
//
// which builds the cases (eight, nine with P.unbranded), checks every one
// against Webhook#verify (whose own "Missing required headers" is the
// missing_signature verdict), writes vectors.json beside the generator and
// the corpus under tests/captures/<P.kind>/, and returns what it wrote.
//
// P (the provider's facts):
//   kind                       the kind; requests go to https://hooks.example.com/webhooks/<kind>
//   headers                    header prefix: 'svix' or 'webhook' (<prefix>-id, -timestamp, -signature)
//   secret, msgId              the vectors' signing secret and message ID
//   body                       the raw body (a string)
//   type                       the event type, naming the first case
//   tamper                     [from, to]: the one-byte change of the tampered case (must occur in the body)
//   unbranded                  optional: a second valid case, the same request with svix-* renamed webhook-*
//   source                     { function, url } of vectors.json's source (package and version are the library's)
//   facts                      vectors.json's facts, whole; facts.event_type.json_pointer also gives
//                              each capture's event type in the manifest
//   corpus                     { secret, shots: [[file, id, at, body, expect, why], ...] }: every capture
//                              is signed at `at` and received at SENT_AT (2026-01-01T00:00:00Z)
//   manifestNote               optional words after "checked by its Webhook.verify" in the manifest's source
// options:
//   here                       the generator's import.meta.url (as for generate above)
//   Webhook, library           the library's class (sign and verify) and its { package, version }

export function generateSdkVectors(P, { here, Webhook, library }) {
  for (const [k, v] of Object.entries({ here, Webhook, library })) {
    if (!v) throw new Error(`svix-cases: option ${k} is missing`);
  }
  const typePointer = P.facts.event_type?.json_pointer;
  if (typeof typePointer !== 'string') throw new Error('generateSdkVectors: facts.event_type must be a json_pointer');
  const script = relative(fileURLToPath(REPO), fileURLToPath(here));
  const H = { id: `${P.headers}-id`, ts: `${P.headers}-timestamp`, sig: `${P.headers}-signature` };
  const HOOK_URL = `https://hooks.example.com/webhooks/${P.kind}`;
  const BODY = P.body;
  const TAMPERED = BODY.replace(P.tamper[0], P.tamper[1]);
  if (TAMPERED === BODY) throw new Error('the tamper string is not in the body');

  const sign = (secret, id, ts, body) => new Webhook(secret).sign(id, new Date(ts * 1000), body);
  const headersFor = (id, sigs, ts) => [['Content-Type', 'application/json'], [H.id, id], [H.ts, String(ts)], [H.sig, sigs.join(' ')]];

  function sdkVerdict(c) {
    const realNow = Date.now;
    Date.now = () => c.now * 1000; // the verifier reads the clock itself
    try {
      let verdict = 'invalid_signature';
      for (const s of c.secrets) {
        try {
          new Webhook(s).verify(c.body, Object.fromEntries(c.headers));
          return 'valid';
        } catch (e) {
          if (e.message === 'Missing required headers') return 'missing_signature';
          if (/timestamp too (old|new)/.test(e.message)) verdict = 'timestamp_out_of_tolerance';
          else if (e.message !== 'No matching signature found') throw e;
        }
      }
      return verdict;
    } finally {
      Date.now = realNow;
    }
  }

  const { secret: SECRET, msgId: MSG_ID } = P;
  const req = (sigs, ts, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(MSG_ID, sigs, ts), body, now: NOW, tolerance: TOLERANCE });
  const unbranded = (r) => ({ ...r, headers: r.headers.map(([k, v]) => [k.replace(/^svix-/, 'webhook-'), v]) });
  const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== H.sig) });
  const ts = NOW - 2;
  const cases = [
    { name: `${P.type} signed by Webhook.sign, accepted by Webhook.verify`, secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
    ...(P.unbranded ? [{ name: 'the same request under the unbranded webhook-id / webhook-timestamp / webhook-signature names', secrets: [SECRET], ...unbranded(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'valid' }] : []),
    { name: `rotation: ${H.sig} carries the old and the new secret's signatures, the tenant holds only the new`, secrets: [SECRET], ...req([sign(OLD, MSG_ID, ts, BODY), sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
    { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'valid' },
    { name: 'one body byte changed after signing', secrets: [SECRET], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), body: TAMPERED, expect: 'invalid_signature' },
    { name: 'verified with another signing secret', secrets: [OTHER], ...req([sign(SECRET, MSG_ID, ts, BODY)], ts), expect: 'invalid_signature' },
    { name: `${H.sig} removed`, secrets: [SECRET], ...strip(req([sign(SECRET, MSG_ID, ts, BODY)], ts)), expect: 'missing_signature' },
    { name: `${H.ts} ${TOLERANCE + 1} seconds old`, secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW - TOLERANCE - 1, BODY)], NOW - TOLERANCE - 1), expect: 'timestamp_out_of_tolerance' },
    { name: `${H.ts} ${TOLERANCE + 1} seconds in the future`, secrets: [SECRET], ...req([sign(SECRET, MSG_ID, NOW + TOLERANCE + 1, BODY)], NOW + TOLERANCE + 1), expect: 'timestamp_out_of_tolerance' },
  ];
  for (const c of cases) {
    const got = sdkVerdict(c);
    if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
  }

  const out = {
    kind: P.kind,
    source: { kind: 'sdk', package: library.package, registry: 'npm', version: library.version,
      function: P.source.function, url: P.source.url },
    facts: P.facts,
    cases,
  };
  withIdentity(out);
  writeFileSync(new URL('./vectors.json', here), JSON.stringify(out, null, 2) + '\n');

  // The corpus captures, each signed at its own time with the corpus secret.
  const CORPUS_SECRET = P.corpus.secret;
  const DIR = new URL(`../../captures/${P.kind}/`, here);
  mkdirSync(DIR, { recursive: true });
  const captures = [];
  for (const [file, id, at, body, expect, why] of P.corpus.shots) {
    const headers = headersFor(id, [sign(CORPUS_SECRET, id, at, body)], at);
    if (sdkVerdict({ secrets: [CORPUS_SECRET], headers, body, now: at }) !== 'valid') throw new Error(`${file}: not accepted by Webhook.verify`);
    const capture = { provider: P.kind, kind: P.kind, tenant: 'default', method: 'POST', path: `/webhooks/${P.kind}`, query: '',
      headers, body_base64: Buffer.from(body).toString('base64'), received_at: SENT_AT_ISO };
    writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
    captures.push({ file: `${P.kind}/${file}`, expect, events: [{ id, type: atPointer(JSON.parse(body), typePointer) }], why });
  }
  const manifest = { route: P.kind, kind: P.kind, secrets: [CORPUS_SECRET],
    source: `signed by ${library.package} ${library.version} Webhook.sign and checked by its Webhook.verify${P.manifestNote ? ` (${P.manifestNote})` : ''}: ${script}`, captures };
  writeFileSync(new URL('manifest.json', DIR), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`${P.kind}: ${cases.length} cases, ${captures.length} captures`);
  return { out, manifest };
}
