// Known-answer vectors for Swipelux webhooks. "Swipelux delivers webhooks
// through Svix. Verify deliveries with the Svix signature headers" svix-id,
// svix-timestamp and svix-signature (https://docs.swipelux.com/concepts/webhooks).
// Signed with svix 2.5.0 Webhook.sign and every verdict is its Webhook.verify.
// Also writes Swipelux's corpus captures (tests/captures/swipelux/), signed and
// checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The documented delivery shape {"type", "data", "createdAt"}
// (https://docs.swipelux.com/reference/webhooks), a transfer.completed event.
const transferCompleted = (id, customer, at) => JSON.stringify({
  type: 'transfer.completed',
  data: { id, onBehalfOf: customer, state: 'completed' },
  createdAt: at,
});
const BODY = transferCompleted('tr_8f2k1m9q', 'cus_abc123', 1704067200000);
const DOCS = 'https://docs.swipelux.com/concepts/webhooks';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1swipeCorpus0001xYzWqR';
const ID2 = 'msg_2cA1swipeCorpus0002pQrStU';
const BODY2 = transferCompleted('tr_3h7n2p5w', 'cus_def456', 1767225600000);

generateSdkVectors({
  kind: 'swipelux',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bXswipeQe3LmT7vR1pN4sY8wZ',
  body: BODY,
  type: 'transfer.completed',
  tamper: ['cus_abc123', 'cus_abc124'],
  source: { function: 'Webhook.sign / Webhook.verify (Svix, through which Swipelux\'s docs say it delivers)', url: DOCS },
  facts: {
    title: 'Swipelux',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the Svix endpoint\'s signing secret, "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  corpus: {
    secret: 'whsec_c3dpcGVsdXgtY29ycHVzLXNpZ25pbmctc2VjcmV0',
    shots: [
      ['0001-transfer-completed.json', ID1, SENT - 20, BODY, 'accepted', 'a transfer.completed webhook: https://docs.swipelux.com/reference/webhooks'],
      ['0002-transfer-completed-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
      ['0003-transfer-completed-other.json', ID2, SENT, BODY2, 'accepted', 'another transfer.completed under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
