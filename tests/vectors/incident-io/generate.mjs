// Known-answer vectors for incident.io webhooks, which are "powered by Svix"
// and arrive with unbranded webhook-id / webhook-timestamp / webhook-signature
// headers (https://docs.incident.io/api-reference/webhooks). Signed with the
// Svix client library the docs point to (svix 2.5.0, Webhook.sign) and every
// verdict is its Webhook.verify. Also writes incident.io's corpus captures
// (tests/captures/incident-io/), signed and checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The documented shape: {"event_type": T, T: {...}}
// (https://docs.incident.io/api-reference/follow-up-v2/updated-public), trimmed.
const followUp = (id, status) => JSON.stringify({
  event_type: 'public_incident.follow_up_updated_v2',
  'public_incident.follow_up_updated_v2': {
    id, incident_id: '01FCNDV6P870EA6S7TK1DSYDG0', title: 'Cat is stuck in the tree',
    description: 'Call the fire brigade', status, labels: ['bug', 'urgent'],
    created_at: '2021-08-17T13:28:57.801578Z', updated_at: '2021-08-17T13:28:57.801578Z',
  },
});
const BODY = followUp('01FCNDV6P870EA6S7TK1DSYDG0', 'outstanding');
const DOCS = 'https://docs.incident.io/api-reference/webhooks';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1incidentCorpus0001xYzW';
const ID2 = 'msg_2cA1incidentCorpus0002pQrS';
const BODY2 = followUp('01FCNDV6P870EA6S7TK1DSYDG1', 'completed');

generateSdkVectors({
  kind: 'incident-io',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bX9kQe3LmT7vR1pN4sY8wZ0aC6',
  body: BODY,
  type: 'public_incident.follow_up_updated_v2',
  tamper: ['outstanding', 'outstandinh'],
  source: { function: 'Webhook.sign / Webhook.verify (the Svix client library incident.io\'s docs name)', url: DOCS },
  facts: {
    title: 'incident.io',
    docs: DOCS,
    scheme: 'Svix / Standard Webhooks: webhook-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, webhook-id + "." + webhook-timestamp + "." + raw body))>"',
    secret: 'the Signing secret of the webhook endpoint (Settings > Webhooks), "whsec_" + base64',
    timestamp: 'webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'webhook-id' },
    event_id_note: 'webhook-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'resent with backoff over the next 24 hours (Svix schedule, about 28 hours in all)',
    retry_source: DOCS,
    handshake: null,
  },
  corpus: {
    secret: 'whsec_aW5jaWRlbnQtaW8tY29ycHVzLXNlY3JldC0wMQ==',
    shots: [
      ['0001-follow-up-updated.json', ID1, SENT - 20, BODY, 'accepted', 'a public_incident.follow_up_updated_v2 webhook: https://docs.incident.io/api-reference/follow-up-v2/updated-public'],
      ['0002-follow-up-updated-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message resent after a failure, the same webhook-id and a new timestamp: https://docs.incident.io/api-reference/webhooks'],
      ['0003-follow-up-completed.json', ID2, SENT, BODY2, 'accepted', 'another follow-up update under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
