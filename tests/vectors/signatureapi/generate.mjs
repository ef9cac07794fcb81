// Known-answer vectors for SignatureAPI, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://signatureapi.com/docs/api/guides/how-to/verify-webhooks).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: standardwebhooks 1.1.1 Webhook#verify, the Standard Webhooks reference library.
// It also writes the provider's corpus captures (tests/captures/signatureapi/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'standardwebhooks';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'signatureapi',
  title: 'SignatureAPI',
  docs: 'https://signatureapi.com/docs/api/guides/how-to/verify-webhooks',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLXNpZ25hdHVyZWFwaS1zZWNyZXQ=',
  secretNote: 'the endpoint\'s Signing Secret (Dashboard > Settings > Webhooks), "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_2dSu9ISf5vAd3zIx6Ms1BuNj2Yp',
  // The docs' recipient.completed event object (https://signatureapi.com/docs/api/webhooks).
  body: { id: 'evt_4p2oouvNvjp1I9ckgqycH2', type: 'recipient.completed', timestamp: '2025-12-31T15:00:01.999Z',
    data: { envelope_id: 'e387553d-cbb7-4924-abd8-b2d89699e9b5', envelope_metadata: { customer_ref: 'x9550501', account_annual_revenue: '$4,500,000' },
      object_id: 're_7v7Sion0vqjJioYmwfZ9mf', object_type: 'recipient', recipient_type: 'signer' } },
  type: 'recipient.completed',
  typePointer: '/type',
  tamper: ['"x9550501"', '"x9550502"'],
  idNote: 'SignatureAPI signs each delivery following the Standard Webhooks specification (https://signatureapi.com/docs/api/guides/how-to/verify-webhooks), whose webhook-id is the message ID, the same when a message is resent',
  retry: 'SignatureAPI retries failed deliveries and tells receivers to expect duplicates; the pages read give no schedule',
  retrySource: 'https://signatureapi.com/docs/api/webhooks',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'standardwebhooks', version: '1.1.1' },
});
