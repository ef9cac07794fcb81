// Known-answer vectors for Microsoft Teams outgoing webhooks, from Microsoft's own
// sample receiver, github.com/OfficeDev/msteams-samples-outgoing-webhook-nodejs
// (app.js, commit 26be3ef), which the Teams docs point to
// (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-outgoing-webhook).
// Its HMAC lines are copied below unchanged and decide every case; its example
// shared secret is the test secret. No SDK verifies outgoing webhooks.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// The sample's check, its lines verbatim, as a function of the secret, the
// payload and the Authorization header.
function sampleAccepts(sharedSecret, payload, auth) {
const crypto = require('crypto');
const bufSecret = Buffer(sharedSecret, "base64");
			var msgBuf = Buffer.from(payload, 'utf8');
			var msgHash = "HMAC " + crypto.createHmac('sha256', bufSecret).update(msgBuf).digest("base64");
			return (msgHash === auth);
}

const DOCS = 'https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-outgoing-webhook';
const SAMPLE = 'https://github.com/OfficeDev/msteams-samples-outgoing-webhook-nodejs/blob/master/app.js';
const SECRET = '+ZaRRMC8+mpnfGaGsBOmkIFt98bttL5YQRq3p2tXgcE='; // the sample's example
const OTHER = 'YW5vdGhlci10ZWFtcy1zZWN1cml0eS10b2tlbi0zMmI=';
const HOOK_URL = 'https://hooks.example.com/webhooks/microsoft-teams';
const NOW = 1700000000;
const ID = '1700000000123';
// An @mention as Teams posts it: a Bot Framework message activity.
const BODY = JSON.stringify({
  type: 'message', id: ID, timestamp: '2023-11-14T22:13:20.123Z', localTimestamp: '2023-11-14T14:13:20.123-08:00',
  serviceUrl: 'https://smba.trafficmanager.net/amer/', channelId: 'msteams',
  from: { id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85gQtHieVkKilBZ9XHoq9j7Zaqt7CZ-NJWi7me2kHTL3Bw', name: 'Megan Bowen', aadObjectId: '7faf2b9c-fd1b-4a3a-8d5e-2b5ed3f0d8a1' },
  conversation: { isGroup: true, id: '19:253b1f341670408fb6fe51050b6e5ceb@thread.skype;messageid=1700000000123', name: null },
  recipient: null, textFormat: 'plain', attachmentLayout: null,
  attachments: [{ contentType: 'text/html', content: '<div><span itemscope itemtype="http://schema.skype.com/Mention" itemid="0">Sample</span> hello</div>' }],
  entities: [{ type: 'clientInfo', locale: 'en-US', country: 'US', platform: 'Web' }],
  channelData: { teamsChannelId: '19:253b1f341670408fb6fe51050b6e5ceb@thread.skype', teamsTeamId: '19:712c61d0ef384e5fa681ba90ddcea7c6@thread.skype',
    channel: { id: '19:253b1f341670408fb6fe51050b6e5ceb@thread.skype' }, team: { id: '19:712c61d0ef384e5fa681ba90ddcea7c6@thread.skype' },
    tenant: { id: '72f988bf-86f1-41af-91ab-2d7cd011db47' } },
  text: '<at>Sample</at> hello',
});
const TAMPERED = BODY.replace('hello</div>', 'hellp</div>');
const sign = (secret, body = BODY) => 'HMAC ' + require('crypto').createHmac('sha256', Buffer.from(secret, 'base64')).update(body, 'utf8').digest('base64');
const req = (auth, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json; charset=utf-8'], ...(auth === null ? [] : [['Authorization', auth]])],
  body, now: NOW,
});
const ok = { event_id: ID, event_type: 'message' };
const auth = sign(SECRET);
const cases = [
  { name: 'an @mention, accepted by the sample receiver\'s HMAC check', secrets: [SECRET], ...req(auth), expect: 'valid', ...ok },
  { name: 'rotation: the second configured security token verifies', secrets: [OTHER, SECRET], ...req(auth), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(auth, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another security token', secrets: [OTHER], ...req(auth), expect: 'invalid_signature' },
  { name: 'keyed with the token\'s text instead of its base64-decoded bytes', secrets: [SECRET], ...req('HMAC ' + require('crypto').createHmac('sha256', SECRET).update(BODY).digest('base64')), expect: 'invalid_signature' },
  { name: 'the digest without its "HMAC " prefix', secrets: [SECRET], ...req(auth.slice(5)), expect: 'invalid_signature' },
  { name: 'Authorization removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];
for (const c of cases) {
  const h = c.headers.find(([k]) => k === 'Authorization')?.[1];
  const got = h === undefined ? 'missing_signature' : c.secrets.some((s) => sampleAccepts(s, c.body, h)) ? 'valid' : 'invalid_signature';
  if (got !== c.expect) throw new Error(`${c.name}: the sample says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'microsoft-teams',
  source: { kind: 'docs-code', package: '', registry: '', version: '26be3eff353985c2e45d2496607050689a99ce45', function: 'app.js (Authorization check)', url: SAMPLE },
  facts: {
    title: 'Microsoft Teams (outgoing webhooks)',
    docs: DOCS,
    scheme: 'Authorization: HMAC <base64 HMAC-SHA256(base64-decoded security token, raw body)>',
    secret: 'the security token Teams shows once when the outgoing webhook is created (base64)',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'the activity id of the message that @mentioned the webhook',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'no retries documented; the answer is posted as the reply in the channel',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
