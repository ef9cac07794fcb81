// The rest of the corpus (tests/captures/README.md): providers whose retry
// rewrites a delivery envelope in the body, and the batched ones. Each
// request is signed by the provider's SDK, or by the docs' scheme and then
// accepted by the SDK's verifier or the docs' own sample; `ctx` is the
// writer generate.mjs hands over.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { signWebhookPayload, verifyWebhookSignature } from '@notionhq/client';
import { verifyPlainWebhook } from '@team-plain/typescript-sdk';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { EventGridDeserializer } from '@azure/eventgrid';

const require = createRequire(import.meta.url);
const { Webhook: Coinbase } = require('coinbase-commerce-node');

export const SECRETS = {
  'coinbase-commerce': 'corpus-coinbase-shared-secret-5a7c',
  notion: 'secret_corpusNotionVerificationToken0123456789',
  plain: 'plainsk_corpus_request_signing_secret_01',
  linear: 'lin_wh_corpusLinearSigningSecret0123456789',
  nylas: 'corpus-nylas-webhook-secret-9b1d',
  docusign: 'Y29ycHVzLWRvY3VzaWduLWNvbm5lY3Qta2V5LTAwMQ==',
  okta: 'Bearer corpus-okta-event-hook-value',
  'azure-event-grid': 'corpus-event-grid-code-4c2e',
  fastspring: 'corpus-fastspring-hmac-secret',
};

export async function retries({ add, atClock, must, TS }) {
  const iso = (s) => new Date(s * 1000).toISOString();
  const json = (v) => JSON.stringify(v);

  // Coinbase Commerce: the envelope (id, scheduled_for, attempt_number)
  // around the event changes per attempt. coinbase-commerce-node 1.0.4
  // Webhook.computeSignature signs, Webhook.verifyEventBody checks.
  const cbHeaders = (b) => {
    const sig = Coinbase.computeSignature(b, SECRETS['coinbase-commerce']);
    Coinbase.verifyEventBody(b, sig, SECRETS['coinbase-commerce']);
    return [['Content-Type', 'application/json'], ['X-CC-Webhook-Signature', sig]];
  };
  const cbEvent = { id: '24934862-d980-46cb-9402-43c81b0cdba6', resource: 'event', type: 'charge:created', api_version: '2018-03-22', created_at: iso(TS - 10),
    data: { code: '66BEOV2A', name: 'The Sovereign Individual', description: 'Mastering the Transition to the Information Age', hosted_url: 'https://commerce.coinbase.com/charges/66BEOV2A', pricing_type: 'no_price' } };
  const cb = (attempt) => json({ id: attempt, scheduled_for: iso(TS - 10 + 60 * (attempt - 1)), attempt_number: attempt, event: cbEvent });
  const CB = [{ id: cbEvent.id, type: 'charge:created' }];
  add('coinbase-commerce', 'charge-created', cbHeaders(cb(1)), cb(1), 'accepted', CB);
  add('coinbase-commerce', 'charge-created-attempt-2', cbHeaders(cb(2)), cb(2), 'duplicate', CB,
    'the event is re-sent in a new envelope, attempt_number raised: https://docs.cdp.coinbase.com/commerce/api-arcitecture/webhooks-overview');

  // Notion: attempt_number grows. @notionhq/client 5.26.0 signWebhookPayload
  // signs, verifyWebhookSignature checks.
  const notion = (attempt) => json({
    id: '367cba44-b6f3-4c92-81e7-6a2e9659efd4', timestamp: iso(TS - 5), workspace_id: '13950b26-c203-4f3b-b97d-93ec06319565', workspace_name: 'Quantify Labs',
    subscription_id: '29d75c0d-5546-4414-8459-7b7a92f1fc4b', integration_id: '0ef2e755-4912-8096-91c1-00376a88a5ca', type: 'page.created',
    authors: [{ id: 'c7c11cca-1d73-471d-9b6e-bdef51470190', type: 'person' }], accessible_by: [{ id: '556a1abf-4f08-40c6-878a-75890d2a88ba', type: 'person' }],
    attempt_number: attempt, entity: { id: '153104cd-477e-809d-8dc4-ff2d96ae3090', type: 'page' }, data: { parent: { id: '13950b26-c203-4f3b-b97d-93ec06319565', type: 'space' } },
  });
  const notionHeaders = async (b) => {
    const sig = await signWebhookPayload({ body: b, verificationToken: SECRETS.notion });
    must(await verifyWebhookSignature({ body: b, signature: sig, verificationToken: SECRETS.notion }), 'the Notion event');
    return [['Content-Type', 'application/json'], ['X-Notion-Signature', sig]];
  };
  const NOTION = [{ id: '367cba44-b6f3-4c92-81e7-6a2e9659efd4', type: 'page.created' }];
  add('notion', 'page.created', await notionHeaders(notion(1)), notion(1), 'accepted', NOTION);
  add('notion', 'page.created-attempt-2', await notionHeaders(notion(2)), notion(2), 'duplicate', NOTION,
    'the same event id, attempt_number raised: https://developers.notion.com/reference/webhooks-events-delivery');

  // Plain: every attempt rewrites webhookMetadata. Signed as documented (hex
  // HMAC-SHA256 of the body); @team-plain/typescript-sdk 5.12.1
  // verifyPlainWebhook checks it at the attempt's time.
  const plain = (attempt, at) => json({
    timestamp: iso(TS - 5), workspaceId: 'w_01HF6TZ5Q8M2K4N7P9R3S6V1X0',
    payload: { eventType: 'customer.customer_group_changed', changeType: 'ADDED',
      customerGroup: { id: 'cuGroup_01HF6V0A2B3C4D5E6F7G8H9J0K', workspaceId: 'w_01HF6TZ5Q8M2K4N7P9R3S6V1X0', name: 'Enterprise', key: 'enterprise', color: '#1f77b4',
        createdAt: iso(TS - 5), createdBy: { actorType: 'user', userId: 'u_01HF6TZ9W8V7T6S5R4Q3P2N1M0' }, updatedAt: iso(TS - 5), updatedBy: { actorType: 'user', userId: 'u_01HF6TZ9W8V7T6S5R4Q3P2N1M0' } } },
    id: 'pEv_01HF6V3M1X9Q2W8E4R7T5Y3Z0A', type: 'customer.customer_group_changed',
    webhookMetadata: { webhookTargetId: 'whTarget_01HF6TZB1C2D3E4F5G6H7J8K9M', webhookTargetVersion: '2026-02-27',
      webhookDeliveryAttemptId: `whAttempt_01HF6V3M1X9Q2W8E4R7T5Y3Z${attempt}A`, webhookDeliveryAttemptNumber: attempt, webhookDeliveryAttemptTimestamp: iso(at) },
  });
  const plainHeaders = async (b, at) => {
    const sig = crypto.createHmac('sha256', SECRETS.plain).update(b, 'utf8').digest('hex');
    const r = await atClock(at, () => verifyPlainWebhook(b, sig, SECRETS.plain));
    must(!r.error, 'the Plain event');
    return [['Content-Type', 'application/json'], ['Plain-Request-Signature', sig]];
  };
  const PLAIN = [{ id: 'pEv_01HF6V3M1X9Q2W8E4R7T5Y3Z0A', type: 'customer.customer_group_changed' }];
  add('plain', 'customer_group_changed', await plainHeaders(plain(1, TS), TS), plain(1, TS), 'accepted', PLAIN);
  add('plain', 'customer_group_changed-attempt-2', await plainHeaders(plain(2, TS + 30), TS + 30), plain(2, TS + 30), 'duplicate', PLAIN,
    'each delivery attempt rewrites webhookMetadata; id stays: https://www.plain.com/docs/api-reference/webhooks');

  // Linear: webhookTimestamp is the attempt's. Signed as documented (hex
  // HMAC-SHA256); @linear/sdk 98.0.0 LinearWebhookClient.verify checks it.
  const DELIVERY = '234d1a4e-b617-4388-90fe-adc3633d6b72';
  const linear = (tsMs) => json({
    action: 'create', type: 'Issue', createdAt: iso(TS - 2),
    data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', identifier: 'ENG-42', title: 'Checkout fails on Safari', priority: 2 },
    url: 'https://linear.app/acme/issue/ENG-42', organizationId: 'e3e3fa0f-8ad0-4b67-8d3b-9b7b7a5e1c11', webhookTimestamp: tsMs, webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
  });
  const linearHeaders = async (b, at, delivery = DELIVERY) => {
    const sig = crypto.createHmac('sha256', SECRETS.linear).update(b).digest('hex');
    must(await atClock(at, () => new LinearWebhookClient(SECRETS.linear).verify(Buffer.from(b), sig)), 'the Linear event');
    return [['Content-Type', 'application/json; charset=utf-8'], ['Linear-Delivery', delivery], ['Linear-Event', 'Issue'], ['Linear-Signature', sig]];
  };
  const LINEAR = [{ id: DELIVERY, type: 'Issue' }];
  add('linear', 'issue-create', await linearHeaders(linear(TS * 1000), TS), linear(TS * 1000), 'accepted', LINEAR);
  add('linear', 'issue-create-retry', await linearHeaders(linear((TS + 60) * 1000), TS + 60), linear((TS + 60) * 1000), 'duplicate', LINEAR,
    'a retry keeps Linear-Delivery with a new webhookTimestamp (retries after 1 minute, 1 hour, 6 hours): https://linear.app/developers/webhooks');
  // Not something Linear sends: the first request, signature and all, resent
  // under a fresh Linear-Delivery (the header the signature leaves out).
  // Linear's distinct events never share a body (it carries the attempt's
  // webhookTimestamp), so the body key holds it as a suspected replay.
  const FRESH = '9c1e5a7b-3d2f-4e6a-8b0c-1d3e5f7a9b2c';
  add('linear', 'issue-create-under-a-fresh-delivery', await linearHeaders(linear(TS * 1000), TS, FRESH), linear(TS * 1000), 'held',
    [{ id: FRESH, type: 'Issue' }], 'a captured request replayed under a fresh, unsigned Linear-Delivery: held, never dropped, releasable');

  // Nylas: webhook_delivery_attempt counts. Signed as Nylas documents (hex
  // HMAC-SHA256 of the body with the webhook_secret); Nylas publishes no
  // verifier, and tests/vectors/nylas holds the docs' own check.
  const nylas = (attempt) => json({ specversion: '1.0', type: 'message.created', source: '/google/emails/realtime', id: 'corpus-nylas-3e8b2f1a', time: TS - 3,
    webhook_delivery_attempt: attempt, data: { application_id: 'NYLAS_APPLICATION_ID', object: { id: '18b9f0c0a5a1b2c3', grant_id: 'NYLAS_GRANT_ID', object: 'message', subject: 'Hello' } } });
  const nylasHeaders = (b) => {
    const sig = crypto.createHmac('sha256', SECRETS.nylas).update(b).digest('hex');
    return [['Content-Type', 'application/json'], ['x-nylas-signature', sig]];
  };
  const NYLAS = [{ id: 'corpus-nylas-3e8b2f1a', type: 'message.created' }];
  add('nylas', 'message.created', nylasHeaders(nylas(1)), nylas(1), 'accepted', NYLAS);
  add('nylas', 'message.created-attempt-2', nylasHeaders(nylas(2)), nylas(2), 'duplicate', NYLAS,
    'webhook_delivery_attempt counts the deliveries of one notification: https://developer.nylas.com/docs/v3/notifications/webhooks/');

  // DocuSign Connect: retryCount counts attempts; the ID is the event, the
  // envelope and generatedDateTime. Signed and checked by computeHash /
  // isHashValid of docusign/code-examples-node (lib/connect/examples/validateWebhookMessage.js).
  // ---- the DocuSign example, verbatim ----
  const computeHash = (args) => {
    const hmac = crypto.createHmac('sha256', args.secret);
    hmac.write(args.payload);
    hmac.end();
    return hmac.read().toString('base64');
  };
  const isHashValid = (args) => {
    return crypto.timingSafeEqual(Buffer.from(args.verify, 'base64'), Buffer.from(computeHash(args), 'base64'));
  };
  // ---- end of the DocuSign example ----
  const GENERATED = '2025-12-31T23:59:58.4233752Z';
  const docusign = (retry) => json({ event: 'envelope-completed', apiVersion: 'v2.1', uri: '/restapi/v2.1/accounts/24dfce13-9dce-4aa0-ba12-da5389bb9d8a/envelopes/a70a5ef2-12c4-4aaf-84c5-b84134dce420',
    retryCount: retry, configurationId: 21752918, generatedDateTime: GENERATED,
    data: { accountId: '24dfce13-9dce-4aa0-ba12-da5389bb9d8a', userId: '8c531060-928e-471d-9cac-b829f616b0bf', envelopeId: 'a70a5ef2-12c4-4aaf-84c5-b84134dce420' } });
  const docusignHeaders = (b) => {
    const sig = computeHash({ payload: b, secret: SECRETS.docusign });
    must(isHashValid({ verify: sig, secret: SECRETS.docusign, payload: b }), 'the DocuSign message');
    return [['Content-Type', 'application/json'], ['X-DocuSign-Signature-1', sig]];
  };
  const DOCUSIGN = [{ id: `envelope-completed:a70a5ef2-12c4-4aaf-84c5-b84134dce420:${GENERATED}`, type: 'envelope-completed' }];
  add('docusign', 'envelope-completed', docusignHeaders(docusign(0)), docusign(0), 'accepted', DOCUSIGN);
  add('docusign', 'envelope-completed-retry', docusignHeaders(docusign(1)), docusign(1), 'duplicate', DOCUSIGN,
    'Connect retries the message with retryCount raised: https://developers.docusign.com/platform/webhooks/connect/json-sim-event-model');

  // Okta event hooks: a batch of System Log events; nothing is signed (the
  // configured Authorization value is sent as it is).
  const okta = (events) => json({ eventType: 'com.okta.event_hook', eventTypeVersion: '1.0', cloudEventsVersion: '0.1',
    source: 'https://acme.okta.com/api/v1/eventHooks/whoql0HfiLGPWc8Jx0g3', eventId: 'b5a188b9-5ece-4636-b041-482ffda96311',
    data: { events }, eventTime: iso(TS - 1), contentType: 'application/json' });
  const oktaEvent = (uuid, type, message) => ({ uuid, published: iso(TS - 2), eventType: type, version: '0', displayMessage: message, severity: 'INFO',
    actor: { id: '00u1qw1mqitPHM8AJ0g7', type: 'User', alternateId: 'admin@acme.example', displayName: 'Jane Admin' }, outcome: { result: 'SUCCESS' } });
  const oktaBody = okta([oktaEvent('4a1b2c3d-5e6f-11ee-8c99-0242ac120002', 'user.session.start', 'User login to Okta'),
    oktaEvent('4a1b2c3d-5e6f-11ee-8c99-0242ac120003', 'user.authentication.sso', 'User single sign on to app')]);
  const oktaHeaders = [['Content-Type', 'application/json'], ['Authorization', SECRETS.okta]];
  const OKTA = [{ id: '4a1b2c3d-5e6f-11ee-8c99-0242ac120002', type: 'user.session.start' }, { id: '4a1b2c3d-5e6f-11ee-8c99-0242ac120003', type: 'user.authentication.sso' }];
  add('okta', 'two-system-log-events', oktaHeaders, oktaBody, 'accepted', OKTA,
    'data.events[] carries several System Log events, each with its uuid: https://developer.okta.com/docs/concepts/event-hooks/');
  add('okta', 'two-system-log-events-retry', oktaHeaders, oktaBody, 'duplicate', OKTA,
    'one retry when the first attempt fails: https://developer.okta.com/docs/concepts/event-hooks/#timeout-and-retry');

  // Azure Event Grid: nothing is signed (the subscriber's code is in the
  // query). Each body is read back by @azure/eventgrid 5.12.0's
  // EventGridDeserializer, so its shape is the SDK's.
  const topic = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct';
  const blob = (id, name) => ({ id, topic, subject: `/blobServices/default/containers/c/blobs/${name}`, eventType: 'Microsoft.Storage.BlobCreated', eventTime: iso(TS - 2),
    data: { api: 'PutBlob', contentType: 'text/plain', contentLength: 524288, blobType: 'BlockBlob', url: `https://acct.blob.core.windows.net/c/${name}` }, dataVersion: '1', metadataVersion: '1' });
  const cloud = (id, name) => ({ specversion: '1.0', id, source: topic, subject: `/blobServices/default/containers/c/blobs/${name}`, type: 'Microsoft.Storage.BlobCreated', time: iso(TS - 2),
    datacontenttype: 'application/json', data: { api: 'PutBlob', contentType: 'text/plain', contentLength: 524288, blobType: 'BlockBlob', url: `https://acct.blob.core.windows.net/c/${name}` } });
  const grid = new EventGridDeserializer();
  const query = `code=${SECRETS['azure-event-grid']}`;
  const gridSchema = json([blob('831e1650-001e-001b-66ab-eeb76e069631', 'a.txt'), blob('831e1650-001e-001b-66ab-eeb76e069632', 'b.txt')]);
  must((await grid.deserializeEventGridEvents(gridSchema)).length === 2, 'the Event Grid batch');
  const cloudOne = json(cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a20', 'c.txt'));
  must((await grid.deserializeCloudEvents(cloudOne)).length === 1, 'the single CloudEvent');
  const cloudBatch = json([cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a21', 'd.txt'), cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a22', 'e.txt')]);
  must((await grid.deserializeCloudEvents(cloudBatch)).length === 2, 'the CloudEvents batch');
  const gridHeaders = (type) => [['Content-Type', type], ['aeg-event-type', 'Notification']];
  const BLOB = 'Microsoft.Storage.BlobCreated';
  add('azure-event-grid', 'event-grid-schema-batch', gridHeaders('application/json'), gridSchema, 'accepted',
    [{ id: '831e1650-001e-001b-66ab-eeb76e069631', type: BLOB }, { id: '831e1650-001e-001b-66ab-eeb76e069632', type: BLOB }],
    'Event Grid schema: an array of events: https://learn.microsoft.com/azure/event-grid/event-schema', query);
  add('azure-event-grid', 'event-grid-schema-batch-retry', gridHeaders('application/json'), gridSchema, 'duplicate',
    [{ id: '831e1650-001e-001b-66ab-eeb76e069631', type: BLOB }, { id: '831e1650-001e-001b-66ab-eeb76e069632', type: BLOB }],
    'retried with exponential backoff for up to 24 hours: https://learn.microsoft.com/azure/event-grid/delivery-and-retry', query);
  add('azure-event-grid', 'cloudevent-single', gridHeaders('application/cloudevents+json; charset=utf-8'), cloudOne, 'accepted',
    [{ id: '6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a20', type: BLOB }],
    'CloudEvents 1.0 structured mode: one event, one object: https://learn.microsoft.com/azure/event-grid/cloud-event-schema', query);
  add('azure-event-grid', 'cloudevents-batch', gridHeaders('application/cloudevents-batch+json; charset=utf-8'), cloudBatch, 'accepted',
    [{ id: '6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a21', type: BLOB }, { id: '6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a22', type: BLOB }],
    'CloudEvents 1.0 batch mode: an array: https://learn.microsoft.com/azure/event-grid/cloud-event-schema', query);

  // FastSpring: events[] batches several events. Signed as documented
  // (base64 HMAC-SHA256), checked by the docs' PHP line run by php.
  const fsBody = json({ events: [
    { id: 'LK2ZvXhVQJeq3jF4nDpkHQ', live: false, processed: false, type: 'order.completed', created: (TS - 10) * 1000,
      data: { order: 'uKj9EvbQRO6yIOnBw3l8Tg', id: 'uKj9EvbQRO6yIOnBw3l8Tg', reference: 'FUR251231-1234-56789', live: false, currency: 'USD', total: 19.99, completed: true } },
    { id: 'LK2ZvXhVQJeq3jF4nDpkHR', live: false, processed: false, type: 'subscription.activated', created: (TS - 9) * 1000,
      data: { id: 'sub_9Yt2rC4uTQm6Wq1nB3x5Zk', subscription: 'sub_9Yt2rC4uTQm6Wq1nB3x5Zk', active: true, state: 'active', live: false } },
  ] });
  const fsSig = crypto.createHmac('sha256', SECRETS.fastspring).update(fsBody, 'utf8').digest('base64');
  const php = "$secret = $argv[1]; $hash = base64_encode( hash_hmac( 'sha256', file_get_contents('php://stdin') , $secret, true ) ); echo $hash;";
  must(execFileSync('php', ['-r', php, SECRETS.fastspring], { input: fsBody }).toString() === fsSig, 'the FastSpring batch');
  add('fastspring', 'two-events', [['Content-Type', 'application/json'], ['X-FS-Signature', fsSig]], fsBody, 'accepted',
    [{ id: 'LK2ZvXhVQJeq3jF4nDpkHQ', type: 'order.completed' }, { id: 'LK2ZvXhVQJeq3jF4nDpkHR', type: 'subscription.activated' }],
    'a POST batches several events, each with its id: https://developer.fastspring.com/reference/webhooks');
}
