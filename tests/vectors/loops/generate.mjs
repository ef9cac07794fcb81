// Known-answer vectors for Loops, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://loops.so/docs/webhooks).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: standardwebhooks 1.1.1 Webhook#verify, the Standard Webhooks reference library.
// It also writes the provider's corpus captures (tests/captures/loops/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'standardwebhooks';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'loops',
  title: 'Loops',
  docs: 'https://loops.so/docs/webhooks',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLWxvb3BzLXNpZ25pbmctc2VjcmV0',
  secretNote: 'the signing secret shown in Settings -> Webhooks, "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_2eTv0JTg6wBe4AJy7Nt2CvOk3Zq',
  // The documented common fields (eventName, webhookSchemaVersion, eventTime: https://loops.so/docs/webhooks) of the test event.
  body: { eventName: 'testing.testEvent', webhookSchemaVersion: '1.0.0', eventTime: 1734425918 },
  type: 'testing.testEvent',
  typePointer: '/eventName',
  tamper: ['1734425918', '1734425919'],
  idNote: 'Loops sends the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature (https://loops.so/docs/webhooks); webhook-id is the message ID, the same on every retry (Standard Webhooks spec)',
  retry: 'not stated on the pages read; the Standard Webhooks default window applies',
  retrySource: 'https://loops.so/docs/webhooks',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'standardwebhooks', version: '1.1.1' },
});
