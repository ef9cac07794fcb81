"""Known-answer vectors for Dropbox webhooks.

Source: Dropbox's own sample app github.com/dropbox/mdwebhook (app.py), which
the webhooks reference links to: its validate_request() and challenge()
bodies are copied below (Python 2 -> 3: the secret and body as bytes) and
decide every verdict. The answer headers of the challenge come from the
reference: https://www.dropbox.com/developers/reference/webhooks
"""
import hashlib
import hmac
import json
from hashlib import sha256
from urllib.parse import urlencode
import os  # noqa: E402
import sys  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from identity import with_identity  # noqa: E402

SECRET = "q8h3k2m9p1x7v4z"          # the shape of an App secret (15 characters)
OTHER = "z4v7x1p9m2k3h8q"
NOW = 1700000000
URL = "https://hooks.example.com/webhooks/dropbox"
SIG_HEADER = "X-Dropbox-Signature"


# --- dropbox/mdwebhook app.py, validate_request() and challenge() ---------
def validate_request(APP_SECRET, signature, data):
    return signature == hmac.new(APP_SECRET, data, sha256).hexdigest()


def challenge(args):
    return args.get('challenge')
# ----------------------------------------------------------------------------


# A notification as the reference documents it (list_folder for API v2 apps,
# delta for v1 apps).
BODY = json.dumps({
    "list_folder": {"accounts": ["dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc", "dbid:AAAcDrTSu0TyFZ9TWBbfO2i9TuUTw1LAQ1g"]},
    "delta": {"users": [12345, 67890]},
}, separators=(",", ":"))


def sign(secret, body=BODY):
    return hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()


def request(body=BODY, secret=SECRET, drop=False):
    headers = [["Content-Type", "application/json"]]
    if not drop:
        headers.append([SIG_HEADER, sign(secret)])
    return {"method": "POST", "url": URL, "headers": headers, "body": body}


changed = BODY.replace("12345", "12346")
cases = [
    {"name": "valid signature", "secrets": [SECRET], **request(), "expect": "valid"},
    {"name": "one body byte changed", "secrets": [SECRET], **request(body=changed), "expect": "invalid_signature"},
    {"name": "verified with another app secret", "secrets": [OTHER], **request(), "expect": "invalid_signature"},
    {"name": "X-Dropbox-Signature removed", "secrets": [SECRET], **request(drop=True), "expect": "missing_signature"},
    {"name": "tenant holds the old and the new app secret", "secrets": [OTHER, SECRET], **request(), "expect": "valid"},
]
for c in cases:
    c["now"] = NOW


def verdict(case):
    sig = next((v for k, v in case["headers"] if k == SIG_HEADER), None)
    if sig is None:
        return "missing_signature"
    ok = any(validate_request(k.encode(), sig, case["body"].encode()) for k in case["secrets"])
    return "valid" if ok else "invalid_signature"


for c in cases:
    got = verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: Dropbox's sample says {got}, the case says {c['expect']}")

CHALLENGE = "M0zQ1Oi0hW2zQ5gtoCyGk4U8oFeYPu5f3EuPAy1tQaQ"
query = {"challenge": CHALLENGE}
echoed = challenge(query)
assert echoed == CHALLENGE
handshakes = [{
    "name": "verification request: the challenge echoed as text/plain with nosniff",
    "secrets": [SECRET], "verify_token": None,
    "request": {"method": "GET", "url": f"{URL}?{urlencode(query)}", "headers": [], "body": ""},
    "now": NOW,
    "expect": {"status": 200, "content_type": "text/plain", "body": echoed,
               "headers": [["X-Content-Type-Options", "nosniff"]]},
}]

DOCS = "https://www.dropbox.com/developers/reference/webhooks"
out = {
    "kind": "dropbox",
    "source": {
        "kind": "docs-code", "package": "", "registry": "", "version": "",
        "function": "dropbox/mdwebhook app.py validate_request() and challenge() (Dropbox's sample), run unchanged",
        "url": DOCS,
    },
    "facts": {
        "title": "Dropbox",
        "docs": DOCS,
        "scheme": "X-Dropbox-Signature = hex HMAC-SHA256(app secret, raw body)",
        "secret": "the app's App secret from the App Console (Settings tab), used as UTF-8 bytes",
        "timestamp": None,
        "event_id": {"body_sha256": True},
        "event_id_note": "a notification only lists the accounts with changes (list_folder.accounts); no ID: " + DOCS,
        "event_type": None,
        "retry_horizon": "not confirmed here; use the default window",
        "retry_source": DOCS,
        "handshake": "verification request: GET ?challenge=C answered 200 with body C, Content-Type text/plain and X-Content-Type-Options: nosniff (against reflected XSS); unsigned: " + DOCS,
    },
    "cases": cases,
    "handshakes": handshakes,
}
with_identity(out)
with open("vectors.json", "w") as f:
    f.write(json.dumps(out, indent=2) + "\n")
print(f"dropbox: {len(cases)} cases, {len(handshakes)} handshakes")
