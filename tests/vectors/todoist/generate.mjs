// Known-answer vectors for Todoist webhooks. Every request is signed here with Node's crypto and the
// official SDK's verifier, verifyWebhookSignature from @doist/todoist-sdk (pinned in package.json),
// decides every verdict; the script fails on any disagreement.
// SDK docs: https://doist.github.io/todoist-sdk-typescript/api/functions/verifyWebhookSignature
import { writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { verifyWebhookSignature, parseWebhookPayload } from '@doist/todoist-sdk';

const NOW = 1700000000;
const SECRET = '0b4e8a2f6c1d9e3a7b5f0c2d4e6a8b1c';   // an app's client_secret (hex, as the App Console shows it)
const OTHER = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const HOOK_URL = 'https://hooks.example.com/webhooks/todoist';
const DELIVERY_ID = '7c8d2e1a-3b4f-4a5e-9d6c-0b1a2f3e4d5c';
const BODY = JSON.stringify({
  event_name: 'item:added', user_id: '2671355', version: '1', triggered_at: '2023-11-14T22:13:15.000000Z',
  initiator: { id: '2671355', full_name: 'Alice', email: 'alice@example.com', image_id: null, is_premium: true },
  event_data: {
    id: '6X7rM8997g3RQmvh', user_id: '2671355', project_id: '6Jf8VQXxpwv56VQ7', section_id: null, parent_id: null,
    added_by_uid: '2671355', assigned_by_uid: null, responsible_uid: null, labels: [], deadline: null, duration: null,
    checked: false, is_deleted: false, added_at: '2023-11-14T22:13:14.000000Z', completed_at: null, updated_at: '2023-11-14T22:13:14.000000Z',
    due: null, priority: 1, child_order: 1, content: 'Buy milk', description: '', note_count: 0, day_order: -1, is_collapsed: false,
  },
});
// The SDK's own parser accepts the payload, so its shape is the one the SDK expects.
parseWebhookPayload(JSON.parse(BODY));
const TAMPERED = BODY.replace('Buy milk', 'Buy mild');

const sign = (secret, body = BODY) => createHmac('sha256', secret).update(body).digest('base64');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ['User-Agent', 'Todoist-Webhooks'], ['X-Todoist-Delivery-ID', DELIVERY_ID], ['X-Todoist-Hmac-SHA256', sig]],
  body, now: NOW,
});
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k !== 'X-Todoist-Hmac-SHA256') });
const sig = sign(SECRET);
const ok = { event_id: DELIVERY_ID, event_type: 'item:added' };
const cases = [
  { name: 'item:added signed with base64 HMAC-SHA256(client_secret, body), accepted by verifyWebhookSignature', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another client secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'a hex digest instead of base64 is rejected', secrets: [SECRET], ...req(createHmac('sha256', SECRET).update(BODY).digest('hex')), expect: 'invalid_signature' },
  { name: 'X-Todoist-Hmac-SHA256 removed', secrets: [SECRET], ...strip(req(sig)), expect: 'missing_signature' },
];

for (const c of cases) {
  const h = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let got;
  if (h['x-todoist-hmac-sha256'] === undefined) got = 'missing_signature';
  else {
    let valid = false;
    for (const s of c.secrets) valid ||= await verifyWebhookSignature({ rawBody: c.body, signature: h['x-todoist-hmac-sha256'], clientSecret: s });
    got = valid ? 'valid' : 'invalid_signature';
  }
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://developer.todoist.com/sync/v9/#webhooks';
const out = {
  kind: 'todoist',
  source: { kind: 'sdk', package: '@doist/todoist-sdk', registry: 'npm', version: '17.0.0', function: 'verifyWebhookSignature', url: 'https://doist.github.io/todoist-sdk-typescript/api/functions/verifyWebhookSignature' },
  facts: {
    title: 'Todoist',
    docs: DOCS,
    scheme: 'X-Todoist-Hmac-SHA256 = base64(HMAC-SHA256(app client_secret as UTF-8, raw body))',
    secret: 'the app\'s OAuth client_secret from the App Management Console',
    timestamp: null,
    event_id: { header: 'X-Todoist-Delivery-ID' },
    event_id_note: 'unique per notification and reused when a failed delivery is retried: ' + DOCS,
    event_type: { json_pointer: '/event_name' },
    retry_horizon: 'a failed delivery is retried after 15 minutes, up to three attempts (under the default window)',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
