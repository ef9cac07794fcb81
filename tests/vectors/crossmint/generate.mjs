// Known-answer vectors for Crossmint webhooks, which are sent through Svix
// with svix-id / svix-timestamp / svix-signature headers; Crossmint's docs
// verify them with "the Svix open-source library"
// (https://docs.crossmint.com/introduction/platform/webhooks/verify-webhooks).
// Signed with that library (svix 2.5.0, Webhook.sign) and every verdict is
// its Webhook.verify. Also writes Crossmint's corpus captures
// (tests/captures/crossmint/), signed and checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

const DOCS = 'https://docs.crossmint.com/introduction/platform/webhooks/verify-webhooks';
// The documented user webhook shape: {"type", "status", "data"}
// (https://docs.crossmint.com/authentication/webhooks).
const userEvent = (type, data) => JSON.stringify({ type, status: 'success', data });
const BODY = userEvent('users.created', { userId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', email: 'test@test.com' });
const RETRIES = 'https://docs.crossmint.com/introduction/platform/webhooks/add-endpoint';

// The corpus captures: a user created, its retry (the same message ID,
// signed again later) and the user's update.
const ID1 = 'msg_2fQ7crossmintCorpus0001xY';
const ID2 = 'msg_2fQ7crossmintCorpus0002pQ';
const USER = '7c1e5a3b-9d2f-4e6a-8b0c-1d2e3f4a5b6c';
const B1 = userEvent('users.created', { userId: USER, email: 'ada@example.com' });
const B2 = userEvent('users.updated', { actionId: '5f0e9d8c', userId: USER, oldEmail: 'ada@example.com', newEmail: 'ada.l@example.com' });

generateSdkVectors({
  kind: 'crossmint',
  headers: 'svix',
  secret: 'whsec_Y3Jvc3NtaW50LXZlY3Rvci1zZWNyZXQtMDE=',
  msgId: 'msg_2fQ7crossmintVector0001aB',
  body: BODY,
  type: 'users.created',
  tamper: ['test@test.com', 'test@tesu.com'],
  source: { function: 'Webhook.sign / Webhook.verify (the Svix library Crossmint\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Crossmint',
    docs: DOCS,
    scheme: 'Svix: svix-signature = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, svix-id + "." + svix-timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s Signing Secret in the Crossmint Console (Integrate > Webhooks), "whsec_" + base64',
    timestamp: 'svix-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: 'svix-id' },
    event_id_note: 'svix-id is the Svix message ID, the same when the message is resent: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: '8 attempts on the Svix schedule (about 28 hours)',
    retry_source: RETRIES,
    handshake: null,
  },
  corpus: {
    secret: 'whsec_Y3Jvc3NtaW50LWNvcnB1cy1zZWNyZXQtMDE=',
    shots: [
      ['0001-users-created.json', ID1, SENT - 20, B1, 'accepted', 'a users.created webhook: https://docs.crossmint.com/authentication/webhooks'],
      ['0002-users-created-retried.json', ID1, SENT, B1, 'duplicate', `the same message resent after a failure, the same svix-id and a new timestamp: ${RETRIES}`],
      ['0003-users-updated.json', ID2, SENT, B2, 'accepted', 'the user\'s email updated, under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
