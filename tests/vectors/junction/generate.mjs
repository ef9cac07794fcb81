// Known-answer vectors for Junction (formerly Vital) webhooks. Each request
// carries svix-id, svix-timestamp and svix-signature, and Junction's docs send
// consumers to "the official Svix SDKs" to verify them
// (https://docs.junction.com/webhooks/introduction#authenticating-webhooks).
// Signed with svix 2.5.0 Webhook.sign and every verdict is its Webhook.verify.
// Also writes Junction's corpus captures (tests/captures/junction/), signed and
// checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The standard event structure (https://docs.junction.com/webhooks/event-structure):
// {data, event_type, user_id, client_user_id, team_id}; its
// provider.connection.created example.
const connectionCreated = (userId, slug, name) => JSON.stringify({
  data: { source: { logo: `https://storage.googleapis.com/vital-assets/${slug}.png`, name, slug }, user_id: userId },
  event_type: 'provider.connection.created',
  user_id: userId,
  client_user_id: '01HW3FSNVCHC3B2QB5N0ZAAAVG',
  team_id: '6b74423d-0504-4470-9afb-477252ccf67a',
});
const BODY = connectionCreated('4a29dbc7-6db3-4c83-bfac-70a20a4be1b2', 'freestyle_libre_ble', 'Freestyle Libre BLE');
const DOCS = 'https://docs.junction.com/webhooks/introduction';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1junctionCorpus0001xYzW';
const ID2 = 'msg_2cA1junctionCorpus0002pQrS';
const BODY2 = connectionCreated('9d0c4b2e-1f3a-4e5b-8c6d-7e8f9a0b1c2d', 'oura', 'Oura');

generateSdkVectors({
  kind: 'junction',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bXjunctionQe3LmT7vR1pN4sY',
  body: BODY,
  type: 'provider.connection.created',
  tamper: ['Freestyle', 'Freestylf'],
  source: { function: 'Webhook.sign / Webhook.verify (the official Svix SDK Junction\'s docs name for verification)', url: DOCS },
  facts: {
    title: 'Junction (Vital)',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing Secret (Junction Dashboard > Webhooks > Endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
    retry_source: 'https://docs.junction.com/webhooks/retry-policy',
    handshake: null,
  },
  corpus: {
    secret: 'whsec_anVuY3Rpb24tY29ycHVzLXNpZ25pbmctc2VjcmV0',
    shots: [
      ['0001-connection-created.json', ID1, SENT - 20, BODY, 'accepted', 'a provider.connection.created event: https://docs.junction.com/webhooks/event-structure'],
      ['0002-connection-created-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.junction.com/webhooks/retry-policy'],
      ['0003-connection-created-other-user.json', ID2, SENT, BODY2, 'accepted', 'another user\'s connection under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
