// Known-answer vectors for Ansa webhooks. "Our webhook partner, Svix, offers
// libraries that make verifying webhooks very simple"
// (https://docs.ansa.dev/docs/signature-verification): Svix's headers, which
// its library reads as svix-* or unbranded webhook-*. Signed with svix 2.5.0
// Webhook.sign and every verdict is its Webhook.verify. Also writes Ansa's
// corpus captures (tests/captures/ansa/), signed and checked the same way.
import { Webhook } from 'svix';
import { generateSdkVectors, SENT_AT as SENT } from '../svix-cases.mjs';

// The documented autoreload.success sample (https://docs.ansa.dev/docs/webhooks).
const autoreload = (id, txn, balance) => JSON.stringify({
  customer_id: '811233AE-ED61-4C52-A729-754B7396D0A3',
  data: { current_balance: { amount: balance, currency: 'usd' }, event_created_timestamp: '2023-08-01T12:34:56.123Z',
    reload_amount: 500, transaction_id: txn },
  error: null, id, merchant_id: 'E3C103D6-2BD2-4E30-9B1F-D6EF4E5699B4', type: 'autoreload.success', version: 'v2',
});
const BODY = autoreload('EAF61643-5B8D-4E8C-84B6-60D29D4CCA27', '46B5C79C-84AE-4175-8AFD-0A6D0AF7368F', 2000);
const DOCS = 'https://docs.ansa.dev/docs/signature-verification';

// The corpus captures: the first delivery, its retry (the same message ID,
// signed again later) and another event. Signed at the corpus's fixed time.
const ID1 = 'msg_2cA1ansaCorpus0001xYzWqR';
const ID2 = 'msg_2cA1ansaCorpus0002pQrStU';
const BODY2 = autoreload('1F0C2B7E-9A3D-4E51-B6C8-2D4E6F8A0B1C', '5A6B7C8D-9E0F-4A1B-8C2D-3E4F5A6B7C8D', 1500);

generateSdkVectors({
  kind: 'ansa',
  headers: 'svix',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_2bXansaQe3LmT7vR1pN4sY8wZq',
  body: BODY,
  type: 'autoreload.success',
  tamper: ['2000', '9000'],
  unbranded: true,
  source: { function: 'Webhook.sign / Webhook.verify (the Svix library Ansa\'s docs verify with)', url: DOCS },
  facts: {
    title: 'Ansa',
    docs: DOCS,
    scheme: 'Svix: svix-signature (or webhook-signature) = space-separated "v1,<base64(HMAC-SHA256(base64-decoded secret after whsec_, id + "." + timestamp + "." + raw body))>"',
    secret: 'the endpoint\'s signing secret (Merchant Portal > webhooks settings > the endpoint), "whsec_" + base64',
    timestamp: 'svix-timestamp / webhook-timestamp, unix seconds, signed; 5 minutes either way',
    event_id: { header: ['svix-id', 'webhook-id'] },
    event_id_note: 'the Svix message ID, the same when the message is retried: https://docs.svix.com/receiving/verifying-payloads/how-manual',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'Svix\'s retry schedule, about 28 hours (https://docs.svix.com/retries)',
    retry_source: 'https://docs.svix.com/retries',
    handshake: null,
  },
  corpus: {
    secret: 'whsec_YW5zYS1jb3JwdXMtc2lnbmluZy1zZWNyZXQtMDE=',
    shots: [
      ['0001-autoreload-success.json', ID1, SENT - 20, BODY, 'accepted', 'an autoreload.success webhook: https://docs.ansa.dev/docs/webhooks'],
      ['0002-autoreload-success-retried.json', ID1, SENT, BODY, 'duplicate', 'the same message retried after a failure, the same svix-id and a new timestamp: https://docs.svix.com/retries'],
      ['0003-autoreload-success-other.json', ID2, SENT, BODY2, 'accepted', 'another autoreload.success under its own message ID'],
    ],
  },
}, { here: import.meta.url, Webhook, library: { package: 'svix', version: '2.5.0' } });
