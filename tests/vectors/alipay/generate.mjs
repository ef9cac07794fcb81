// Known-answer vectors for Alipay asynchronous notifications (异步通知), with
// every verdict from the official SDK: alipay-sdk 4.14.0 (npm,
// github.com/alipay/alipay-sdk-nodejs-all), AlipaySdk.checkNotifySignV2, given
// the parsed form as a body parser hands it over.
//
// The notifications are signed here as Alipay's docs say
// (https://global.alipay.com/doc/app_cn/ds_mechanism, 签名机制: "在通知返回参数列表中，除去sign、sign_type两个参数外，凡是通知返回回来的参数皆是要签名的参数"): every parameter
// but `sign` and `sign_type`, sorted by name, as `name=value` (decoded values)
// joined by `&`, signed with RSA2 (SHA256withRSA); `sign` is the base64
// signature. The key pair is a test key (test-alipay-key.pem) standing for
// Alipay's; the tenant's secret is its public half, as Alipay shows it (base64
// DER, no PEM armour).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import crypto from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';

const ALIPAY_PRIVATE = readFileSync(new URL('./test-alipay-key.pem', import.meta.url), 'utf8');
const MERCHANT_PRIVATE = readFileSync(new URL('./test-merchant-key.pem', import.meta.url), 'utf8');
const bare = (pem) => crypto.createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');
const ALIPAY_PUBLIC = bare(ALIPAY_PRIVATE);
const OTHER_PUBLIC = bare(MERCHANT_PRIVATE);

const NOW = 1700000000;
const HOOK_URL = 'https://hooks.example.com/webhooks/alipay';
const NOTIFY_ID = '2023111400222221315087381450911826';
// The documented trade notification fields (https://opendocs.alipay.com/open/270/105902).
const PARAMS = {
  gmt_create: '2023-11-14 22:13:10', charset: 'utf-8', seller_email: 'merchant@example.com',
  subject: '测试订单 order 1', buyer_id: '2088102177846880', invoice_amount: '0.01',
  notify_id: NOTIFY_ID, fund_bill_list: '[{"amount":"0.01","fundChannel":"ALIPAYACCOUNT"}]',
  notify_type: 'trade_status_sync', trade_status: 'TRADE_SUCCESS', receipt_amount: '0.01',
  app_id: '2021000122600000', buyer_pay_amount: '0.01', sign_type: 'RSA2', seller_id: '2088102177649450',
  gmt_payment: '2023-11-14 22:13:15', notify_time: '2023-11-14 22:13:16', version: '1.0',
  out_trade_no: '20231114221310001', total_amount: '0.01', trade_no: '2023111422001446880500000001',
  auth_app_id: '2021000122600000', buyer_logon_id: 'buy***@example.com', point_amount: '0.00',
};
function signed(params, privatePem) {
  const content = Object.keys(params).filter((k) => k !== 'sign' && k !== 'sign_type').sort()
    .map((k) => `${k}=${params[k]}`).join('&');
  return { ...params, sign: crypto.createSign('RSA-SHA256').update(content, 'utf8').sign(privatePem, 'base64') };
}
const form = (params) => new URLSearchParams(params).toString();
const req = (params) => ({
  method: 'POST', url: HOOK_URL, now: NOW,
  headers: [['Content-Type', 'application/x-www-form-urlencoded; charset=utf-8']],
  body: form(params),
});
const good = signed(PARAMS, ALIPAY_PRIVATE);
const { sign: _drop, ...unsigned } = good;
const ok = { event_id: NOTIFY_ID, event_type: 'trade_status_sync' };
const cases = [
  { name: 'TRADE_SUCCESS notification signed RSA2, accepted by checkNotifySignV2', secrets: [ALIPAY_PUBLIC], ...req(good), expect: 'valid', ...ok },
  { name: 'one parameter changed after signing (total_amount)', secrets: [ALIPAY_PUBLIC], ...req({ ...good, total_amount: '0.02' }), expect: 'invalid_signature' },
  { name: 'verified with another public key', secrets: [OTHER_PUBLIC], ...req(good), expect: 'invalid_signature' },
  { name: 'sign parameter removed', secrets: [ALIPAY_PUBLIC], ...req(unsigned), expect: 'missing_signature' },
  { name: 'rotation: the tenant holds the old and the new Alipay public key', secrets: [OTHER_PUBLIC, ALIPAY_PUBLIC], ...req(good), expect: 'valid', ...ok },
];

const sdkFor = (publicKey) => new AlipaySdk({ appId: '2021000122600000', privateKey: MERCHANT_PRIVATE, keyType: 'PKCS8', alipayPublicKey: publicKey });
function sdkVerdict(c) {
  const postData = Object.fromEntries(new URLSearchParams(c.body));
  if (!postData.sign) return 'missing_signature';
  return c.secrets.some((k) => sdkFor(k).checkNotifySignV2(postData)) ? 'valid' : 'invalid_signature';
}
for (const c of cases) {
  const got = sdkVerdict(c);
  if (got !== c.expect) throw new Error(`${c.name}: the SDK says ${got}, the case says ${c.expect}`);
}

const out = {
  kind: 'alipay',
  source: {
    kind: 'sdk', package: 'alipay-sdk', registry: 'npm', version: '4.14.0',
    function: 'AlipaySdk.checkNotifySignV2',
    url: 'https://global.alipay.com/doc/app_cn/ds_mechanism',
  },
  facts: {
    title: 'Alipay',
    docs: 'https://global.alipay.com/doc/app_cn/ds_mechanism',
    scheme: 'form field sign = base64 RSA2 (SHA256withRSA) signature of every other form parameter but sign_type, sorted by name, name=value (decoded) joined by &',
    secret: "Alipay's public key (支付宝公钥) from the open platform console, base64 DER as shown, or PEM",
    timestamp: null,
    event_id: { form_field: 'notify_id' },
    event_id_note: 'notify_id identifies the notification; the resends of one notification carry it',
    event_type: { form_field: 'notify_type' },
    retry_horizon: 'resent until the answer body is exactly "success": 8 times within about 25 hours (4m, 10m, 10m, 1h, 2h, 6h, 15h)',
    retry_source: 'https://opendocs.alipay.com/open/270/105902',
    handshake: null,
  },
  cases,
};
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');

// Corpus captures (tests/captures/alipay/): a TRADE_SUCCESS notification,
// Alipay's resend of it (the same notification until it is answered
// `success`), and the notification of the trade's close (another notify_id).
// Signed like the cases, each checked by checkNotifySignV2 before it is written.
const DIR = new URL('../../captures/alipay/', import.meta.url);
const RETRIES = 'https://opendocs.alipay.com/open/270/105902';
const paid = signed({ ...PARAMS, notify_id: '2026010100222000000000000000000001', out_trade_no: '20260101000000001',
  trade_no: '2026010122001446880500000101', gmt_create: '2025-12-31 23:59:50', gmt_payment: '2025-12-31 23:59:58',
  notify_time: '2026-01-01 00:00:00' }, ALIPAY_PRIVATE);
const closed = signed({ ...PARAMS, notify_id: '2026010100222000000000000000000002', out_trade_no: '20260101000000001',
  trade_no: '2026010122001446880500000101', gmt_create: '2025-12-31 23:59:50', gmt_payment: '2025-12-31 23:59:58',
  notify_time: '2026-01-01 00:00:00', trade_status: 'TRADE_FINISHED', gmt_close: '2026-01-01 00:00:00' }, ALIPAY_PRIVATE);
const shots = [
  ['0001-trade-success.json', paid, 'accepted', 'a TRADE_SUCCESS trade notification: ' + RETRIES],
  ['0002-trade-success-resent.json', paid, 'duplicate', 'Alipay resends the notification (same notify_id) until the answer body is exactly success: ' + RETRIES],
  ['0003-trade-finished.json', closed, 'accepted', 'the same trade finished: another notification (another notify_id)'],
];
mkdirSync(DIR, { recursive: true });
const captures = [];
for (const [file, params, expect, why] of shots) {
  if (!sdkFor(ALIPAY_PUBLIC).checkNotifySignV2(Object.fromEntries(new URLSearchParams(form(params))))) {
    throw new Error(`${file}: checkNotifySignV2 refuses it`);
  }
  const capture = { provider: 'alipay', kind: 'alipay', tenant: 'default', method: 'POST', path: '/webhooks/alipay', query: '',
    headers: [['Content-Type', 'application/x-www-form-urlencoded; charset=utf-8']],
    body_base64: Buffer.from(form(params)).toString('base64'), received_at: '2026-01-01T00:00:00+00:00' };
  writeFileSync(new URL(file, DIR), JSON.stringify(capture, null, 2) + '\n');
  captures.push({ file: `alipay/${file}`, expect, events: [{ id: params.notify_id, type: params.notify_type }], why });
}
writeFileSync(new URL('manifest.json', DIR), JSON.stringify({ route: 'alipay', kind: 'alipay', secrets: [ALIPAY_PUBLIC],
  source: 'signed as Alipay signs (RSA2 over the sorted parameters but sign and sign_type) with the test key test-alipay-key.pem, each accepted by alipay-sdk 4.14.0 checkNotifySignV2: tests/vectors/alipay/generate.mjs',
  captures }, null, 2) + '\n');
console.log(`alipay: ${cases.length} cases, ${captures.length} captures`);
