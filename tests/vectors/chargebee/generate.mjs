// Known-answer vectors for Chargebee webhooks, which authenticate with HTTP Basic auth:
// every verdict from the official SDK's basicAuthValidator (exported from chargebee).
import { writeFileSync } from 'node:fs';
import { basicAuthValidator } from 'chargebee';

const NOW = 1700000000;
const SECRET = 'hookline:s3cr3t-Pa55word'; // a tenant's secret is "user:password"
const OTHER = 'hookline:another-password';
const HOOK_URL = 'https://hooks.example.com/webhooks/chargebee/acme';
// The documented event shape: id, occurred_at, event_type, webhook_status and content.
const BODY = JSON.stringify({
  id: 'ev_16BHbhF4s42tO2lK', occurred_at: 1699999990, source: 'admin_console', user: 'full_access_user@acme.com',
  object: 'event', api_version: 'v2', event_type: 'subscription_created', webhook_status: 'scheduled',
  content: { subscription: { id: '16BHbhF4s42tO2lJ', customer_id: '16BHbhF4s42tO2lI', status: 'active', currency_code: 'USD',
    subscription_items: [{ item_price_id: 'basic-USD', item_type: 'plan', quantity: 1, amount: 1000 }] } },
});
const basic = (userPass) => `Basic ${Buffer.from(userPass).toString('base64')}`;
const headersFor = (userPass) => [['Content-Type', 'application/json'], ['Authorization', basic(userPass)]];
const SIG_HEADERS = ['authorization'];

async function sdkVerdict(c) {
  const headers = Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v]));
  let verdict = 'invalid_signature';
  for (const s of c.secrets) {
    const i = s.indexOf(':');
    const validate = basicAuthValidator((u, p) => u === s.slice(0, i) && p === s.slice(i + 1));
    try {
      await validate(headers);
      return 'valid';
    } catch (e) {
      if (e.message === 'Missing authorization header') verdict = 'missing_signature';
      else if (e.message !== 'Invalid credentials') throw e;
    }
  }
  return verdict;
}

const req = (userPass, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: headersFor(userPass), body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => !SIG_HEADERS.includes(k.toLowerCase())) });
const ok = { event_id: 'ev_16BHbhF4s42tO2lK', event_type: 'subscription_created' };
const cases = [
  { name: 'subscription_created with the configured Basic credentials', secrets: [SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'rotation: the second configured user:password matches', secrets: [OTHER, SECRET], ...req(SECRET), expect: 'valid', ...ok },
  { name: 'one body byte changed: Basic auth does not cover the body, so the SDK still accepts it', secrets: [SECRET], ...req(SECRET, BODY.replace('"amount":1000', '"amount":1001')), expect: 'valid', ...ok },
  { name: 'the request carries another password', secrets: [SECRET], ...req(OTHER), expect: 'invalid_signature' },
  { name: 'verified against another configured password', secrets: [OTHER], ...req(SECRET), expect: 'invalid_signature' },
  { name: 'Authorization header removed', secrets: [SECRET], ...strip(req(SECRET)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = await sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: SDK says ${got}, case expects ${c.expect}`);
}

const out = {
  kind: 'chargebee',
  source: { kind: 'sdk', package: 'chargebee', registry: 'npm', version: '3.33.0',
    function: 'basicAuthValidator (exported from chargebee)', url: 'https://www.chargebee.com/docs/2.0/webhook_settings.html' },
  facts: {
    title: 'Chargebee',
    docs: 'https://www.chargebee.com/docs/2.0/webhook_settings.html',
    scheme: 'HTTP Basic auth: Authorization = "Basic " + base64(username:password) configured on the webhook endpoint; the body is not signed',
    secret: 'the username and password entered under Settings > Configure Chargebee > Webhooks > endpoint > "Protect webhook URL with basic authentication", as "user:password"',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'every webhook carries the event (ev_...) it reports; retries and resends deliver the same event id; Chargebee warns webhooks can be duplicated: https://www.chargebee.com/docs/2.0/webhook_settings.html',
    event_type: { json_pointer: '/event_type' },
    retry_horizon: 'up to 7 retries: 2 min, 6 min, 30 min, 1 h, 5 h, 1 day, 2 days after the previous (about 3.3 days)',
    retry_source: 'https://chargebee.com/docs/2.0/site-configuration/articles-and-faq/at-which-rate-can-we-expect-the-webhook-calls-in-chargebee-will-there-be-any-performance-disruption.html',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
