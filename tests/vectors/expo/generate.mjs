// Known-answer vectors for Expo (EAS Build / Submit) webhooks, from the docs' own
// "Webhook server" sample (https://docs.expo.dev/eas/webhooks/#webhook-server): its
// verification lines run unchanged below, with safe-compare pinned as the sample
// requires it. No Expo SDK verifies these webhooks.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withIdentity } from '../identity.mjs';

const require = createRequire(import.meta.url);
const crypto = require('crypto');
const safeCompare = require('safe-compare');

const NOW = 1700000000;
const SECRET = 'eas-webhook-secret-7f3a9c1e5b2d8f4a';   // at least 16 characters, set with eas webhook:create
const OTHER = 'eas-other-secret-0a1b2c3d4e5f6a7b';
const HOOK_URL = 'https://hooks.example.com/webhooks/expo/acme';
// The docs' build webhook payload example (comments removed, trimmed).
const BODY = JSON.stringify({
  id: '147a3212-49fd-446f-b4e3-a6519acf264a', accountName: 'dsokal', projectName: 'example',
  buildDetailsPageUrl: 'https://expo.dev/accounts/dsokal/projects/example/builds/147a3212-49fd-446f-b4e3-a6519acf264a',
  appId: 'bc0a82de-65a5-4497-ad86-54ff1f53edf7', initiatingUserId: 'd1041496-1a59-423a-8caf-479bb978203a', cancelingUserId: null,
  platform: 'android', status: 'finished',
  artifacts: { buildUrl: 'https://expo.dev/artifacts/eas/wyodu9tua2ZuKKiaJ1Nbkn.aab', logsS3KeyPrefix: 'production/f9609423-5072-4ea2-a0a5-c345eedf2c2a' },
  metadata: { appName: 'example', username: 'dsokal', workflow: 'managed', appVersion: '1.0.2', appBuildVersion: '123', buildProfile: 'production', distribution: 'store' },
  createdAt: '2021-11-24T09:53:01.155Z', completedAt: '2021-11-24T09:57:42.715Z', updatedAt: '2021-11-24T09:57:42.715Z', priority: 'high', maxRetryTimeMinutes: 3600,
});
const TAMPERED = BODY.replace('"finished"', '"finishee"');

// The sample's check, unchanged apart from its inputs (req.headers, req.body, process.env.SECRET_WEBHOOK_KEY):
function sampleAccepts(req, SECRET_WEBHOOK_KEY) {
  const expoSignature = req.headers['expo-signature'];
  const hmac = crypto.createHmac('sha1', SECRET_WEBHOOK_KEY);
  hmac.update(req.body);
  const hash = `sha1=${hmac.digest('hex')}`;
  return safeCompare(expoSignature, hash);
}

function verdict(c) {
  const req = { headers: Object.fromEntries(c.headers.map(([k, v]) => [k.toLowerCase(), v])), body: c.body };
  if (req.headers['expo-signature'] === undefined) return 'missing_signature';
  return c.secrets.some((s) => sampleAccepts(req, s)) ? 'valid' : 'invalid_signature';
}

const sign = (secret, body = BODY) => `sha1=${crypto.createHmac('sha1', secret).update(body).digest('hex')}`;
const req = (sig, body = BODY) => ({ method: 'POST', url: HOOK_URL, headers: [['Content-Type', 'application/json'], ['expo-signature', sig]], body, now: NOW });
const strip = (r) => ({ ...r, headers: r.headers.filter(([k]) => k.toLowerCase() !== 'expo-signature') });
const sig = sign(SECRET);
const ok = { event_id: '147a3212-49fd-446f-b4e3-a6519acf264a' };
const cases = [
  { name: 'build webhook with expo-signature = "sha1=" + hex HMAC-SHA1, accepted by the docs\' sample', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig), body: TAMPERED, expect: 'invalid_signature' },
  { name: 'the bare hex digest without the "sha1=" prefix is rejected', secrets: [SECRET], ...req(sig.slice('sha1='.length)), expect: 'invalid_signature' },
  { name: 'verified with another webhook secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'expo-signature removed', secrets: [SECRET], ...strip(req(sig)), expect: 'missing_signature' },
];
for (const c of cases) {
  const got = verdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, case expects ${c.expect}`);
}

const DOCS = 'https://docs.expo.dev/eas/webhooks/';
const out = {
  kind: 'expo',
  source: { kind: 'docs-code', package: 'safe-compare', registry: 'npm', version: '1.1.4', function: 'the docs\' "Webhook server" sample (crypto HMAC-SHA1 + safeCompare)', url: DOCS },
  facts: {
    title: 'Expo (EAS Build and Submit)',
    docs: DOCS,
    scheme: 'expo-signature = "sha1=" + hex(HMAC-SHA1(webhook secret as UTF-8, raw body))',
    secret: 'the webhook signing secret given to eas webhook:create / webhook:update (at least 16 characters), used verbatim as UTF-8 bytes',
    timestamp: null,
    event_id: { json_pointer: '/id' },
    event_id_note: 'id is the build (or submission) ID; one webhook per completed build or submission, re-sent unchanged on retry: ' + DOCS,
    event_type: null,
    retry_horizon: '"delivery will be attempted a few more times with exponential back-off" (no total given): default window',
    retry_source: DOCS,
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${cases.length} cases`);
