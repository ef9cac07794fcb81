// Known-answer vectors for Mattermost outgoing webhooks sent as
// application/json. Mattermost signs nothing: every request carries the
// outgoing webhook's token in the body's `token`, beside team_id, channel_id,
// post_id, text, trigger_word, user_id and timestamp
// (https://developers.mattermost.com/integrate/webhooks/outgoing/: "Choose the
// content type ... If application/json is chosen, the server will format the
// request body as JSON"). The verdict: the body's `token` equals one of the
// tenant's tokens. Also writes the corpus captures (tests/captures/mattermost/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'xbxkyf6abpbkmj1uxg5qpkqb7h';
const OTHER = 'e5qm6jjfmjgkmc9gsw5tyr7szy';
const HOOK_URL = 'https://hooks.example.com/webhooks/mattermost';
// The docs' example request, as JSON.
const post = (token, postId, text, ts) => JSON.stringify({
  ...(token === undefined ? {} : { token }),
  team_id: 'md2o3h6rb7bsjqmqapcdf9tcbh', team_domain: 'someteam', channel_id: 'hberoyb3zpn8xd1t9paxutscpe', channel_name: 'town-square',
  timestamp: ts, user_id: 'rnina9994bde8mua79zqcg5hmo', user_name: 'somename', post_id: postId,
  text, trigger_word: '#build', file_ids: '',
});
const BODY = post(SECRET, 'gdm3dwyiqbnqp8grxx4e4i6icr', '#build the tests', 1699999998000);
const request = (body) => ({ method: 'POST', url: HOOK_URL, headers: [['Content-Type', 'application/json']], body, now: NOW });
const cases = [
  { name: 'a #build post carrying the webhook\'s token', secrets: [SECRET], ...request(BODY), expect: 'valid' },
  { name: 'tenant holds the old and the new token (after Regenerate Token)', secrets: [OTHER, SECRET], ...request(BODY), expect: 'valid' },
  { name: 'one byte of the token changed', secrets: [SECRET], ...request(post(SECRET.slice(0, -1) + 'x', 'gdm3dwyiqbnqp8grxx4e4i6icr', '#build the tests', 1699999998000)), expect: 'invalid_signature' },
  { name: 'verified with another token', secrets: [OTHER], ...request(BODY), expect: 'invalid_signature' },
  { name: 'the token field removed', secrets: [SECRET], ...request(post(undefined, 'gdm3dwyiqbnqp8grxx4e4i6icr', '#build the tests', 1699999998000)), expect: 'missing_signature' },
];
const verdict = (c) => {
  const t = JSON.parse(c.body).token;
  return t === undefined ? 'missing_signature' : c.secrets.includes(t) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://developers.mattermost.com/integrate/webhooks/outgoing/';
const out = {
  kind: 'mattermost',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the outgoing webhook\'s token carried in the body, as documented', url: DOCS },
  facts: {
    title: 'Mattermost outgoing webhooks',
    docs: DOCS,
    scheme: 'body token: the JSON body\'s `token` equals the outgoing webhook\'s token; nothing is signed (the webhook\'s content type must be application/json)',
    secret: 'the outgoing webhook\'s Token, shown after it is created (Integrations > Outgoing Webhooks)',
    timestamp: null,
    event_id: { json_pointer: '/post_id' },
    event_id_note: 'each request reports one post, named by post_id',
    event_type: { json_pointer: '/trigger_word' },
    retry_horizon: 'not documented: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'corpus9kq3xw7m1bz5rt8ha2ye6c';
const DIR = new URL('../../captures/mattermost/', import.meta.url);
const P1 = post(CORPUS_SECRET, 'p8x4k2mwd7fzb3n9qt6ry1ca5e', '#build main', 1767225580000);
const P2 = post(CORPUS_SECRET, 'q1w5e9r3t7y2u6i0o4p8a3s7dh', '#build release', 1767225595000);
const shots = [
  ['0001-post.json', P1, 'accepted', 'a post matching the trigger word: ' + DOCS],
  ['0002-post-again.json', P1, 'duplicate', 'the same post delivered again (its post_id seen before)'],
  ['0003-post-next.json', P2, 'accepted', 'another post, under its own post_id'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'mattermost', kind: 'mattermost', tenant: 'default', method: 'POST', path: '/webhooks/mattermost', query: '',
    headers: [['Content-Type', 'application/json']], body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const j = JSON.parse(body);
  captures.push({ file: `mattermost/${file}`, expect, events: [{ id: j.post_id, type: j.trigger_word }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'mattermost', kind: 'mattermost', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the body\'s `token` (' + DOCS + '): tests/vectors/mattermost/generate.mjs', captures }, null, 2) + '\n');
console.log(`mattermost: ${cases.length} cases, ${captures.length} captures`);
