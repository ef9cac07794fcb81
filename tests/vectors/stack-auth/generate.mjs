// Known-answer vectors for Stack Auth webhooks. Stack Auth signs the payload
// with the endpoint's secret and tells consumers to verify "using the Svix
// client library", with the svix-id / svix-timestamp / svix-signature headers
// (https://docs.stack-auth.com/docs/apps/webhooks). Signed with svix 2.5.0
// Webhook.sign and every verdict is its Webhook.verify. Also writes Stack
// Auth's corpus captures (tests/captures/stack-auth/), signed and checked the
// same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The documented payload {"type", "data"}
// (https://docs.stack-auth.com/docs/apps/webhooks), a team.created event.
const teamCreated = (id, name) => JSON.stringify({
  type: 'team.created',
  data: { id, display_name: name, profile_image_url: null, client_metadata: null, server_metadata: null, created_at_millis: 1735689600000 },
});
const BODY = teamCreated('2209422a-eef7-4668-967d-be79409972c5', 'My Team');
const DOCS = 'https://docs.stack-auth.com/docs/apps/webhooks';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1stackCorpus0001xYzWqR';
const ID2 = 'msg_2cA1stackCorpus0002pQrStU';
const BODY2 = teamCreated('7c1e5a9b-3d2f-4e6a-8b0c-1d2e3f4a5b6c', 'Second Team');

generateSdkVectors({
  kind: 'stack-auth',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bXstackQe3LmT7vR1pN4sY8wZ',
  body: BODY,
  type: 'team.created',
  tamper: ['My Team', 'My Tean'],
  source: { function: 'Webhook.sign / Webhook.verify (the Svix client library Stack Auth\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Stack Auth',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the webhook endpoint\'s secret (dashboard > Webhooks > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  corpus: {
    secret: 'whsec_c3RhY2stYXV0aC1jb3JwdXMtc2lnbmluZy1zZWNyZXQ=',
    shots: [
      ['0001-team-created.json', ID1, SENT - 20, BODY, 'accepted', 'a team.created webhook: https://docs.stack-auth.com/docs/apps/webhooks'],
      ['0002-team-created-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
      ['0003-team-created-other.json', ID2, SENT, BODY2, 'accepted', 'another team.created under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
