// Known-answer vectors for Azure DevOps service hooks (Web Hooks consumer).
// Azure DevOps signs nothing: a Web Hooks subscription may carry "Basic
// authentication username" and "Basic authentication password", sent as an
// HTTP Basic Authorization header, and Microsoft requires HTTPS for it
// (https://learn.microsoft.com/azure/devops/service-hooks/services/webhooks).
// The verdict is RFC 7617: the header equals "Basic " + base64(user:password)
// for one of the tenant's user:password secrets. Also writes the corpus
// captures (tests/captures/azure-devops/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
const SECRET = 'hookline:ado-s3cr3t-Pa55word';
const OTHER = 'hookline:another-password';
const HOOK_URL = 'https://hooks.example.com/webhooks/azure-devops';
// The documented git.push event (trimmed):
// https://learn.microsoft.com/azure/devops/service-hooks/events#git.push
const push = (id, notificationId, commit) => JSON.stringify({
  subscriptionId: '00000000-0000-0000-0000-000000000000', notificationId, id, eventType: 'git.push', publisherId: 'tfs',
  message: { text: 'Jamal Hartnett pushed updates to Fabrikam-Fiber-Git:master.' },
  resource: { commits: [{ commitId: commit, author: { name: 'Jamal Hartnett', email: 'fabrikamfiber4@hotmail.com', date: '2015-02-25T19:01:00Z' }, comment: 'Fixed bug in web.config file' }],
    refUpdates: [{ name: 'refs/heads/master', oldObjectId: 'aad331d8d3b131fa9ae03cf5e53965b51942618a', newObjectId: commit }],
    repository: { id: '278d5cd2-584d-4b63-824a-2ba458937249', name: 'Fabrikam-Fiber-Git' }, pushId: 14, date: '2014-05-02T19:17:13.3309587Z' },
  resourceVersion: '1.0', createdDate: '2023-11-14T22:13:18.000Z',
});
const BODY = push('03c164c2-8912-4d5e-8009-3707d5f83734', 3, '33b55f7cb7e7e245323987634f960cf4a6e6bc74');
const basic = (userPass) => `Basic ${Buffer.from(userPass).toString('base64')}`;
const request = (userPass, body = BODY) => {
  const headers = [['Content-Type', 'application/json; charset=utf-8']];
  if (userPass !== null) headers.push(['Authorization', basic(userPass)]);
  return { method: 'POST', url: HOOK_URL, headers, body, now: NOW };
};
const cases = [
  { name: 'git.push with the subscription\'s Basic credentials', secrets: [SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'rotation: the second configured user:password matches', secrets: [OTHER, SECRET], ...request(SECRET), expect: 'valid' },
  { name: 'the request carries another password', secrets: [SECRET], ...request(OTHER), expect: 'invalid_signature' },
  { name: 'verified against another configured password', secrets: [OTHER], ...request(SECRET), expect: 'invalid_signature' },
  { name: 'Authorization header removed', secrets: [SECRET], ...request(null), expect: 'missing_signature' },
];
const verdict = (c) => {
  const h = c.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  return h === undefined ? 'missing_signature' : c.secrets.some((s) => basic(s) === h) ? 'valid' : 'invalid_signature';
};
for (const c of cases) if (verdict(c) !== c.expect) throw new Error(`${c.name}: ${verdict(c)} != ${c.expect}`);

const DOCS = 'https://learn.microsoft.com/azure/devops/service-hooks/services/webhooks';
const out = {
  kind: 'azure-devops',
  source: { kind: 'docs-example', package: '', registry: '', version: '',
    function: 'the Web Hooks subscription\'s Basic authentication username and password, as documented (RFC 7617)', url: DOCS },
  facts: {
    title: 'Azure DevOps service hooks',
    docs: DOCS,
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(username:password) set on the Web Hooks subscription; the body is not signed',
    secret: 'the subscription\'s Basic authentication username and password, written user:password',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'every service hook event carries its own id beside eventType; notificationId numbers the subscription\'s notifications: https://learn.microsoft.com/azure/devops/service-hooks/events',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'not stated: the default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

const CORPUS_SECRET = 'ado-corpus:7f3b1d9e-corpus-password';
const DIR = new URL('../../captures/azure-devops/', import.meta.url);
const P1 = push('5a1e7c93-2b4d-4f6a-8c0e-1d3f5b7a9c20', 41, '9d0c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170');
const P2 = push('6b2f8da4-3c5e-4a7b-9d1f-2e4a6c8b0d31', 42, 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678');
const shots = [
  ['0001-git-push.json', P1, 'accepted', 'a git.push event: https://learn.microsoft.com/azure/devops/service-hooks/events#git.push'],
  ['0002-git-push-again.json', P1, 'duplicate', 'the same event delivered again (its id seen before)'],
  ['0003-git-push-next.json', P2, 'accepted', 'the next push, under its own event id'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, body, expect, why] of shots) {
  const capture = { provider: 'azure-devops', kind: 'azure-devops', tenant: 'default', method: 'POST', path: '/webhooks/azure-devops', query: '',
    headers: [['Content-Type', 'application/json; charset=utf-8'], ['Authorization', basic(CORPUS_SECRET)]],
    body_base64: Buffer.from(body).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  const j = JSON.parse(body);
  captures.push({ file: `azure-devops/${file}`, expect, events: [{ id: j.id, type: j.eventType }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'azure-devops', kind: 'azure-devops', secrets: [CORPUS_SECRET],
  source: 'nothing is signed: the subscription\'s Basic credentials (https://learn.microsoft.com/azure/devops/service-hooks/services/webhooks): tests/vectors/azure-devops/generate.mjs', captures }, null, 2) + '\n');
console.log(`azure-devops: ${cases.length} cases, ${captures.length} captures`);
