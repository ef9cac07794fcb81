// Known-answer vectors for Recall.ai, which signs its webhooks with the
// Standard Webhooks scheme (its docs: https://docs.recall.ai/docs/authenticating-requests-from-recallai).
// Every request is signed with standardwebhooks' Webhook.sign and every verdict
// is the official verifier's: svix 2.5.0 Webhook#verify, the library the provider's docs tell receivers to use.
// It also writes the provider's corpus captures (tests/captures/recall-ai/).
import { Webhook } from 'standardwebhooks';
import { Webhook as Verifier } from 'svix';
import { generate } from '../svix-cases.mjs';

const C = {
  kind: 'recall-ai',
  title: 'Recall.ai',
  docs: 'https://docs.recall.ai/docs/authenticating-requests-from-recallai',
  headers: 'webhook',
  secret: 'whsec_yhVJ7lfTGMQDJY8YSq9aGcsw4I7/XJIz',
  corpusSecret: 'whsec_Y29ycHVzLXJlY2FsbC1haS13b3Jrc3BhY2Utc2VjcmV0',
  secretNote: 'the workspace verification secret (Developers > API Keys & Secrets), "whsec_" + base64; the HMAC key is the base64-decoded part',
  msgId: 'msg_loFOjxBNrRLzqYUf',
  // The documented bot status change event (https://docs.recall.ai/docs/bot-status-change-events), filled in.
  body: { event: 'bot.joining_call',
    data: { data: { code: 'joining_call', sub_code: null, updated_at: '2025-11-15T21:12:01.000000+00:00' },
      bot: { id: '8b0e5a3c-6f1d-4c2e-9a7b-3d5f7e9a1c2b', metadata: {} } } },
  type: 'bot.joining_call',
  typePointer: '/event',
  tamper: ['"joining_call"', '"joininG_call"'],
  idNote: 'every request carries webhook-id, webhook-timestamp and webhook-signature once a workspace secret exists (https://docs.recall.ai/docs/authenticating-requests-from-recallai); webhooks are sent by Svix, whose message ID stays the same on every retry (https://docs.svix.com/receiving/verifying-payloads/how-manual)',
  retry: 'Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; Recall says it retries for 24 hours',
  retrySource: 'https://docs.recall.ai/v1.10/docs/faq-webhooks',
};

generate(C, {
  here: import.meta.url,
  Signer: Webhook, signer: { package: 'standardwebhooks', version: '1.1.1' },
  Verifier, verifier: { package: 'svix', version: '2.5.0' },
});
