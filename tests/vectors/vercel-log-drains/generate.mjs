// Known-answer vectors for Vercel Drains (log drains), from the documentation's own sample
// (https://vercel.com/docs/drains/security, server.js): its `sha1` helper and its x-vercel-signature check run
// unchanged below (the secret passed in instead of the '<Drain signature secret>' placeholder; the handler's
// Response objects reduced to true/false). @vercel/sdk has no drain verifier. Node's crypto only.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

// --- vercel.com/docs/drains/security, server.js, verbatim --------------------------------------------------
function sha1(data, secret) {
  return crypto.createHmac('sha1', secret).update(data).digest('hex');
}
// ------------------------------------------------------------------------------------------------------------
function docsAccept(request, signatureSecret) {
  const rawBody = request.body;
  // --- the handler's check, verbatim (await request.text() -> request.body) ---
  const rawBodyBuffer = Buffer.from(rawBody, 'utf-8');
  const bodySignature = sha1(rawBodyBuffer, signatureSecret);

  if (bodySignature !== request.headers.get('x-vercel-signature')) {
    return false;
  }
  // ---------------------------------------------------------------------------
  return true;
}

const NOW = 1700000000;
const SECRET = 'vercel-drain-signature-secret-7c41e9a2b0';
const OTHER = 'vercel-drain-signature-secret-3d8f6b1c5e';
const HOOK_URL = 'https://hooks.example.com/webhooks/vercel-log-drains';
// A JSON drain delivery is an array of log entries, each with its own id
// (https://vercel.com/docs/drains/reference/logs): the shape of that page's examples.
const BODY = JSON.stringify([
  {
    id: '1573817187330377061717300000', message: 'done', timestamp: 1573817187330, type: 'stdout', source: 'build',
    projectId: 'gdufoJxB6b9b1fEqr1jUtFkyavUU', deploymentId: 'dpl_233NRGRjVZX1caZrXWtz5g1TAksD',
    buildId: 'bld_cotnkcr76', host: 'my-app-abc123.vercel.app', environment: 'production', level: 'info',
  },
  {
    id: '1573817250283254651097202070', message: 'START RequestId: 643af4e3-975a-4cc7-9e7a-1eda11539d90', timestamp: 1573817250283,
    type: 'stdout', source: 'lambda', projectId: 'gdufoJxB6b9b1fEqr1jUtFkyavUU',
    deploymentId: 'dpl_233NRGRjVZX1caZrXWtz5g1TAksD', host: 'my-app-abc123.vercel.app', path: '/api/users',
    entrypoint: 'api/index.js', requestId: '643af4e3-975a-4cc7-9e7a-1eda11539d90', statusCode: 200,
    environment: 'production', level: 'info', proxy: { timestamp: 1573817250172, method: 'GET', host: 'my-app.vercel.app', path: '/api/users?page=2', statusCode: 200, region: 'sfo1' },
  },
]);
const TAMPERED = BODY.replace('"message":"done"', '"message":"dome"');
const DIGEST = crypto.createHash('sha256').update(BODY).digest('hex');

const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['x-vercel-signature', sig]])],
  body, now: NOW,
});
const sig = sha1(Buffer.from(BODY, 'utf-8'), SECRET);
const ok = { event_id: DIGEST, event_type: 'build' };
const cases = [
  { name: 'a batch of two log entries, x-vercel-signature = hex HMAC-SHA1(drain secret, body), accepted by the docs\' sample', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another drain secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'an HMAC-SHA256 of the body is rejected', secrets: [SECRET], ...req(crypto.createHmac('sha256', SECRET).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: 'x-vercel-signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

for (const c of cases) {
  const headers = new Headers(c.headers);
  const got = headers.get('x-vercel-signature') === null ? 'missing_signature'
    : c.secrets.some((s) => docsAccept({ body: c.body, headers }, s)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://vercel.com/docs/drains/security';
const out = {
  kind: 'vercel-log-drains',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' server.js sample (sha1 + the x-vercel-signature check)', url: DOCS },
  facts: {
    title: 'Vercel Drains (log drains)',
    docs: DOCS,
    scheme: 'x-vercel-signature = hex(HMAC-SHA1(drain signature secret as UTF-8, raw body))',
    secret: 'the Drain signature secret (Drains list > Edit)',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a JSON delivery is an array of log entries, each with its own id (https://vercel.com/docs/drains/reference/logs); until per-item batches exist, the delivery is one event keyed by its body\'s SHA-256',
    event_type: { json_pointer: '/0/source' },
    retry_horizon: 'not stated in the reachable sources: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);

// A capture for the corpus (tests/captures/ format), signed for the test config's `default` tenant
// (secret `<kind>-default-secret`) and accepted by the docs' sample before it is written.
const CAPTURE_SECRET = 'vercel-log-drains-default-secret';
const capture = {
  provider: 'vercel-log-drains', kind: 'vercel-log-drains', tenant: 'default', method: 'POST',
  path: '/webhooks/vercel-log-drains', query: '',
  headers: [['User-Agent', 'vercel-log-drains-capture-corpus'], ['Content-Type', 'application/json'],
    ['x-vercel-signature', sha1(Buffer.from(BODY, 'utf-8'), CAPTURE_SECRET)]],
  body_base64: Buffer.from(BODY, 'utf-8').toString('base64'),
  received_at: '2026-01-01T00:00:00+00:00',
};
if (!docsAccept({ body: BODY, headers: new Headers(capture.headers) }, CAPTURE_SECRET)) throw new Error('capture rejected by the docs\' sample');
writeFileSync(new URL('./capture.json', import.meta.url), JSON.stringify(capture, null, 2) + '\n');
