"""Known-answer vectors for Webex webhooks, from Webex for Developers' own Python
sample ("Using a Webhook Secret", https://developer.webex.com/blog/using-a-webhook-secret),
run below: every case's verdict is the sample's. The sample's handler body is
copied verbatim; only the itty3 routing around it is left out (the decorator, the
app object, the final render), and the handler returns the sample's own "Equal?"
comparison instead of rendering "OK". No Webex package on npm or PyPI verifies
webhooks. Standard library only: python3 generate.py
"""
import hashlib
import hmac
import json
from types import SimpleNamespace
import os  # noqa: E402
import sys  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from identity import with_identity  # noqa: E402


def index(request):
    """
    When messages come in from the webhook, they are processed here.
    X-Spark-Signature - The header containing the sha1 hash we need to validate
    request.body - the Raw JSON String we need to use to validate the X-Spark-Signature
    """
    raw = request.body
    # Let's create the SHA1 signature
    # based on the request body JSON (raw) and our passphrase (key)
    hashed = hmac.new(key.encode(), raw, hashlib.sha1)
    validatedSignature = hashed.hexdigest()
    print('validatedSignature', validatedSignature)
    print('X-Spark-Signature', request.headers.get('X-Spark-Signature'))
    print('Equal?', validatedSignature == request.headers.get('X-Spark-Signature'))
    return validatedSignature == request.headers.get('X-Spark-Signature')


NOW = 1700000000
SECRET = "somesupersecretphrase"  # the sample's own passphrase
OTHER = "another-webex-webhook-secret-4e2a"
HOOK_URL = "https://hooks.example.com/webhooks/webex"
RESOURCE = "messages"
# The documented envelope (https://developer.webex.com/docs/api/guides/webhooks): the
# webhook's own fields, then the event's resource, event and data. Illustrative IDs.
BODY = json.dumps({
    "id": "Y2lzY29zcGFyazovL3VzL1dFQkhPT0svZjRlNjA1NjAtNjYwMi00ZmIwLWEyNWEtOTQ5ODgxNjA5NDk3",
    "name": "New message in 'Project Unicorn' room",
    "targetUrl": HOOK_URL,
    "resource": RESOURCE,
    "event": "created",
    "orgId": "OTZhYmMyYWEtM2RjYy0xMWU1LWExNTItZmUzNDgxOWNkYzlh",
    "createdBy": "Y2lzY29zcGFyazovL3VzL1BFT1BMRS8xZjdkZTVjYi04NTYxLTQ2NzEtYmMwMy1iYzk3NDMxNDQ0MmQ",
    "appId": "Y2lzY29zcGFyazovL3VzL0FQUExJQ0FUSU9OL0MyNzljYjMwYzAyOTE4MGJiNGJkYWViYjA2MWI3OTY1Y2RhMzliNjAyOTdjODUwM2YyNjZhYmY2NmM5OTllYzFm",
    "ownedBy": "creator",
    "status": "active",
    "actorId": "Y2lzY29zcGFyazovL3VzL1BFT1BMRS8xZjdkZTVjYi04NTYxLTQ2NzEtYmMwMy1iYzk3NDMxNDQ0MmQ",
    "data": {
        "id": "Y2lzY29zcGFyazovL3VzL01FU1NBR0UvOTJkYjNiZTAtNDNiZC0xMWU2LThhZTktZGQ1YjNkZmM1NjVk",
        "roomId": "Y2lzY29zcGFyazovL3VzL1JPT00vYmJjZWIxYWQtNDNmMS0zYjU4LTkxNDctZjE0YmIwYzRkMTU0",
        "roomType": "group",
        "personId": "Y2lzY29zcGFyazovL3VzL1BFT1BMRS8xZjdkZTVjYi04NTYxLTQ2NzEtYmMwMy1iYzk3NDMxNDQ0MmQ",
        "personEmail": "matt@example.com",
        "created": "2023-11-14T22:13:15.000Z",
    },
}, separators=(",", ":"))
TAMPERED = BODY.replace("matt@example.com", "matu@example.com")
HEADER = "X-Spark-Signature"


def sign(secret, body=BODY):
    return hmac.new(secret.encode(), body.encode(), hashlib.sha1).hexdigest()


def req(sig, body=BODY):
    headers = [["Content-Type", "application/json"]]
    if sig is not None:
        headers.append([HEADER, sig])
    return {"method": "POST", "url": HOOK_URL, "headers": headers, "body": body, "now": NOW}


SIG = sign(SECRET)
OK = {"event_type": RESOURCE}
cases = [
    {"name": "messages/created with X-Spark-Signature = hex HMAC-SHA1, accepted by the sample", "secrets": [SECRET], **req(SIG), "expect": "valid", **OK},
    {"name": "rotation: the second configured secret verifies", "secrets": [OTHER, SECRET], **req(SIG), "expect": "valid", **OK},
    {"name": "one body byte changed after signing", "secrets": [SECRET], **req(SIG, TAMPERED), "expect": "invalid_signature"},
    {"name": "verified with another webhook secret", "secrets": [OTHER], **req(SIG), "expect": "invalid_signature"},
    {"name": f"{HEADER} removed", "secrets": [SECRET], **req(None), "expect": "missing_signature"},
]


class Headers(dict):
    def get(self, name, default=None):
        for k, v in self.items():
            if k.lower() == name.lower():
                return v
        return default


def verdict(c):
    headers = Headers(c["headers"])
    if headers.get(HEADER) is None:
        return "missing_signature"
    global key
    for s in c["secrets"]:
        key = s
        if index(SimpleNamespace(body=c["body"].encode(), headers=headers)):
            return "valid"
    return "invalid_signature"


for c in cases:
    got = verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: the sample says {got}, the case says {c['expect']}")

DOCS = "https://developer.webex.com/blog/using-a-webhook-secret"
out = {
    "kind": "webex",
    "source": {"kind": "docs-code", "package": "", "registry": "", "version": "", "function": "the Webex for Developers blog's Python webhook handler (hmac.new(key.encode(), raw, hashlib.sha1))", "url": DOCS},
    "facts": {
        "title": "Webex",
        "docs": DOCS,
        "scheme": "X-Spark-Signature = hex(HMAC-SHA1(webhook secret, raw body))",
        "secret": "the \"secret\" given when the webhook was created (POST /v1/webhooks), as UTF-8 bytes",
        "timestamp": None,
        "event_id": {"body_sha256": True},
        "event_id_note": "the body's id is the webhook's (the same for every event it sends) and data.id is the resource's; no field names the notification, so the body hash is used",
        "event_type": {"json_pointer": "/resource"},
        "retry_horizon": "not stated on the pages consulted; default window",
        "retry_source": "https://developer.webex.com/docs/api/guides/webhooks",
        "handshake": None,
    },
    "cases": cases,
}
with_identity(out)
with open("vectors.json", "w") as f:
    f.write(json.dumps(out, indent=2) + "\n")
print(f"webex: {len(cases)} cases")
