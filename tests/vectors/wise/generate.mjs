// Known-answer vectors for Wise webhooks, from Wise's own worked example:
// github.com/transferwise/digital-signatures-examples (commit c29c362,
// verify-webhook-signature/verify-signature.js), which the docs link as the
// reference implementation
// (https://docs.wise.com/api-docs/features/webhooks-notifications/event-handling).
// The example is a real request body signed by Wise's sandbox key; its body,
// signature and key are copied below verbatim, and every case's verdict is the
// example's own check (crypto.verify RSA-SHA256, PKCS#1 v1.5), run on each case.
// Wise publishes no SDK that verifies webhooks.
import { writeFileSync } from 'node:fs';
import crypto from 'node:crypto';

// --- verbatim from verify-signature.js ---
const sandboxPubKey = `
-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwpb91cEYuyJNQepZAVfP
ZIlPZfNUefH+n6w9SW3fykqKu938cR7WadQv87oF2VuT+fDt7kqeRziTmPSUhqPU
ys/V2Q1rlfJuXbE+Gga37t7zwd0egQ+KyOEHQOpcTwKmtZ81ieGHynAQzsn1We3j
wt760MsCPJ7GMT141ByQM+yW1Bx+4SG3IGjXWyqOWrcXsxAvIXkpUD/jK/L958Cg
nZEgz0BSEh0QxYLITnW1lLokSx/dTianWPFEhMC9BgijempgNXHNfcVirg1lPSyg
z7KqoKUN0oHqWLr2U1A+7kqrl6O2nx3CKs1bj1hToT1+p4kcMoHXA7kA+VBLUpEs
VwIDAQAB
-----END PUBLIC KEY-----
`
const webhookBody = '{"data":{"resource":{"id":49983981,"profile_id":16055450,"account_id":14124090,"type":"transfer"},"current_state":"incoming_payment_waiting","previous_state":null,"occurred_at":"2021-08-23T10:12:50Z"},"subscription_id":"90aa8e14-4ef1-4a56-861c-f3c9cde097ea","event_type":"transfers#state-change","schema_version":"2.0.0","sent_at":"2021-08-23T10:12:50Z"}'
const signatureHeader = "wKcKCYXAzxNgiu7xmoDm943NUni7Rz33QN8JkEA9dWSGebgndonabgSj18Y4C08OrwVmueGsED2s00M7DtJVcYKOS1i3G4TMVx+mgM3aL9djMBkQtiYNBFUd6wrPI7ZUNHv/TrlKSjTMc+6JFvUvJ7owY3z85e3I4jLRLJowMFvO8kvCJ60+1pY9wDwZvtZ//WS93LrwGjk9Dvwzpmu0w+P4J75tETT5qC3Uv0y5G2yO8SEoO3yNP/tg/BOli02niHb53vEOUWUb9bly6thnfMoXoiV/osoGxgF20R58RlvkAmezyyl1Sv542TfS2DpiwVnmjjjkCyXeSUcKookYLQ=="
// --- end of the verbatim part ---

// The example's check, as it is written there, for any body, signature and key.
function exampleVerifies(body, signature, pem) {
  const publicKey = crypto.createPublicKey({ key: pem, format: 'pem' });
  return crypto.verify(
    'RSA-SHA256',
    Buffer.from(body),
    { key: publicKey, padding: crypto.constants.RSA_PKCS1_PADDING },
    Buffer.from(signature, 'base64'),
  );
}

// Another RSA-2048 public key, made once for this file: a tenant configured
// with it must refuse Wise's request.
const OTHER = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAzAqBRU3SOGxrU31POu+l
GeNfAR6bDz9R+P9W6F7xOjKI9uFc6Ne4X6qu8YE/sVu6Z+fcK4fJ3utdr16mR5fU
2Cn0LbmgFGpDoTsNQ362B5B1hCHTjBQX4m4Fx8NXJmqz+oPfUeJp8A9Tp4w3NwKi
z3DyaSNNs2Vl6JK8WAPMnvnIZQ840cEO+IGehH1i2sHgjs6R0Ste5wl7OVljU4ZV
q32u523br8CowaGqQ9Z6Pf5MJb+BpuvS3f5FEJzujFlzkGc3Kqs5b16obXTFDeGJ
hXaRmMi0b7ql+skJ23ZUcAcrTHQlWTdyuuoU0Z1bFqssbAD0zJ1RTTT6BBa77v+f
BQIDAQAB
-----END PUBLIC KEY-----
`;
const SANDBOX = sandboxPubKey.trim() + '\n';
// The same key as one line of base64 DER, as an operator may paste it.
const SANDBOX_ONE_LINE = SANDBOX.split('\n').filter((l) => l && !l.startsWith('-----')).join('');

const DOCS = 'https://docs.wise.com/api-docs/features/webhooks-notifications/event-handling';
const EXAMPLE = 'https://github.com/transferwise/digital-signatures-examples/blob/main/verify-webhook-signature/verify-signature.js';
const HOOK_URL = 'https://hooks.example.com/webhooks/wise';
const NOW = Date.parse('2021-08-23T10:12:55Z') / 1000;
// X-Delivery-Id is not signed; this one is made up for the cases.
const DELIVERY_ID = '6f2e4b1c-3d5a-4e8f-9b7c-2a1d0e9f8c7b';
const HEADER = 'X-Signature-SHA256';
const TYPE = 'transfers#state-change';
const TAMPERED = webhookBody.replace('incoming_payment_waiting', 'incoming_payment_waitinh');

const req = (sig, body = webhookBody) => ({
  method: 'POST', url: HOOK_URL,
  headers: [
    ['Content-Type', 'application/json'],
    ['X-Delivery-Id', DELIVERY_ID],
    ...(sig === null ? [] : [[HEADER, sig]]),
  ],
  body, now: NOW,
});
const ok = { event_id: DELIVERY_ID, event_type: TYPE };
const cases = [
  { name: "Wise's signed example, verified with the sandbox key it prints", secrets: [SANDBOX], ...req(signatureHeader), expect: 'valid', ...ok },
  { name: 'the same key configured as one line of base64 DER', secrets: [SANDBOX_ONE_LINE], ...req(signatureHeader), expect: 'valid', ...ok },
  { name: 'rotation: the second configured key verifies', secrets: [OTHER, SANDBOX], ...req(signatureHeader), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SANDBOX], ...req(signatureHeader, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another RSA key', secrets: [OTHER], ...req(signatureHeader), expect: 'invalid_signature' },
  { name: `${HEADER} removed`, secrets: [SANDBOX], ...req(null), expect: 'missing_signature' },
];

function pem(secret) {
  if (secret.startsWith('-----')) return secret;
  return `-----BEGIN PUBLIC KEY-----\n${secret.match(/.{1,64}/g).join('\n')}\n-----END PUBLIC KEY-----\n`;
}
for (const c of cases) {
  const sig = c.headers.find(([k]) => k === HEADER)?.[1];
  const got = sig === undefined ? 'missing_signature'
    : c.secrets.some((s) => exampleVerifies(c.body, sig, pem(s))) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the example's check says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'wise',
  source: {
    kind: 'docs-example', package: '', registry: '', version: 'c29c3625cbf2afe571b045cea2fd1a5d99764f6b',
    function: 'verify-webhook-signature/verify-signature.js (crypto.verify RSA-SHA256, PKCS#1 v1.5)',
    url: EXAMPLE,
  },
  facts: {
    title: 'Wise',
    docs: DOCS,
    scheme: 'X-Signature-SHA256 = base64 RSA PKCS#1 v1.5 SHA-256 signature of the raw body, by Wise\'s key',
    secret: 'Wise\'s public key for the environment (sandbox or production), as the docs print it (PEM, or its base64 DER on one line)',
    timestamp: null,
    event_id: { header: 'X-Delivery-Id' },
    event_id_note: `"Each outgoing notification is assigned a unique delivery UUID" (X-Delivery-Id): ${DOCS}`,
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'redelivered at increasing intervals over a two week period, at most 25 times',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
