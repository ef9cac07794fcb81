<?php
// Known-answer vectors for Help Scout webhooks, judged by the official PHP
// SDK's verifier: HelpScout\Api\Webhooks\IncomingWebhook of helpscout/api
// 3.10.3 (Packagist; github.com/helpscout/helpscout-api-php, tag 3.10.3,
// commit 6edf26666d03512732c395e98a965f4faa71e170). Its constructor throws
// InvalidSignatureException unless X-HelpScout-Signature matches.
//
// Packagist is not reachable here, so the SDK's src/ comes from the tag's
// source tree (HELPSCOUT_API_SRC) and its two dependencies this class touches
// from Debian (php-guzzlehttp-psr7 2.4.5, php-psr-http-message 1.0.1).
// Run: HELPSCOUT_API_SRC=/path/to/helpscout-api-php-3.10.3/src php generate.php

declare(strict_types=1);

$src = getenv('HELPSCOUT_API_SRC') ?: die("set HELPSCOUT_API_SRC to the SDK's src/\n");
require '/usr/share/php/Psr/Http/Message/autoload.php';
require '/usr/share/php/GuzzleHttp/Psr7/autoload.php';
spl_autoload_register(function (string $class) use ($src): void {
    $prefix = 'HelpScout\\Api\\';
    if (strncmp($class, $prefix, strlen($prefix)) === 0) {
        $file = $src . '/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});

use GuzzleHttp\Psr7\Request;
use HelpScout\Api\Exception\InvalidSignatureException;
use HelpScout\Api\Webhooks\IncomingWebhook;

const SECRET = 'hs-webhook-secret-7f3a9c2e5b1d4f6a';
const OTHER = 'hs-webhook-secret-0b8e6d4c2a9f7e5d';
const NOW = 1700000000;
const URL = 'https://hooks.example.com/webhooks/help-scout';
const TYPE = 'convo.created';

// A conversation event as Help Scout sends it: the conversation resource,
// compact JSON (https://developer.helpscout.com/webhooks/).
$body = json_encode([
    'id' => 2391938111,
    'number' => 349,
    'type' => 'email',
    'folderId' => 1234567,
    'status' => 'active',
    'state' => 'published',
    'subject' => 'Order 1042 never arrived',
    'mailboxId' => 85,
    'createdBy' => ['id' => 12, 'type' => 'customer', 'email' => 'bear@acme.com'],
    'createdAt' => '2023-11-14T22:13:15Z',
    'customer' => ['id' => 12, 'email' => 'bear@acme.com'],
], JSON_UNESCAPED_SLASHES);

// What Help Scout sends: base64 of the binary HMAC-SHA1 of the raw body.
function sign(string $secret, string $body): string
{
    return base64_encode(hash_hmac('sha1', $body, $secret, true));
}

function request(array $o = []): array
{
    global $body;
    $b = $o['body'] ?? $body;
    $headers = [['Content-Type', 'application/json'], ['X-HelpScout-Event', TYPE]];
    if (!($o['drop'] ?? false)) {
        $headers[] = ['X-HelpScout-Signature', sign($o['secret'] ?? SECRET, $o['sigBody'] ?? $b)];
    }
    return ['method' => 'POST', 'url' => URL, 'headers' => $headers, 'body' => $b];
}

$flipped = str_replace('"Order 1042 never arrived"', '"Order 1043 never arrived"', $body);
$cases = [
    ['name' => 'valid signature', 'secrets' => [SECRET]] + request() + ['expect' => 'valid', 'event_id' => hash('sha256', $body), 'event_type' => TYPE],
    ['name' => 'one body byte changed', 'secrets' => [SECRET]] + request(['body' => $flipped, 'sigBody' => $body]) + ['expect' => 'invalid_signature'],
    ['name' => 'verified with another secret', 'secrets' => [OTHER]] + request() + ['expect' => 'invalid_signature'],
    ['name' => 'X-HelpScout-Signature removed', 'secrets' => [SECRET]] + request(['drop' => true]) + ['expect' => 'missing_signature'],
    ['name' => 'tenant holds the old and the new secret', 'secrets' => [OTHER, SECRET]] + request() + ['expect' => 'valid', 'event_id' => hash('sha256', $body), 'event_type' => TYPE],
];

// The SDK reads headers as PHP's $_SERVER names them (makeFromGlobals keeps
// every HTTP_* key): X-HelpScout-Signature arrives as HTTP_X_HELPSCOUT_SIGNATURE.
function sdkAccepts(array $c, string $secret): bool
{
    $headers = [];
    foreach ($c['headers'] as [$k, $v]) {
        $headers['HTTP_' . strtoupper(str_replace('-', '_', $k))] = $v;
    }
    try {
        new IncomingWebhook(new Request($c['method'], URL, $headers, $c['body']), $secret);
        return true;
    } catch (InvalidSignatureException $e) {
        return false;
    }
}

foreach ($cases as &$c) {
    $hasSig = false;
    foreach ($c['headers'] as [$k]) {
        $hasSig = $hasSig || strcasecmp($k, 'X-HelpScout-Signature') === 0;
    }
    $accepted = false;
    foreach ($c['secrets'] as $s) {
        $accepted = sdkAccepts($c, $s) || $accepted;
    }
    // A missing header is refused by the SDK too (its expected value never
    // equals ''); hookline names it missing_signature.
    $sdk = !$hasSig ? ($accepted ? 'valid' : 'missing_signature') : ($accepted ? 'valid' : 'invalid_signature');
    if ($sdk !== $c['expect']) {
        fwrite(STDERR, "{$c['name']}: the SDK says $sdk, the case says {$c['expect']}\n");
        exit(1);
    }
    $c['now'] = NOW;
}
unset($c);

$out = [
    'kind' => 'help-scout',
    'source' => [
        'kind' => 'sdk',
        'package' => 'helpscout/api (Packagist)',
        'registry' => '',
        'version' => '3.10.3',
        'function' => 'HelpScout\\Api\\Webhooks\\IncomingWebhook (constructor: validateSignature)',
        'url' => 'https://github.com/helpscout/helpscout-api-php/blob/3.10.3/src/Webhooks/IncomingWebhook.php',
    ],
    'facts' => [
        'title' => 'Help Scout',
        'docs' => 'https://developer.helpscout.com/webhooks/',
        'scheme' => 'X-HelpScout-Signature = base64(HMAC-SHA1(webhook secret, raw body))',
        'secret' => "the webhook's Secret Key (Manage > Apps > Webhooks), used as UTF-8 bytes",
        'timestamp' => null,
        'event_id' => ['body_sha256' => true],
        'event_id_note' => 'no delivery or event ID is sent, so the body hash is used: https://developer.helpscout.com/webhooks/',
        'event_type' => ['header' => 'X-HelpScout-Event'],
        'retry_horizon' => 'not stated in the sources reachable here; use the default window',
        'retry_source' => 'https://developer.helpscout.com/webhooks/',
        'handshake' => null,
    ],
    'cases' => $cases,
];
file_put_contents('vectors.json', json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
echo 'help-scout: ' . count($cases) . " cases\n";
