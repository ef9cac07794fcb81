// Known-answer vectors for Make (event subscriptions), which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://developers.make.com/event-subscription/implementation/verify-signatures).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: standardwebhooks 1.1.1 Webhook#verify, the Standard Webhooks reference library.
// It also writes the provider's corpus captures (tests/captures/make/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'standardwebhooks';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'make',
  title: 'Make (event subscriptions)',
  docs: 'https://developers.make.com/event-subscription/implementation/verify-signatures',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLW1ha2Utc2lnbmluZy1zZWNyZXQ=',
  secretNote: 'the subscription\'s signing secret, beginning with whsec_; the HMAC key is the base64-decoded rest',
  msgId: 'msg_2jYa5OYl1bGj9FOd2Sy7H0Tp8ev',
  // The event type travels in Webhook-Topic, "routing metadata" beside the Standard Webhooks headers.
  extraHeaders: [['Webhook-Topic', 'scenario.run.completed']],
  // An illustrative envelope: the vectors' identity comes from the headers.
  body: { topic: 'scenario.run.completed', data: { scenarioId: 4711, executionId: 'b8f0c7a2e1d34f5a9c6b', status: 'success' } },
  type: 'scenario.run.completed',
  typeSource: { header: 'Webhook-Topic' },
  tamper: ['"success"', '"succesS"'],
  idNote: 'Make\'s delivery ID, timestamp and signature "follow the Standard Webhooks 1.0 specification" (https://developers.make.com/event-subscription/implementation/verify-signatures), whose webhook-id is the message ID, kept when a message is resent',
  retry: 'not stated on the page read',
  retrySource: 'https://developers.make.com/event-subscription/implementation/verify-signatures',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'standardwebhooks', version: '1.1.1' },
});
