// Known-answer vectors for AgentMail, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://docs.agentmail.to/api-reference/webhooks/events/message-delivered).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: svix 2.5.0 Webhook#verify, the library the provider's docs tell receivers to use.
// It also writes the provider's corpus captures (tests/captures/agentmail/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'svix';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'agentmail',
  title: 'AgentMail',
  docs: 'https://docs.agentmail.to/api-reference/webhooks/events/message-delivered',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLWFnZW50bWFpbC1zaWduaW5nLXNlY3JldA==',
  secretNote: 'the webhook\'s signing secret, "whsec_" + base64 (Svix); the HMAC key is the base64-decoded part',
  msgId: 'msg_2iXz4NXk0aFi8ENc1Rx6GzSo7du',
  // The documented message.delivered payload: type "event", event_type, event_id, delivery {inbox_id, thread_id, message_id, timestamp, recipients}.
  body: { type: 'event', event_type: 'message.delivered', event_id: 'evt_01JD2Q3R4S5T6U7V8W9X0Y1Z2A',
    delivery: { inbox_id: 'agent@agentmail.to', thread_id: 'thr_01JD2Q2M3N4P5Q6R7S8T9U0V1W', message_id: '<0100018c5e0b2a7b@email.example.com>',
      timestamp: '2025-12-22T10:00:00Z', recipients: ['someone@example.com'] } },
  type: 'message.delivered',
  typePointer: '/event_type',
  tamper: ['"someone@example.com"', '"someone@example.org"'],
  idNote: 'every webhook carries svix-id, svix-signature and svix-timestamp (https://docs.agentmail.to/api-reference/webhooks/events/message-delivered); svix-id is the Svix message ID, the same when a message is resent (https://docs.svix.com/receiving/verifying-payloads/how-manual)',
  retry: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
  retrySource: 'https://docs.svix.com/retries',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'svix', version: '2.5.0' },
});
