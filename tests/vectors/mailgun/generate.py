"""Known-answer vectors for Mailgun webhooks.

Source: Mailgun's official Python SDK (PyPI `mailgun`, github.com/mailgun/mailgun-python),
`mailgun.security.SecurityGuard.verify_webhook`, which decides every verdict
with its clock fixed at the case's `now`. The signature lives inside the JSON
body (`signature.timestamp`, `signature.token`, `signature.signature`); the
SDK only verifies, so the requests are built here.
"""
import hashlib
import hmac
import json
from unittest import mock

from mailgun.security import SecurityGuard

SECRET = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0"     # the shape of a dashboard signing key
OTHER = "key-9zq1mtr74kd0vbe8yqh2pcws5nfa6uxl"
NOW = 1700000000
TOLERANCE = 900                                    # the SDK's default max_age_seconds
URL = "https://hooks.example.com/webhooks/mailgun"
TOKEN = "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0"
EVENT_ID = "CPgfbmQMTCKtHW6uIWtuVe"
EVENT_TYPE = "delivered"


def hexmac(key, at, token):
    return hmac.new(key.encode(), f"{at}{token}".encode(), hashlib.sha256).hexdigest()


def body(at=NOW - 2, key=SECRET, token=TOKEN, drop=False, parent=None, recipient="alice@example.com"):
    """The documented webhook payload: https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks"""
    sig = {"timestamp": str(at), "token": token}
    if not drop:
        sig["signature"] = hexmac(key, at, token)
    if parent:
        # A subaccount's event also carries the primary account's signature.
        sig["parent-signature"] = hexmac(parent, at, token)
    return json.dumps({
        "signature": sig,
        "event-data": {
            "id": EVENT_ID,
            "timestamp": at + 0.352317,
            "log-level": "info",
            "event": EVENT_TYPE,
            "delivery-status": {"tls": True, "mx-host": "smtp-in.example.com", "code": 250, "description": "", "session-seconds": 0.43, "message": "OK", "attempt-no": 1},
            "flags": {"is-routed": False, "is-authenticated": True, "is-system-test": False, "is-test-mode": False},
            "envelope": {"transport": "smtp", "sender": "bob@sandbox.mailgun.org", "sending-ip": "209.61.154.250", "targets": recipient},
            "message": {"headers": {"to": recipient, "message-id": "20130503182626.18666.16540@sandbox.mailgun.org", "from": "Bob <bob@sandbox.mailgun.org>", "subject": "Test delivered webhook"}, "attachments": [], "size": 111},
            "recipient": recipient,
            "recipient-domain": "example.com",
            "storage": {"url": "https://se.api.mailgun.net/v3/domains/sandbox.mailgun.org/messages/message_key", "key": "message_key"},
            "campaigns": [], "tags": ["my_tag_1"], "user-variables": {"my_var_1": "Mailgun Variable #1"},
        },
    }, separators=(",", ":"))


def request(**kw):
    return {"method": "POST", "url": URL, "headers": [["Content-Type", "application/json"]], "body": body(**kw)}


signed = body()
cases = [
    {"name": "valid signature", "secrets": [SECRET], **request(), "expect": "valid"},
    {"name": "one byte of the signed token changed", "secrets": [SECRET], **request(),
     "body": signed.replace(TOKEN, TOKEN[:-1] + "1"), "expect": "invalid_signature"},
    {"name": "verified with another signing key", "secrets": [OTHER], **request(), "expect": "invalid_signature"},
    {"name": "signature.signature removed", "secrets": [SECRET], **request(drop=True), "expect": "missing_signature"},
    {"name": "timestamp 901 s old", "secrets": [SECRET], **request(at=NOW - 901), "at": NOW - 901, "expect": "timestamp_out_of_tolerance"},
    {"name": "timestamp 901 s in the future", "secrets": [SECRET], **request(at=NOW + 901), "at": NOW + 901, "expect": "timestamp_out_of_tolerance"},
    {"name": "tenant holds the old and the new signing key", "secrets": [OTHER, SECRET], **request(), "expect": "valid"},
    {"name": "subaccount event: tenant holds the primary account's key, matched by parent-signature", "secrets": [SECRET],
     **request(key=OTHER, parent=SECRET), "expect": "valid"},
    # The signature covers timestamp + token only, never event-data (NOTES.md).
    {"name": "event-data changed: not covered by the signature, still valid", "secrets": [SECRET], **request(),
     "body": signed.replace("alice@example.com", "mallory@example.com"), "expect": "valid"},
]
for c in cases:
    c["now"] = NOW
    c["tolerance"] = TOLERANCE
    if c["expect"] == "valid":
        c["event_id"] = EVENT_ID
        c["event_type"] = EVENT_TYPE


def accepts(case, now):
    sig = json.loads(case["body"])["signature"]
    # The SDK checks one signature at a time: the account's own, then (for a
    # subaccount's event) the primary account's parent-signature.
    candidates = [sig[f] for f in ("signature", "parent-signature") if f in sig]
    with mock.patch("mailgun.security.time.time", return_value=float(now)):
        return any(SecurityGuard.verify_webhook(k, sig["token"], sig["timestamp"], s, max_age_seconds=TOLERANCE)
                   for k in case["secrets"] for s in candidates)


def verdict(case):
    """The SDK's verdict; a missing signature field is the caller's check."""
    if "signature" not in json.loads(case["body"])["signature"]:
        return "missing_signature"
    if accepts(case, case["now"]):
        return "valid"
    if "at" in case and accepts(case, case["at"]):
        return "timestamp_out_of_tolerance"
    return "invalid_signature"


for c in cases:
    got = verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: the SDK says {got}, the case says {c['expect']}")
    c.pop("at", None)

DOCS = "https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks"
out = {
    "kind": "mailgun",
    "source": {
        "kind": "sdk", "package": "mailgun", "registry": "pypi", "version": "1.10.0",
        "function": "mailgun.security.SecurityGuard.verify_webhook",
        "url": DOCS,
    },
    "facts": {
        "title": "Mailgun",
        "docs": DOCS,
        "scheme": "signature inside the JSON body: /signature/signature = hex HMAC-SHA256(signing key, /signature/timestamp + /signature/token); a subaccount's event also carries /signature/parent-signature, the same HMAC with the primary account's key; the event data is not covered",
        "secret": "the HTTP webhook signing key from Sending > Webhooks (Webhook signing key), used as UTF-8 bytes",
        "timestamp": "/signature/timestamp, unix seconds as a string, signed; the SDK refuses more than 900 s either way",
        "event_id": {"json_pointer": "/event-data/id"},
        "event_id_note": "event-data.id is the event's ID in the documented payload; the signature token is documented only as a random 50-character string: https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/webhooks-payload",
        "event_type": {"json_pointer": "/event-data/event"},
        "retry_horizon": "retried for 8 hours (5 min, 10 min, 15 min, 1 h, 2 h, 4 h) unless answered 200 or 406",
        "retry_source": "https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/webhook-retries",
        "handshake": None,
    },
    "cases": cases,
}
# The definition's tolerance, the same as the SDK's, is the one in force.
for c in out["cases"]:
    c.pop("tolerance", None)
with open("vectors.json", "w") as f:
    f.write(json.dumps(out, indent=2) + "\n")
print(f"mailgun: {len(cases)} cases")
