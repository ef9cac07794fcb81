// Handshake vectors for Azure Event Grid webhooks. The validation event is
// parsed by the official @azure/eventgrid SDK (EventGridDeserializer,
// isSystemEvent), which confirms its shape and yields the validationCode; the
// answer {"validationResponse": code} and the CloudEvents OPTIONS check are
// from the docs:
// https://learn.microsoft.com/azure/event-grid/webhook-event-delivery
// Event Grid signs nothing; see NOTES.md for why there are no signature cases.
import fs from 'node:fs';
import { EventGridDeserializer, isSystemEvent } from '@azure/eventgrid';
import { withIdentity } from '../identity.mjs';

const NOW = 1700000000;
// The subscriber's secret, put in the endpoint URL's query string as the
// docs describe ("Using client secret as a query parameter",
// https://learn.microsoft.com/azure/event-grid/security-authentication#using-client-secret-as-a-query-parameter).
const SECRET = 'eg-client-secret-7f3a';
const BASE = 'https://hooks.example.com/webhooks/azure-event-grid';
const URL = `${BASE}?code=${SECRET}`;
const CODE = '512d38b6-c7b8-40c8-89fe-f46f9e9622b6';
// The documented SubscriptionValidationEvent (Event Grid schema).
const VALIDATION = JSON.stringify([{
  id: '2d1781af-3a4c-4d7c-bd0c-e34b19da4e66',
  topic: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct',
  subject: '',
  data: { validationCode: CODE, validationUrl: 'https://rp-eastus2.eventgrid.azure.net:553/eventsubscriptions/estest/validate?id=512d38b6-c7b8-40c8-89fe-f46f9e9622b6&t=2023-11-14T22:13:18.9080000Z&apiVersion=2018-05-01-preview&token=1A1A1A1A' },
  eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
  eventTime: '2023-11-14T22:13:18.000Z',
  metadataVersion: '1',
  dataVersion: '1',
}]);

const [event] = await new EventGridDeserializer().deserializeEventGridEvents(VALIDATION);
if (!isSystemEvent('Microsoft.EventGrid.SubscriptionValidationEvent', event)) throw new Error('the SDK does not see a validation event');
const answer = JSON.stringify({ validationResponse: event.data.validationCode });

// A delivery (Event Grid schema), read back by the SDK so that its shape is
// the SDK's: id and eventType are what a receiver dedups and routes on.
const DELIVERY = JSON.stringify([{
  id: '831e1650-001e-001b-66ab-eeb76e069631',
  topic: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct',
  subject: '/blobServices/default/containers/c/blobs/b.txt',
  eventType: 'Microsoft.Storage.BlobCreated',
  eventTime: '2023-11-14T22:13:20.000Z',
  data: { api: 'PutBlob', contentType: 'text/plain', contentLength: 524288, blobType: 'BlockBlob', url: 'https://acct.blob.core.windows.net/c/b.txt' },
  dataVersion: '1',
  metadataVersion: '1',
}]);
const [delivered] = await new EventGridDeserializer().deserializeEventGridEvents(DELIVERY);
const deliveryHeaders = [['Content-Type', 'application/json'], ['aeg-event-type', 'Notification']];
// The same blob event in the CloudEvents 1.0 schema: one object
// (application/cloudevents+json), and two in a batch
// (application/cloudevents-batch+json), each read back by the SDK:
// https://learn.microsoft.com/azure/event-grid/cloud-event-schema
const cloud = (id, name) => ({
  specversion: '1.0', id, source: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct',
  subject: `/blobServices/default/containers/c/blobs/${name}`, type: 'Microsoft.Storage.BlobCreated', time: '2023-11-14T22:13:20.000Z',
  datacontenttype: 'application/json', data: { api: 'PutBlob', contentType: 'text/plain', contentLength: 524288, blobType: 'BlockBlob', url: `https://acct.blob.core.windows.net/c/${name}` },
});
const CLOUD_ONE = JSON.stringify(cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a20', 'c.txt'));
const CLOUD_BATCH = JSON.stringify([cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a21', 'd.txt'), cloud('6f2a1c3e-2b4d-4e6f-8a1b-3c5d7e9f1a22', 'e.txt')]);
const cloudItems = async (body) => (await new EventGridDeserializer().deserializeCloudEvents(body)).map((e) => ({ id: e.id, type: e.type }));
const cloudHeaders = (type) => [['Content-Type', type], ['aeg-event-type', 'Notification']];
const cases = [
  { name: 'a delivery to the URL with the subscriber\'s code', secrets: [SECRET], method: 'POST', url: URL, headers: deliveryHeaders, body: DELIVERY, now: NOW, expect: 'valid', event_id: delivered.id, event_type: delivered.eventType },
  { name: 'one CloudEvent (application/cloudevents+json): one object, a batch of one', secrets: [SECRET], method: 'POST', url: URL, headers: cloudHeaders('application/cloudevents+json; charset=utf-8'), body: CLOUD_ONE, now: NOW, expect: 'valid', items: await cloudItems(CLOUD_ONE) },
  { name: 'a CloudEvents batch (application/cloudevents-batch+json)', secrets: [SECRET], method: 'POST', url: URL, headers: cloudHeaders('application/cloudevents-batch+json; charset=utf-8'), body: CLOUD_BATCH, now: NOW, expect: 'valid', items: await cloudItems(CLOUD_BATCH) },
  { name: 'a wrong code', secrets: [SECRET], method: 'POST', url: `${BASE}?code=not-the-secret`, headers: deliveryHeaders, body: DELIVERY, now: NOW, expect: 'invalid_signature' },
  { name: 'no code', secrets: [SECRET], method: 'POST', url: BASE, headers: deliveryHeaders, body: DELIVERY, now: NOW, expect: 'missing_signature' },
];

const handshakes = [
  {
    name: 'SubscriptionValidationEvent answered with validationResponse',
    secrets: [SECRET], verify_token: null,
    request: { method: 'POST', url: URL, headers: [['Content-Type', 'application/json'], ['aeg-event-type', 'SubscriptionValidation']], body: VALIDATION },
    now: NOW,
    expect: { status: 200, content_type: 'application/json', body: answer, headers: [] },
  },
  {
    name: 'CloudEvents abuse-protection OPTIONS answered with WebHook-Allowed-Origin',
    secrets: [SECRET], verify_token: null,
    request: { method: 'OPTIONS', url: URL, headers: [['WebHook-Request-Origin', 'eventgrid.azure.net']], body: '' },
    now: NOW,
    expect: { status: 200, content_type: null, body: '', headers: [['WebHook-Allowed-Origin', 'eventgrid.azure.net']] },
  },
  {
    name: 'a validation event without the code is refused, not answered',
    secrets: [SECRET], verify_token: null,
    request: { method: 'POST', url: BASE, headers: [['Content-Type', 'application/json'], ['aeg-event-type', 'SubscriptionValidation']], body: VALIDATION },
    now: NOW,
    expect: { status: 401, code: 'missing_signature' },
  },
];

const DOCS = 'https://learn.microsoft.com/azure/event-grid/webhook-event-delivery';
const out = {
  kind: 'azure-event-grid',
  source: {
    kind: 'sdk', package: '@azure/eventgrid', registry: 'npm', version: '5.12.0',
    function: 'EventGridDeserializer#deserializeEventGridEvents + isSystemEvent (validation event); answers as documented',
    url: DOCS,
  },
  facts: {
    title: 'Azure Event Grid',
    docs: DOCS,
    scheme: 'not signed: a client secret the subscriber puts in the endpoint URL\'s query string (here ?code=), compared as is; the Microsoft Entra bearer-token alternative is not vectored (NOTES.md)',
    secret: 'the value of the code query parameter of the registered endpoint URL',
    timestamp: null,
    batch: '',
    event_id: { json_pointer: '/id' },
    event_id_note: 'events carry an id; a request may batch several events (Event Grid schema: a JSON array): ' + DOCS,
    event_type: { json_pointer: ['/eventType', '/type'] },
    retry_horizon: 'retries with exponential backoff for up to 24 hours (default event time-to-live 1440 minutes, 30 attempts)',
    retry_source: 'https://learn.microsoft.com/azure/event-grid/delivery-and-retry',
    handshake: 'POST aeg-event-type: SubscriptionValidation with [{"eventType":"Microsoft.EventGrid.SubscriptionValidationEvent","data":{"validationCode":C,...}}] answered 200 {"validationResponse": C}; CloudEvents 1.0 schema: OPTIONS with WebHook-Request-Origin: O answered 200 with WebHook-Allowed-Origin: O: ' + DOCS,
  },
  cases,
  handshakes,
};
withIdentity(out);
fs.writeFileSync('vectors.json', JSON.stringify(out, null, 2) + '\n');
console.log(`azure-event-grid: ${handshakes.length} handshakes`);
