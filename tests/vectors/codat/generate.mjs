// Known-answer vectors for Codat webhooks. Codat's docs tell consumers to
// verify with the Svix library ("we suggest using a library called Svix"), and
// their example passes svix-id / svix-timestamp / svix-signature headers
// (https://docs.codat.io/using-the-api/webhooks/create-consumer). Signed with
// svix 2.5.0 Webhook.sign and every verdict is its Webhook.verify. Also writes
// Codat's corpus captures (tests/captures/codat/), signed and checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The new event schema (https://docs.codat.io/using-the-api/webhooks/migration-guide),
// a read.completed event, trimmed.
const readCompleted = (id, dataType) => JSON.stringify({
  id,
  eventType: 'read.completed',
  generatedDate: '2024-08-07T12:02:32.15033Z',
  payload: {
    referenceCompany: { id: '8a210b68-6988-11ed-a1eb-0242ac120002', name: 'Toft stores',
      links: { portal: 'https://app.codat.io/companies/8a210b68-6988-11ed-a1eb-0242ac120002/summary' } },
    dataType, datasetId: '1541a5ee-0d84-4b6e-a7f7-c07c1f216333', datasetStatus: 'Complete',
  },
});
const BODY = readCompleted('a9367074-b5c3-42c4-9be4-be129f43577e', 'creditNotes');
const DOCS = 'https://docs.codat.io/using-the-api/webhooks/create-consumer';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1codatCorpus0001xYzWqR';
const ID2 = 'msg_2cA1codatCorpus0002pQrStU';
const BODY2 = readCompleted('b1c2d3e4-0000-4c4c-8d8d-0123456789ab', 'invoices');

generateSdkVectors({
  kind: 'codat',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bXcodatQe3LmT7vR1pN4sY8wZ',
  body: BODY,
  type: 'read.completed',
  tamper: ['creditNotes', 'creditNoteS'],
  source: { function: 'Webhook.sign / Webhook.verify (the Svix library Codat\'s docs name for verification)', url: DOCS },
  facts: {
    title: 'Codat',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing secret (Monitor > Webhooks > Events > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is retried or replayed: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/eventType' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.codat.io/using-the-api/webhooks/troubleshooting',
    handshake: null,
  },
  corpus: {
    secret: 'whsec_Y29kYXQtY29ycHVzLXNpZ25pbmctc2VjcmV0LTAx',
    shots: [
      ['0001-read-completed.json', ID1, SENT - 20, BODY, 'accepted', 'a read.completed event in the new schema: https://docs.codat.io/using-the-api/webhooks/migration-guide'],
      ['0002-read-completed-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.codat.io/using-the-api/webhooks/troubleshooting'],
      ['0003-read-completed-invoices.json', ID2, SENT, BODY2, 'accepted', 'another read.completed under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
