// Known-answer vectors for FastSpring webhooks, from the documentation's own PHP
// sample ("Message Security", https://developer.fastspring.com/docs/message-security):
//
//   $hash = base64_encode( hash_hmac( 'sha256', file_get_contents('php://input') , $secret, true ) ); if ($hash == $_SERVER['X-Fs-Signature']) { /* Your code here */ }
//
// run by PHP's built-in web server on 127.0.0.1, so that php://input is the request
// body. The only changes: the placeholder `/* Your code here */` prints "valid", and a
// two-line driver before it sets $secret (from the query string) and copies the
// request's X-FS-Signature header to $_SERVER['X-Fs-Signature'] (the built-in server
// names it HTTP_X_FS_SIGNATURE; the docs' note says the name depends on the web server).
// Every case's verdict is the sample's. No FastSpring SDK on npm or PyPI verifies
// webhooks (`fastspring-node-sdk` is not FastSpring's).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { spawn } from 'node:child_process';
import { withIdentity } from '../identity.mjs';

const DOC_SAMPLE = `$hash = base64_encode( hash_hmac( 'sha256', file_get_contents('php://input') , $secret, true ) ); if ($hash == $_SERVER['X-Fs-Signature']) { echo 'valid'; }`;
const DRIVER = `<?php
$secret = $_GET['secret'];
$_SERVER['X-Fs-Signature'] = $_SERVER['HTTP_X_FS_SIGNATURE'] ?? null;
`;

const NOW = 1700000000;
const SECRET = 'fastspring-hmac-secret-8d2f4a6c1e3b';
const OTHER = 'fastspring-other-secret-5a7c9e1b3d';
const HOOK_URL = 'https://hooks.example.com/webhooks/fastspring';
const TYPE = 'order.completed';
// The documented envelope: a POST batches events[], each with id, live, processed, type, created, data
// (https://developer.fastspring.com/reference/webhooks-overview). Illustrative values.
const BODY = JSON.stringify({
  events: [{
    id: 'LK2ZvXhVQJeq3jF4nDpkHQ', live: false, processed: false, type: TYPE, created: 1699999990000,
    data: { order: 'uKj9EvbQRO6yIOnBw3l8Tg', id: 'uKj9EvbQRO6yIOnBw3l8Tg', reference: 'FUR231114-1234-56789', live: false, currency: 'USD', total: 19.99, completed: true },
  }],
});
const TAMPERED = BODY.replace('19.99', '19.98');

const sign = (secret, body = BODY) => createHmac('sha256', secret).update(body, 'utf8').digest('base64');
const req = (sig, body = BODY) => ({
  method: 'POST', url: HOOK_URL,
  headers: [['Content-Type', 'application/json'], ...(sig === null ? [] : [['X-FS-Signature', sig]])],
  body, now: NOW,
});
const sig = sign(SECRET);
const ok = { event_type: TYPE };
const cases = [
  { name: 'order.completed with X-FS-Signature = base64 HMAC-SHA256, accepted by the docs\' PHP sample', secrets: [SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'rotation: the second configured secret verifies', secrets: [OTHER, SECRET], ...req(sig), expect: 'valid', ...ok },
  { name: 'one body byte changed after signing', secrets: [SECRET], ...req(sig, TAMPERED), expect: 'invalid_signature' },
  { name: 'verified with another secret', secrets: [OTHER], ...req(sig), expect: 'invalid_signature' },
  { name: 'X-FS-Signature removed', secrets: [SECRET], ...req(null), expect: 'missing_signature' },
];

const dir = mkdtempSync(join(tmpdir(), 'fastspring-vectors-'));
writeFileSync(join(dir, 'index.php'), DRIVER + DOC_SAMPLE + '\n');
const PORT = 18000 + Math.floor(Math.random() * 1000);
const php = spawn('php', ['-S', `127.0.0.1:${PORT}`, '-t', dir], { stdio: 'ignore' });
try {
  for (let i = 0; i < 50; i++) {
    try { await fetch(`http://127.0.0.1:${PORT}/index.php?secret=x`, { method: 'POST', body: '' }); break; } catch { await new Promise((r) => setTimeout(r, 100)); }
  }
  for (const c of cases) {
    let got;
    if (!c.headers.some(([k]) => k.toLowerCase() === 'x-fs-signature')) got = 'missing_signature';
    else {
      got = 'invalid_signature';
      for (const s of c.secrets) {
        const res = await fetch(`http://127.0.0.1:${PORT}/index.php?secret=${encodeURIComponent(s)}`, { method: 'POST', headers: Object.fromEntries(c.headers), body: c.body });
        if ((await res.text()) === 'valid') { got = 'valid'; break; }
      }
    }
    if (got !== c.expect) throw new Error(`${c.name}: the docs' sample says ${got}, the case says ${c.expect}`);
  }
} finally {
  php.kill();
  rmSync(dir, { recursive: true, force: true });
}

const DOCS = 'https://developer.fastspring.com/docs/message-security';
const out = {
  kind: 'fastspring',
  source: { kind: 'docs-code', package: '', registry: '', version: '', function: 'the docs\' PHP hash_hmac sample, run by php -S', url: DOCS },
  facts: {
    title: 'FastSpring',
    docs: DOCS,
    scheme: 'X-FS-Signature = base64(HMAC-SHA256(the webhook\'s HMAC SHA256 Secret, raw body))',
    secret: 'the value of the webhook\'s "HMAC SHA256 Secret" field in the FastSpring App, as UTF-8 bytes',
    timestamp: null,
    batch: '/events',
    event_id: { json_pointer: '/id' },
    event_id_note: 'a POST batches several events (events[], each with its own id), so no single JSON field names the request; the body hash is used',
    event_type: { json_pointer: '/type' },
    retry_horizon: 'not stated on the pages consulted; default window',
    retry_source: 'https://developer.fastspring.com/reference/webhooks-overview',
    handshake: null,
  },
  cases,
};
withIdentity(out);
writeFileSync(new URL('./vectors.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
console.log(`fastspring: ${cases.length} cases`);
