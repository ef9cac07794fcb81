// Known-answer vectors for QuickBooks Online webhooks, from Intuit's own sample
// receiver, github.com/IntuitDeveloper/SampleApp-Webhooks-nodejs (commit de8c151):
// `isValidPayload` in util/util.js is copied below unchanged (its `config` object
// stood in for) and decides every case. The body is the sample payload of the docs
// (https://developer.intuit.com/app/developer/qbo/docs/develop/webhooks/managing-webhooks-notifications),
// compact as sent: the sample signs JSON.stringify of the parsed body, which is the
// raw body for compact JSON.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';

const require = createRequire(import.meta.url);
let config = { webhooksverifier: '' };

// --- util/util.js, verbatim ---
var crypto = require('crypto'); // for validating payload

/**
 * Validates the payload with the intuit-signature hash
 */
function isValidPayload(signature, payload) {
	var hash = crypto.createHmac('sha256', config.webhooksverifier).update(payload).digest('base64');
	if (signature === hash) {
		return true;
	}
	return false;
}
// --- end ---

const DOCS = 'https://developer.intuit.com/app/developer/qbo/docs/develop/webhooks/managing-webhooks-notifications';
const SAMPLE = 'https://github.com/IntuitDeveloper/SampleApp-Webhooks-nodejs/blob/master/util/util.js';
const TOKEN = 'a9c1e7b3-5d2f-4e8a-9b6c-3f1d0e2a4b5c';
const OTHER = 'f0e1d2c3-b4a5-4968-8776-655443322110';
const HOOK_URL = 'https://hooks.example.com/webhooks/quickbooks';
const NOW = 1700000000;
const BODY = JSON.stringify({
  eventNotifications: [{
    realmId: '1185883450',
    dataChangeEvent: {
      entities: [
        { name: 'Customer', id: '1', operation: 'Create', lastUpdated: '2015-10-05T14:42:19-0700' },
        { name: 'Vendor', id: '1', operation: 'Create', lastUpdated: '2015-10-05T14:42:19-0700' },
      ],
    },
  }],
});
const TAMPERED = BODY.replace('"Vendor"', '"Vendoq"');
const sign = (token, body = BODY) => crypto.createHmac('sha256', token).update(body).digest('base64');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['intuit-signature', sig]])],
  body, now: NOW,
});
const ok = { event_id: crypto.createHash('sha256').update(BODY).digest('hex') };
const sig = sign(TOKEN);
const cases = [
  { name: 'the docs\' sample notification, accepted by the sample\'s isValidPayload', secrets: [TOKEN], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured verifier token verifies', secrets: [OTHER, TOKEN], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [TOKEN], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another verifier token', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'intuit-signature removed', secrets: [TOKEN], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const s = c.headers.find(([k]) => k === 'intuit-signature')?.[1];
  const got = s === undefined ? 'missing_signature'
    : c.secrets.some((t) => { config = { webhooksverifier: t }; return isValidPayload(s, JSON.stringify(JSON.parse(c.body))); }) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the sample says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'quickbooks',
  source: { kind: 'docs-code', package: '', registry: '', version: 'de8c1518c94d910a5a8c2261f84e518b613c3199', function: 'util/util.js isValidPayload', url: SAMPLE },
  facts: {
    title: 'QuickBooks Online',
    docs: DOCS,
    scheme: 'intuit-signature = base64 HMAC-SHA256(verifier token, raw body)',
    secret: 'the app\'s webhooks Verifier Token (developer portal, Webhooks, Show Token)',
    timestamp: null,
    event_id: { body_sha256: true },
    event_id_note: 'a notification aggregates entity changes and carries no ID of its own: ' + DOCS,
    event_type: null,
    retry_horizon: null,
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
