<?php
// Test harness, not part of the docs sample: it gives the unchanged webhook.php the request a
// web server would (method, content type, X-Gitea-Signature, body on php://input), taken from
// the environment, and prints at shutdown the first line the sample logged, or "ok".
$_SERVER['REQUEST_METHOD'] = 'POST';
$_SERVER['CONTENT_TYPE'] = 'application/json';
if (getenv('SIG') !== false) {
    $_SERVER['HTTP_X_GITEA_SIGNATURE'] = getenv('SIG');
}

// php-cli has no request body: serve php://input from the BODY environment variable.
class InputStream
{
    private $data = '';
    private $pos = 0;
    public $context;
    public function stream_open($path, $mode, $options, &$opened)
    {
        $this->data = $path === 'php://input' ? (string) getenv('BODY') : '';
        return true;
    }
    public function stream_read($count)
    {
        $chunk = substr($this->data, $this->pos, $count);
        $this->pos += strlen($chunk);
        return $chunk;
    }
    public function stream_eof()
    {
        return $this->pos >= strlen($this->data);
    }
    public function stream_stat()
    {
        return [];
    }
}
stream_wrapper_unregister('php');
stream_wrapper_register('php', 'InputStream');

// The sample's outcomes are error_log('FAILED - ...') then exit(), or reaching its end.
$GLOBALS['__log'] = tempnam(sys_get_temp_dir(), 'gitea-vectors');
ini_set('error_log', $GLOBALS['__log']);
register_shutdown_function(function () {
    $logged = trim((string) file_get_contents($GLOBALS['__log']));
    unlink($GLOBALS['__log']);
    echo $logged === '' ? 'ok' : preg_replace('/^\[[^\]]*\] /', '', strtok($logged, "\n"));
});
