# Known-answer vectors for Leaf webhooks (alerts), decided by the Python
# verification function printed in Leaf's docs
# (https://docs.withleaf.io/alerts/authentication), copied below verbatim and
# run unchanged. The requests are signed from the docs' description (base64
# HMAC-SHA256 of the raw body, keyed with the webhook's secret, in
# X-Leaf-Signature); the docs' function must accept every valid case and
# refuse every other one. It also writes the provider's corpus captures
# (tests/captures/leaf/).
import base64
import hashlib
import hmac
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from identity import with_identity  # noqa: E402

# https://docs.withleaf.io/alerts/authentication, "Code examples" (Python).
DOCS_SAMPLE = '''import hmac
import base64
import json

def verify_leaf_signature(raw_body: bytes, secret: str, signature_header: str) -> bool:
    expected_sig = hmac.digest(
        msg=raw_body,
        key=secret.encode("utf-8"),
        digest="sha256"
    )
    request_sig = base64.b64decode(signature_header)
    return hmac.compare_digest(expected_sig, request_sig)
'''
scope = {}
exec(DOCS_SAMPLE, scope)
verify_leaf_signature = scope['verify_leaf_signature']

NOW = 1700000000
SENT_AT = 1767225600  # the corpus's fixed send time, 2026-01-01T00:00:00Z
DOCS = 'https://docs.withleaf.io/alerts/authentication'
SECRET = 'leaf-webhook-secret-4f1b2c3d'
OTHER = 'another-leaf-webhook-secret'
CORPUS_SECRET = 'corpus-leaf-webhook-secret'
HEADER = 'X-Leaf-Signature'
# The docs' fieldCreated example, as the page says it is signed: compact JSON
# with a space after each ':' and ','.
BODY = '{"source": "REST", "leafUserId": "uuid", "fieldId": "uuid", "timestamp": "2024-06-15T14:30:00.000000Z", "type": "fieldCreated"}'
TAMPERED = BODY.replace('"REST"', '"RESU"')


def sign(secret, body):
    return base64.b64encode(hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()).decode()


def headers_for(sig):
    return [['Content-Type', 'application/json']] + ([[HEADER, sig]] if sig is not None else [])


def docs_verdict(c):
    sig = next((v for k, v in c['headers'] if k.lower() == HEADER.lower()), None)
    if sig is None:
        return 'missing_signature'
    ok = any(verify_leaf_signature(c['body'].encode(), s, sig) for s in c['secrets'])
    return 'valid' if ok else 'invalid_signature'


def req(sig, body=BODY):
    return {'method': 'POST', 'url': 'https://hooks.example.com/webhooks/leaf/acme', 'headers': headers_for(sig), 'body': body, 'now': NOW}


cases = [
    {'name': "the docs' fieldCreated example signed with the secret, accepted by verify_leaf_signature", 'secrets': [SECRET], **req(sign(SECRET, BODY)), 'expect': 'valid'},
    {'name': 'rotation: the second configured secret verifies', 'secrets': [OTHER, SECRET], **req(sign(SECRET, BODY)), 'expect': 'valid'},
    {'name': 'one body byte changed after signing', 'secrets': [SECRET], **req(sign(SECRET, BODY), TAMPERED), 'expect': 'invalid_signature'},
    {'name': 'verified with another secret', 'secrets': [OTHER], **req(sign(SECRET, BODY)), 'expect': 'invalid_signature'},
    {'name': HEADER + ' removed', 'secrets': [SECRET], **req(None), 'expect': 'missing_signature'},
]
for c in cases:
    got = docs_verdict(c)
    if got != c['expect']:
        raise SystemExit(f"{c['name']}: the docs' function says {got}, the case expects {c['expect']}")

out = with_identity({
    'kind': 'leaf',
    'source': {'kind': 'docs-code', 'package': '', 'registry': '', 'version': '',
               'function': 'verify_leaf_signature (Python sample of "Authentication", run unchanged)', 'url': DOCS},
    'facts': {
        'title': 'Leaf (alerts)',
        'docs': DOCS,
        'scheme': 'X-Leaf-Signature = base64(HMAC-SHA256(webhook secret, raw body))',
        'secret': 'the secret given when the webhook was created, used as text',
        'timestamp': None,
        'event_id': {'body_sha256': True},
        'event_id_note': 'the payload carries no event ID; each event has its own timestamp, so the body digest identifies it',
        'event_type': {'json_pointer': '/type'},
        'retry_horizon': 'not stated on the page read',
        'retry_source': DOCS,
        'handshake': None,
    },
    'cases': cases,
})
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, 'vectors.json'), 'w') as f:
    f.write(json.dumps(out, indent=2) + '\n')

body = '{"source": "REST", "leafUserId": "0f5d1b9e-3c2a-4e7f-9a8b-1c2d3e4f5a6b", "fieldId": "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "timestamp": "2026-01-01T00:00:00.000000Z", "type": "fieldCreated"}'
event_id = hashlib.sha256(body.encode()).hexdigest()
cap_dir = os.path.join(here, '..', '..', 'captures', 'leaf')
os.makedirs(cap_dir, exist_ok=True)
files = [('0001-fieldCreated.json', SENT_AT, 'accepted', f'a fieldCreated alert ({DOCS})'),
         ('0002-fieldCreated-resent.json', SENT_AT + 60, 'duplicate', 'the same request resent: the same body digest (the event ID)')]
import datetime  # noqa: E402
for name, at, _, _ in files:
    sig = sign(CORPUS_SECRET, body)
    if docs_verdict({'headers': headers_for(sig), 'body': body, 'secrets': [CORPUS_SECRET]}) != 'valid':
        raise SystemExit(f'capture {name} refused')
    with open(os.path.join(cap_dir, name), 'w') as f:
        f.write(json.dumps({'provider': 'leaf', 'kind': 'leaf', 'tenant': 'default', 'method': 'POST', 'path': '/webhooks/leaf', 'query': '',
                            'headers': headers_for(sig), 'body_base64': base64.b64encode(body.encode()).decode(),
                            'received_at': datetime.datetime.fromtimestamp(at, datetime.timezone.utc).isoformat()}, indent=2) + '\n')
with open(os.path.join(cap_dir, 'manifest.json'), 'w') as f:
    f.write(json.dumps({'route': 'leaf', 'kind': 'leaf', 'secrets': [CORPUS_SECRET],
                        'source': "signed from the docs' description, checked by the docs' own verify_leaf_signature sample (tests/vectors/leaf/generate.py)",
                        'captures': [{'file': f'leaf/{n}', 'expect': e, 'events': [{'id': event_id, 'type': 'fieldCreated'}], 'why': w} for n, _, e, w in files]},
                       indent=2) + '\n')
print(f'wrote {len(cases)} cases and {len(files)} captures')
