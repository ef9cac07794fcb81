// Known-answer vectors for Plivo voice callbacks (signature V3): every verdict from
// the official SDK's validateV3Signature (plivo). The SDK exports no signer, so the
// generator builds X-Plivo-Signature-V3 from the documented string (URL with its
// query sorted, then the POST params sorted and concatenated, then "." + nonce) and
// keeps a case only when the SDK agrees with its expectation.
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { validateV3Signature } from 'plivo';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const AUTH_TOKEN = 'ZTQ2ZWRiNjY0Y2I0YmIwNjYyMGE5ZmQ1YWVkMmM2';       // the sub-account's Auth Token
const MAIN_TOKEN = 'MjdkZjE4YTkwNDVjMzE0NzI1ZWUyZDZhMmNjNTg4';       // the main account's Auth Token
const OTHER_TOKEN = 'OGFhMDQ2YzUxNmYyNGQ0ZDg1ZDk0NmJiYmQ3Nzk5';
const NONCE = '05429567804466091622';                                // the docs' example nonce
const HOOK_URL = 'https://hooks.example.com/webhooks/plivo/acme/hangup?tenant=acme&b=2';
const NO_QUERY_URL = 'https://hooks.example.com/webhooks/plivo/acme/hangup';
// A hangup_url callback: form-encoded call details.
const PARAMS = {
  CallUUID: '1e3a7b2c-4d5e-11ee-9f7a-0242ac120002', From: '14155551234', To: '14155559876', Direction: 'inbound',
  CallStatus: 'completed', Duration: '42', BillDuration: '60', HangupCause: 'NORMAL_CLEARING',
  StartTime: '2023-11-14 22:12:36', AnswerTime: '2023-11-14 22:12:36', EndTime: '2023-11-14 22:13:18', TotalCost: '0.00850',
};
const form = (params) => new URLSearchParams(params).toString();
const BODY = form(PARAMS);
const TAMPERED = form({ ...PARAMS, Duration: '43' });

// The V3 string for a POST with params: base URL, "?" + sorted query + "." when it has a query,
// then every param as name + value sorted by name, then "." + nonce.
function v3String(url, params, nonce) {
  const u = new URL(url);
  const query = [...u.searchParams].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  let base = `${u.protocol}//${u.host}${u.pathname}?${query}`;
  if (query.length > 0) base += '.';
  const body = Object.keys(params).sort().map((k) => k + params[k]).join('');
  return `${base}${body}.${nonce}`;
}
const sign = (token, url = HOOK_URL, params = PARAMS) => createHmac('sha256', token).update(v3String(url, params, NONCE)).digest('base64');
const headersFor = (v3, ma) => [['Content-Type', 'application/x-www-form-urlencoded'], ['X-Plivo-Signature-V3', v3], ['X-Plivo-Signature-Ma-V3', ma], ['X-Plivo-Signature-V3-Nonce', NONCE]];

// validateV3Signature(method, url, nonce, token, signature, params) checks one header value (a
// comma-separated list); a request is valid when V3 or Ma-V3 verifies with a configured token.
function sdkVerdict(c) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  const sigs = [h['x-plivo-signature-v3'], h['x-plivo-signature-ma-v3']].filter((s) => s !== undefined);
  if (sigs.length === 0) return 'missing_signature';
  const params = Object.fromEntries(new URLSearchParams(c.body));
  for (const token of c.secrets) for (const s of sigs) if (validateV3Signature(c.method, c.url, h['x-plivo-signature-v3-nonce'], token, s, params)) return 'valid';
  return 'invalid_signature';
}

const req = (v3, ma, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(v3, ma), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !['x-plivo-signature-v3', 'x-plivo-signature-ma-v3'].includes(k.toLowerCase())) });
const v3 = sign(AUTH_TOKEN);
const ma = sign(MAIN_TOKEN);
const cases = [
  { name: 'hangup callback, X-Plivo-Signature-V3 with the sub-account Auth Token, accepted by validateV3Signature', secrets: [AUTH_TOKEN], ...req(v3, ma), expect: 'valid' },
  { name: 'the main account Auth Token verifies X-Plivo-Signature-Ma-V3', secrets: [MAIN_TOKEN], ...req(v3, ma), expect: 'valid' },
  { name: 'X-Plivo-Signature-V3 holds two comma-separated signatures (old and new token), the tenant holds the new', secrets: [AUTH_TOKEN], ...req(`${sign(OTHER_TOKEN)},${v3}`, ma), expect: 'valid' },
  { name: 'one form value changed after signing', secrets: [AUTH_TOKEN], ...req(v3, ma), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'the callback URL\'s query changed (the URL is signed)', secrets: [AUTH_TOKEN], ...req(v3, ma), url: HOOK_URL.replace('b=2', 'b=3'), expect: 'invalid_signature' },
  { name: 'verified with another Auth Token', secrets: [OTHER_TOKEN], ...req(v3, ma), expect: 'invalid_signature' },
  { name: 'a callback URL without a query: the signed string still has "?" before the params', secrets: [AUTH_TOKEN], ...req(sign(AUTH_TOKEN, NO_QUERY_URL), sign(MAIN_TOKEN, NO_QUERY_URL)), url: NO_QUERY_URL, expect: 'valid' },
  { name: 'the no-query signature does not verify the URL with a query', secrets: [AUTH_TOKEN], ...req(sign(AUTH_TOKEN, NO_QUERY_URL), sign(MAIN_TOKEN, NO_QUERY_URL)), expect: 'invalid_signature' },
  { name: 'X-Plivo-Signature-V3 and X-Plivo-Signature-Ma-V3 removed', secrets: [AUTH_TOKEN], ...strip(req(v3, ma)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.plivo.com/docs/voice/xml/request/validation';
const out = {
  kind: 'plivo',
  source: { kind: 'sdk', package: 'plivo', registry: 'npm', version: '4.79.0',
    function: 'validateV3Signature(method, uri, nonce, auth_token, signature, params) (dist/utils/v3Security.js)', url: DOCS },
  facts: {
    title: 'Plivo (voice callbacks, signature V3)',
    docs: DOCS,
    scheme: 'X-Plivo-Signature-V3 (and -Ma-V3 with the main account token) = comma-separated base64(HMAC-SHA256(Auth Token, S + "." + X-Plivo-Signature-V3-Nonce)); for a POST, S = scheme://host/path + "?" + query pairs sorted ("k=v" joined by "&") + ("." if the query is not empty) + every form param as name+value (decoded) sorted by name',
    secret: 'the account (or sub-account) Auth Token from the Plivo console overview; the main account token verifies X-Plivo-Signature-Ma-V3',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'callbacks carry no delivery ID (CallUUID is shared by every callback of a call): ' + DOCS,
    event_type: null,
    retry_horizon: 'not documented in the pages reachable here: default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);

// A capture for the corpus (tests/captures/import_vectors.py moves it there): the hangup callback
// sent to the corpus's route for the `default` tenant, its URL (with a query) signed as above and
// accepted by validateV3Signature before it is written.
const CAPTURE_URL = 'https://hooks.example.com/webhooks/plivo?b=2';
const capture = { method: 'POST', url: CAPTURE_URL, headers: headersFor(sign(AUTH_TOKEN, CAPTURE_URL), sign(MAIN_TOKEN, CAPTURE_URL)), body: BODY, secrets: [AUTH_TOKEN] };
if (sdkVerdict(capture) !== 'valid') throw new Error('capture refused by validateV3Signature');
writeFileSync(new URL('./capture.json', import.meta.url), JSON.stringify({
  provider: 'plivo', kind: 'plivo', tenant: 'default', method: 'POST', path: '/webhooks/plivo', query: 'b=2',
  headers: capture.headers, body_base64: Buffer.from(BODY).toString('base64'), received_at: '2023-11-14T22:13:20+00:00',
  secret: AUTH_TOKEN,
}, null, 2) + '\n');
