// Known-answer vectors for Render webhooks, which follow Standard Webhooks:
// webhook-id / webhook-timestamp / webhook-signature headers
// (https://render.com/docs/webhooks). Render's own example receiver
// (github.com/render-examples/webhook-receiver) verifies them with the
// `standardwebhooks` package's Webhook.verify; the vectors are signed with
// that package's Webhook.sign (1.1.1) and every verdict is its Webhook.verify.
// Also writes Render's corpus captures (tests/captures/render/), signed and
// checked the same way.
import { Webhook } from 'standardwebhooks';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The payload shape of the example receiver's WebhookPayload and of Render's
// events: {type, timestamp, data: {id, serviceId, serviceName, status}}.
const event = (type, id, status, at) => JSON.stringify({
  type, timestamp: at,
  data: { id, serviceId: 'srv-cukouhrtq21c73e9scng', serviceName: 'backend-api', status },
});
const BODY = event('deploy_ended', 'evj-cukouhrtq21c73e9scng', 'succeeded', '2023-11-14T22:13:18.000000Z');
const DOCS = 'https://render.com/docs/webhooks';

// The corpus captures: a delivery, its retry (same webhook-id, signed again
// later) and the next event. Signed at the corpus's fixed time.
const ID1 = 'evt-corpus-render-0001';
const ID2 = 'evt-corpus-render-0002';
const STARTED = event('deploy_started', 'evj-corpusrender000001', 'started', '2025-12-31T23:58:00.000000Z');
const ENDED = event('deploy_ended', 'evj-corpusrender000001', 'succeeded', '2025-12-31T23:59:30.000000Z');

generateSdkVectors({
  kind: 'render',
  headers: 'webhook',
  // Render's dashboard shows the secret with its whsec_ prefix; the example
  // receiver passes it to `new Webhook(secret)` as is.
  secret: 'whsec_cmVuZGVyLXZlY3RvcnMtc2lnbmluZy1rZXktMDE=',
  msgId: 'evt-d1a2b3c4e5f6a7b8c9d0',
  body: BODY,
  type: 'deploy_ended',
  tamper: ['succeeded', 'succeedec'],
  source: { function: 'Webhook.sign / Webhook.verify (the verifier of Render\'s example receiver, render-examples/webhook-receiver)', url: DOCS },
  facts: {
    title: 'Render',
    docs: DOCS,
    scheme: 'Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the webhook\'s signing secret from the Render Dashboard (Integrations > Webhooks), "whsec_" + base64',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id identifies the message and stays the same on its retries (Standard Webhooks: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md)',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'up to eight attempts with exponential backoff, the last about 33 hours after the first',
    retry_source: DOCS,
    handshake: null,
  },
  corpus: {
    secret: 'whsec_cmVuZGVyLWNvcnB1cy1zaWduaW5nLXNlY3JldC0x',
    shots: [
      ['0001-deploy-started.json', ID1, SENT - 60, STARTED, 'accepted', 'a deploy_started webhook: https://render.com/docs/webhooks'],
      ['0002-deploy-started-retried.json', ID1, SENT - 30, STARTED, 'duplicate', 'the same message retried (same webhook-id, new timestamp and signature): https://render.com/docs/webhooks'],
      ['0003-deploy-ended.json', ID2, SENT, ENDED, 'accepted', 'the deploy_ended that follows, under its own webhook-id'],
    ],
  },
  manifestNote: 'the verifier of Render\'s example receiver',
}, { here: import.meta.url, Webhook, library: { package: 'standardwebhooks', version: '1.1.1' } });
