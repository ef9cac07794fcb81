<?php
// Known-answer vectors for Mollie next-gen webhooks. Every request is signed here with PHP's hash_hmac and the
// official SDK's verifier, Mollie\Api\Webhooks\SignatureValidator from mollie/mollie-api-php 3.12.0 (pinned in
// composer.json), decides every verdict; the script fails on any disagreement.
//
// Run: `composer install && php generate.php`. Packagist is not reachable from the machine these vectors were made
// on, so there the SDK's src/ was taken from its Git tag v3.12.0 (commit 68d3423e) and autoloaded from
// MOLLIE_SDK_SRC=<dir>/src: `php generate.php` with that variable set.

$sdk = getenv('MOLLIE_SDK_SRC');
if ($sdk) {
    // psr/http-client 1.0's marker interface, which the SDK's exceptions implement (the package's whole source for
    // this interface: `interface ClientExceptionInterface extends \Throwable {}`); composer installs the real one.
    eval('namespace Psr\\Http\\Client; interface ClientExceptionInterface extends \\Throwable {}');
    spl_autoload_register(function ($class) use ($sdk) {
        $prefix = 'Mollie\\Api\\';
        if (strpos($class, $prefix) === 0) {
            $file = $sdk . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) require $file;
        }
    });
} else {
    require __DIR__ . '/vendor/autoload.php';
}

use Mollie\Api\Webhooks\SignatureValidator;
use Mollie\Api\Exceptions\InvalidSignatureException;

const NOW = 1700000000;
const SECRET = 'whsk_mollie_test_3f1a9c7e5b2d4f6a8c0e1b3d5f7a9c2e';
const OTHER = 'whsk_mollie_test_0a2c4e6f8b1d3f5a7c9e0b2d4f6a8c1e';
const HOOK_URL = 'https://hooks.example.com/webhooks/mollie';
const EVENT_ID = 'event_GvJ8WHrp5isUdRub9CJyH';
const EVENT_TYPE = 'payment-link.paid';
const DOCS = 'https://docs.mollie.com/reference/webhooks-new';

// The next-gen event shape (resource "event", id, type, entityId, createdAt, _links), trimmed.
$body = json_encode([
    'resource' => 'event', 'id' => EVENT_ID, 'type' => EVENT_TYPE, 'entityId' => 'pl_qng5gbbv8NAZ5gpM5ZYgx',
    'createdAt' => '2023-11-14T22:13:15+00:00',
    '_links' => ['self' => ['href' => 'https://api.mollie.com/v2/events/' . EVENT_ID, 'type' => 'application/hal+json']],
], JSON_UNESCAPED_SLASHES);
$tampered = str_replace('pl_qng5', 'pl_qng6', $body);

$sig = hash_hmac('sha256', $body, SECRET);
function req($sig, $body) {
    $headers = [['Content-Type', 'application/json']];
    if ($sig !== null) $headers[] = ['X-Mollie-Signature', $sig];
    return ['method' => 'POST', 'url' => HOOK_URL, 'headers' => $headers, 'body' => $body, 'now' => NOW];
}
$ok = ['event_id' => EVENT_ID, 'event_type' => EVENT_TYPE];
$cases = [
    ['name' => 'next-gen event with X-Mollie-Signature: sha256=<hex HMAC-SHA256(secret, body)>, accepted by SignatureValidator', 'secrets' => [SECRET]] + req('sha256=' . $sig, $body) + ['expect' => 'valid'] + $ok,
    ['name' => 'the bare hex digest without sha256= is accepted too (the SDK strips the prefix only when present)', 'secrets' => [SECRET]] + req($sig, $body) + ['expect' => 'valid'] + $ok,
    ['name' => 'rotation: the tenant holds the old and the new secret', 'secrets' => [OTHER, SECRET]] + req('sha256=' . $sig, $body) + ['expect' => 'valid'] + $ok,
    ['name' => 'one body byte changed after signing', 'secrets' => [SECRET]] + req('sha256=' . $sig, $tampered) + ['expect' => 'invalid_signature'],
    ['name' => 'verified with another signing secret', 'secrets' => [OTHER]] + req('sha256=' . $sig, $body) + ['expect' => 'invalid_signature'],
    ['name' => 'a base64 digest is rejected', 'secrets' => [SECRET]] + req('sha256=' . base64_encode(hash_hmac('sha256', $body, SECRET, true)), $body) + ['expect' => 'invalid_signature'],
    ['name' => 'X-Mollie-Signature removed', 'secrets' => [SECRET]] + req(null, $body) + ['expect' => 'missing_signature'],
];

foreach ($cases as $c) {
    $header = null;
    foreach ($c['headers'] as [$k, $v]) if (strcasecmp($k, 'X-Mollie-Signature') === 0) $header = $v;
    // Without a signature the SDK returns false ("legacy webhook"): for a next-gen endpoint that is a missing signature.
    if ($header === null) {
        $got = (new SignatureValidator($c['secrets']))->validatePayload($c['body'], []) ? 'valid' : 'missing_signature';
    } else {
        try {
            $got = (new SignatureValidator($c['secrets']))->validatePayload($c['body'], [$header]) ? 'valid' : 'invalid_signature';
        } catch (InvalidSignatureException $e) {
            $got = 'invalid_signature';
        }
    }
    if ($got !== $c['expect']) { fwrite(STDERR, "{$c['name']}: the SDK says $got, case expects {$c['expect']}\n"); exit(1); }
}

$out = [
    'kind' => 'mollie',
    'source' => ['kind' => 'sdk', 'package' => 'mollie/mollie-api-php', 'registry' => 'packagist', 'version' => '3.12.0',
        'function' => 'Mollie\\Api\\Webhooks\\SignatureValidator::validatePayload', 'url' => 'https://github.com/mollie/mollie-api-php/blob/v3.12.0/src/Webhooks/SignatureValidator.php'],
    'facts' => [
        'title' => 'Mollie (next-gen webhooks)',
        'docs' => DOCS,
        'scheme' => 'X-Mollie-Signature: sha256=<hex HMAC-SHA256(signing secret as UTF-8, raw body)> (the SDK also accepts the bare hex); the header is sent once per active secret while one rotates',
        'secret' => 'the webhook subscription\'s signing secret from the Dashboard (Developers > Webhooks) or the Webhooks API, used verbatim as UTF-8',
        'timestamp' => null,
        'event_id' => ['json_pointer' => '/id'],
        'event_id_note' => 'next-gen webhooks deliver an event object whose id (event_...) the Webhook Events API lists: ' . DOCS,
        'event_type' => ['json_pointer' => '/type'],
        'retry_horizon' => 'not stated on the reachable pages: default window',
        'retry_source' => DOCS,
        'handshake' => null,
    ],
    'cases' => $cases,
];
file_put_contents(__DIR__ . '/vectors.json', json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
echo 'wrote ' . count($cases) . " cases\n";
