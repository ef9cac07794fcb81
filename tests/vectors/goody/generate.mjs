// Known-answer vectors for Goody, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://developer.ongoody.com/webhooks/webhook-security).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: svix 2.5.0 Webhook#verify, the library the provider's docs tell receivers to use.
// It also writes the provider's corpus captures (tests/captures/goody/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'svix';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'goody',
  title: 'Goody',
  docs: 'https://developer.ongoody.com/webhooks/webhook-security',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLWdvb2R5LXNpZ25pbmctc2VjcmV0',
  secretNote: 'the endpoint\'s Signing Secret from the webhook\'s configuration page, "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_2bQp7GQd3tYb1xGv4Kq9ZsLh0Wn',
  // The docs' order_batch.created example (https://developer.ongoody.com/webhooks/events/order_batch.created), trimmed; its event_type as the docs print it.
  body: { event_type: 'gift_batch.created', id: 'ad097c47-bf12-45c9-8feb-0536a0012c09',
    data: { id: 'bd1fd5b5-6339-4331-a404-66200143ff0f', send_status: 'complete', from_name: 'John', message: 'Thank you!', gifts_count: 2 } },
  type: 'gift_batch.created',
  typePointer: '/event_type',
  tamper: ['"John"', '"Joan"'],
  idNote: 'Goody\'s webhooks "are sent by the Svix platform" (https://developer.ongoody.com/webhooks/overview); svix-id is the message ID, the same on every retry: https://docs.svix.com/receiving/verifying-payloads/how-manual',
  retry: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
  retrySource: 'https://docs.svix.com/retries',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'svix', version: '2.5.0' },
});
