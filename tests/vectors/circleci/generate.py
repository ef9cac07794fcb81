"""Known-answer vectors for CircleCI outbound webhooks (circleci-signature).

CircleCI publishes no verifier package. Every verdict comes from the documentation's own Python
sample, copied verbatim below, and the docs' three worked examples (body, secret, signature) are
checked against it first. Source: https://circleci.com/docs/webhooks/#validate-webhooks, file
jekyll/_cci2/webhooks.adoc in github.com/circleci/circleci-docs at commit
002e41a773cc7c89e8a66dc0071ab0ca262a885c. Standard library only: run with any python3.
"""
import hashlib
import hmac
import json
import pathlib

# ---- verbatim from circleci/circleci-docs@002e41a jekyll/_cci2/webhooks.adoc ----
def verify_signature(secret, headers, body):
    # get the v1 signature from the `circleci-signature` header
    signature_from_header = {
        k: v for k, v in [
            pair.split('=') for pair in headers['circleci-signature'].split(',')
        ]
    }['v1']

    # Run HMAC-SHA256 on the request body using the configured signing secret
    valid_signature = hmac.new(bytes(secret, 'utf-8'), bytes(body, 'utf-8'), 'sha256').hexdigest()

    # use constant time string comparison to prevent timing attacks
    return hmac.compare_digest(valid_signature, signature_from_header)
# ---- end of the docs sample ----

# The docs' worked examples, each of which the sample must accept.
DOCS_EXAMPLES = [
    ('hello world', 'secret', '734cc62f32841568f45715aeb9f4d7891324e6d948e4c6c60c0621cdac48623a'),
    ('lalala', 'another-secret', 'daa220016c8f29a8b214fbfc3671aeec2145cfb1e6790184ffb38b6d0425fa00'),
    ('an-important-request-payload', 'hunter123', '9be2242094a9a8c00c64306f382a7f9d691de910b4a266f67bd314ef18ac49fa'),
    ('foo', 'secret', '773ba44693c7553d6ee20f61ea5d2757a9a4f4a44d2841ae4e95b52e4cd62db4'),
]
for body, secret, sig in DOCS_EXAMPLES:
    assert verify_signature(secret, {'circleci-signature': 'v1=' + sig}, body), (body, secret)

NOW = 1700000000
SECRET = 'super-secret-1234'
OTHER = 'hunter123'
HOOK_URL = 'https://hooks.example.com/webhooks/circleci/acme'
# A workflow-completed payload as the webhooks reference shows it (trimmed).
BODY = json.dumps({
    'type': 'workflow-completed', 'id': '3888f21b-eaa7-38e3-8f3d-75a63bba8895', 'happened_at': '2023-11-14T22:13:18.137Z',
    'webhook': {'id': 'cf8c4fdd-0587-4da1-b4ca-4846e9640af9', 'name': 'Sample Webhook'},
    'workflow': {'id': 'fda08377-fe7e-46b1-8992-3a7aaecac9c3', 'name': 'build-test-deploy', 'status': 'success',
                 'created_at': '2023-11-14T22:12:50.000Z', 'stopped_at': '2023-11-14T22:13:18.000Z',
                 'url': 'https://app.circleci.com/pipelines/github/acme/app/130/workflows/fda08377-fe7e-46b1-8992-3a7aaecac9c3'},
    'pipeline': {'id': '1285fe1d-d3a6-44fc-8886-8979558254c4', 'number': 130, 'created_at': '2023-11-14T22:12:49.000Z'},
    'project': {'id': '84996744-a854-4f5e-aea3-04e2851dc1d2', 'name': 'app', 'slug': 'github/acme/app'},
    'organization': {'id': 'f22b6566-597d-46d5-ba74-99ef5bb3d85c', 'name': 'acme'},
}, separators=(',', ':'))
TAMPERED = BODY.replace('"status":"success"', '"status":"failed"')


def sign(secret, body):
    """Our signer, per the docs' description; the docs sample judges every case."""
    return 'v1=' + hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()


def request(header, body=BODY):
    headers = [['content-type', 'application/json'], ['user-agent', 'CircleCI-Webhook/1.0'],
               ['circleci-event-type', 'workflow-completed']]
    if header is not None:
        headers.append(['circleci-signature', header])
    return {'method': 'POST', 'url': HOOK_URL, 'headers': headers, 'body': body, 'now': NOW}


def docs_verdict(case):
    headers = {k.lower(): v for k, v in case['headers']}
    if 'circleci-signature' not in headers:
        return 'missing_signature'
    ok = any(verify_signature(s, headers, case['body']) for s in case['secrets'])
    return 'valid' if ok else 'invalid_signature'


OK = {'event_id': '3888f21b-eaa7-38e3-8f3d-75a63bba8895', 'event_type': 'workflow-completed'}
cases = [
    {'name': 'workflow-completed signed per the docs, accepted by the docs sample', 'secrets': [SECRET], **request(sign(SECRET, BODY)), 'expect': 'valid', **OK},
    {'name': 'rotation: the second configured secret verifies', 'secrets': [OTHER, SECRET], **request(sign(SECRET, BODY)), 'expect': 'valid', **OK},
    {'name': 'one body byte changed after signing', 'secrets': [SECRET], **request(sign(SECRET, BODY), TAMPERED), 'expect': 'invalid_signature'},
    {'name': 'verified with another secret token', 'secrets': [OTHER], **request(sign(SECRET, BODY)), 'expect': 'invalid_signature'},
    {'name': 'circleci-signature removed', 'secrets': [SECRET], **request(None), 'expect': 'missing_signature'},
]
for case in cases:
    got = docs_verdict(case)
    assert got == case['expect'], f"{case['name']}: the docs sample says {got}, case expects {case['expect']}"

out = {
    'kind': 'circleci',
    'source': {'kind': 'docs-code', 'package': '', 'registry': '', 'version': '',
               'function': 'verify_signature (Python sample in circleci/circleci-docs@002e41a jekyll/_cci2/webhooks.adoc), plus its worked examples',
               'url': 'https://circleci.com/docs/webhooks/#validate-webhooks'},
    'facts': {
        'title': 'CircleCI',
        'docs': 'https://circleci.com/docs/webhooks/#validate-webhooks',
        'scheme': 'circleci-signature = comma-separated versioned list, v1=hex(HMAC-SHA256(secret token, raw body)); check only v1 (the latest version)',
        'secret': "the webhook's Secret token (Project Settings > Webhooks), used as UTF-8 text",
        'timestamp': None,
        'event_id': {'json_pointer': '/id'},
        'event_id_note': '"Webhook requests may be duplicated. To deduplicate ... use the id property in the webhook payload": https://circleci.com/docs/webhooks/#communication-protocol',
        'event_type': {'header': 'circleci-event-type'},
        'retry_horizon': 'CircleCI retries a non-2xx or a response slower than 10 s "at a later time"; no schedule is documented, so keep the default window',
        'retry_source': 'https://circleci.com/docs/webhooks/#communication-protocol',
        'handshake': None,
    },
    'cases': cases,
}
pathlib.Path(__file__).with_name('vectors.json').write_text(json.dumps(out, indent=2) + '\n')
print(f'wrote {len(cases)} cases')
