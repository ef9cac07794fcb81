// Known-answer vectors for AhaSend, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://ahasend.com/docs/api-reference/webhooks).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: standardwebhooks 1.1.1 Webhook#verify, the Standard Webhooks reference library.
// It also writes the provider's corpus captures (tests/captures/ahasend/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'standardwebhooks';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'ahasend',
  title: 'AhaSend',
  docs: 'https://ahasend.com/docs/api-reference/webhooks',
  headers: 'webhook',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLWFoYXNlbmQtc2lnbmluZy1zZWNyZXQ=',
  secretNote: 'the webhook\'s signing secret, "whsec_" + base64 (Standard Webhooks); the HMAC key is the base64-decoded part',
  msgId: 'msg_2cRt8HRe4uZc2yHw5Lr0AtMi1Xo',
  // The documented envelope {type, timestamp, data} (https://ahasend.com/docs/api-reference/webhooks) of message.reception.
  body: { type: 'message.reception', timestamp: '2024-05-06T09:49:16.687031577Z',
    data: { account_id: '3f8a1c2e-9b7d-4e6f-a5c4-1d2e3f4a5b6c', event: 'reception', from: 'sender@example.com', recipient: 'someone@example.org', subject: 'Welcome', message_id_header: '<1c2d3e4f@example.com>', id: 'b7e2a9c4-5d6f-4a1b-8c3d-2e4f6a8b0c1d' } },
  type: 'message.reception',
  typePointer: '/type',
  tamper: ['"Welcome"', '"Welcomf"'],
  idNote: 'webhook-id is the "unique event identifier for idempotency" (https://ahasend.com/docs/api-reference/webhooks), so a retry carries the same one',
  retry: 'retried 6 times over 16+ minutes, exponential backoff with ±10% jitter',
  retrySource: 'https://ahasend.com/docs/api-reference/webhooks/retry-policy',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'standardwebhooks', version: '1.1.1' },
});
