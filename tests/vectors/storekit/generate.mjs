// Known-answer vectors for storekit webhooks, which carry svix-id /
// svix-timestamp / svix-signature headers
// (https://storekit.com/docs/developers/webhooks/payload-format); storekit's
// docs recommend "the official Svix libraries for verification"
// (https://storekit.com/docs/developers/webhooks/verifying-signatures).
// Signed with that library (svix 2.5.0, Webhook.sign) and every verdict is
// its Webhook.verify. Also writes storekit's corpus captures
// (tests/captures/storekit/), signed and checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

const DOCS = 'https://storekit.com/docs/developers/webhooks/verifying-signatures';
const PAYLOAD = 'https://storekit.com/docs/developers/webhooks/payload-format';
// The documented payload: {"event", "data"}, here the docs' order.created
// example (PAYLOAD), trimmed, with the order as a parameter.
const order = (event, id, code, total) => JSON.stringify({ event, data: {
  id, code, total, tip: 250, orderType: 'Pickup', asap: true, createdAt: '2024-01-15T10:30:00Z',
  customer: { firstName: 'John', lastName: 'Doe', email: 'john@example.com', phone: '+44123456789' },
  items: [{ name: 'Margherita Pizza', price: 1200, quantity: 1, modifiers: [] }],
  venue: { id: 1234, name: 'My Restaurant', slug: 'my-restaurant' },
} });
const BODY = order('order.created', 'ord_abc123', 'A1B2', 2500);
const RETRIES = 'https://docs.svix.com/retries';

// The corpus captures: an order created, its retry (the same message ID,
// signed again later) and another order.
const ID1 = 'msg_2gR8storekitCorpus0001xY';
const ID2 = 'msg_2gR8storekitCorpus0002pQ';
const B1 = order('order.created', 'ord_def456', 'C3D4', 1800);
const B2 = order('order.created', 'ord_ghi789', 'E5F6', 3100);

generateSdkVectors({
  kind: 'storekit',
  headers: 'svix',
  secret: 'whsec_c3RvcmVraXQtdmVjdG9yLXNlY3JldC0wMQ==',
  msgId: 'msg_2gR8storekitVector0001cD',
  body: BODY,
  type: 'order.created',
  tamper: ['"total":2500', '"total":2501'],
  source: { function: 'Webhook.sign / Webhook.verify (the Svix library storekit\'s docs recommend)', url: DOCS },
  facts: {
    title: 'storekit',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s signing secret in the storekit dashboard, "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/event' },
    retry_horizon: 'not stated by storekit; the Svix schedule its headers come from retries for about 28 hours',
    retry_source: RETRIES,
    handshake: null,
  },
  corpus: {
    secret: 'whsec_c3RvcmVraXQtY29ycHVzLXNlY3JldC0wMQ==',
    shots: [
      ['0001-order-created.json', ID1, SENT - 20, B1, 'accepted', `an order.created webhook: ${PAYLOAD}`],
      ['0002-order-created-retried.json', ID1, SENT, B1, 'duplicate', `the same message resent after a failure, the same svix-id and a new timestamp: ${RETRIES}`],
      ['0003-order-created-next.json', ID2, SENT, B2, 'accepted', 'another order, under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
