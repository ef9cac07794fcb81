// Known-answer vectors for Alchemy Notify webhooks, from the documentation's
// own Node.js sample isValidSignatureForStringBody
// (https://docs.alchemy.com/reference/notify-api-quickstart#example-signature-validation),
// run unchanged (its TypeScript annotations removed). Alchemy's SDK has no
// webhook verifier. Each request is signed here and the doc's function decides.
import fs from 'node:fs';
import * as crypto from 'node:crypto';

const SECRET = 'whsec_TestAlchemySigningKey0123456789abc';
const OTHER = 'whsec_OtherAlchemySigningKey987654321zyx';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/alchemy';
const SIG_HEADER = 'X-Alchemy-Signature';
const EVENT_ID = 'whevt_vq499kv7elmlbp2v';
const EVENT_TYPE = 'ADDRESS_ACTIVITY';
// The documented Address Activity payload shape:
// https://docs.alchemy.com/reference/address-activity-webhook
const BODY = JSON.stringify({
  webhookId: 'wh_v394g727u681i5rj',
  id: EVENT_ID,
  createdAt: '2023-11-14T22:13:15.000Z',
  type: 'ADDRESS_ACTIVITY',
  event: {
    network: 'ETH_MAINNET',
    activity: [{ fromAddress: '0x503828976d22510aad0201ac7ec88293211d23da', toAddress: '0xbe3f4b43db5eb49d1f48f53443b9abce45da3b79', blockNum: '0xdf34a3', hash: '0x7a4a39da2a3fa1fc2ef88fd1eaea070286ed2aba21e0419dcfb6d5c5d9f02a72', value: 293.092129, asset: 'USDC', category: 'token' }],
  },
});
const FLIP_FROM = '"USDC"';
const FLIP_TO = '"USDD"';

// --- the documentation's sample, verbatim but for the type annotations -----
function isValidSignatureForStringBody(
  body, // string
  signature, // string
  signingKey, // string
) {
  const hmac = crypto.createHmac("sha256", signingKey); // Create a HMAC SHA256 hash using the signing key
  hmac.update(body, "utf8"); // Update the token hash with the request body using utf8
  const digest = hmac.digest("hex");
  return signature === digest;
}
// ---------------------------------------------------------------------------

const sign = (secret) => crypto.createHmac('sha256', secret).update(BODY).digest('hex');
function request({ b = BODY, drop = false } = {}) {
  const headers = [['Content-Type', 'application/json']];
  if (!drop) headers.push([SIG_HEADER, sign(SECRET)]);
  return { method: 'POST', url: URL, headers, body: b };
}
const flip = (b) => b.replace(FLIP_FROM, FLIP_TO);
const cases = [
  { name: 'valid signature', secrets: [SECRET], ...request(), expect: 'valid' },
  { name: 'one body byte changed', secrets: [SECRET], ...request({ b: flip(BODY) }), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...request(), expect: 'invalid_signature' },
  { name: `${SIG_HEADER} removed`, secrets: [SECRET], ...request({ drop: true }), expect: 'missing_signature' },
  { name: 'tenant holds the old and the new secret', secrets: [OTHER, SECRET], ...request(), expect: 'valid' },
].map((c) => ({ ...c, now: NOW, ...(c.expect === 'valid' ? { event_id: EVENT_ID, event_type: EVENT_TYPE } : {}) }));

const verify = (c, secret) => isValidSignatureForStringBody(c.body, header(c, SIG_HEADER), secret);
// The verifier answers yes or no, with the clock fixed at `now`. A request
// it refuses at the case's `now` but accepts at the moment it was signed (`at`)
// is refused for its timestamp alone; one it refuses at both, for its
// signature. A missing header is the caller's check: the SDK takes the header's
// value as an argument.
async function atClock(now, f) {
  const RealDate = Date;
  const fixed = now * 1000;
  globalThis.Date = class extends RealDate {
    constructor(...a) { super(...(a.length ? a : [fixed])); }
    static now() { return fixed; }
  };
  try { return await f(); } finally { globalThis.Date = RealDate; }
}
const header = (c, name) => c.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
async function accepts(c, now) {
  for (const secret of c.secrets) if (await atClock(now, () => verify(c, secret))) return true;
  return false;
}
async function sdkVerdict(c) {
  if (header(c, SIG_HEADER) === undefined) return 'missing_signature';
  if (await accepts(c, c.now)) return 'valid';
  if (c.at !== undefined && (await accepts(c, c.at))) return 'timestamp_out_of_tolerance';
  return 'invalid_signature';
}
for (const c of cases) {
  const want = c.sdk ?? c.expect;
  const got = await sdkVerdict(c);
  if (got !== want) throw new Error(`${c.name}: the SDK says ${got}, the case says ${want}`);
  delete c.sdk;
  delete c.at;
}

const out = {
  kind: 'alchemy',
  source: {
    kind: 'docs-code', package: '', registry: '', version: '',
    function: 'isValidSignatureForStringBody (Node.js sample)',
    url: 'https://docs.alchemy.com/reference/notify-api-quickstart#example-signature-validation',
  },
  facts: {
    title: 'Alchemy Notify',
    docs: 'https://docs.alchemy.com/reference/notify-api-quickstart',
    scheme: 'X-Alchemy-Signature = hex HMAC-SHA256(signing key, raw body)',
    secret: "the webhook's signing key from the Alchemy dashboard (Notify, top right of the webhooks page), used as UTF-8 bytes",
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'id (whevt_...) identifies the event; webhookId the webhook: https://docs.alchemy.com/reference/notify-api-quickstart',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the pages cited; use the default window',
    retry_source: 'https://docs.alchemy.com/reference/notify-api-quickstart',
    handshake: null,
  },
  cases,
};
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`alchemy: ${cases.length} cases`);
