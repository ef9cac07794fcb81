// Known-answer vectors for OpenMeter, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://openmeter.io/docs/guides/webhooks).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: svix 2.5.0 Webhook#verify, the library the provider's docs tell receivers to use.
// It also writes the provider's corpus captures (tests/captures/openmeter/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'svix';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'openmeter',
  title: 'OpenMeter',
  docs: 'https://openmeter.io/docs/guides/webhooks',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  corpusSecret: 'whsec_Y29ycHVzLW9wZW5tZXRlci1zaWduaW5nLXNlY3JldA==',
  secretNote: 'the webhook channel\'s signing secret, "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_2gVx2LVi8yDg6CLa9Pv4ExQm5bs',
  // The docs' balance notification event (https://openmeter.io/docs/guides/notifications/event), trimmed.
  body: { id: '01J5WM6QZJ3QKX4F1B7E4Y8T2C', type: 'entitlements.balance.threshold', createdAt: '2024-08-22T08:45:10.123Z',
    data: { entitlement: { id: '01J5WM25BAXSCBKG2D9NDYJB6S', featureId: '01J5WKAM9FJ4621ARR641JS17Q', featureKey: 'llm_tokens',
      subjectKey: 'notification-test-2', currentUsagePeriod: { from: '2024-08-22T08:43:00Z', to: '2024-08-29T08:43:00Z' } },
      threshold: { type: 'NUMBER', value: 2000 } } },
  type: 'entitlements.balance.threshold',
  typePointer: '/type',
  tamper: ['"llm_tokens"', '"llm_tokenz"'],
  idNote: 'OpenMeter "uses the Svix webhook service" to deliver and sign its webhooks (https://openmeter.io/docs/guides/webhooks); svix-id is the message ID, the same on every retry (https://docs.svix.com/receiving/verifying-payloads/how-manual)',
  retry: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours)',
  retrySource: 'https://docs.svix.com/retries',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'svix', version: '2.5.0' },
});
