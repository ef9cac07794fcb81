"""Known-answer vectors for Increase webhooks.

Signed with standardwebhooks' Webhook.sign (the library the official SDK verifies
with, given the key exactly as the SDK derives it) and every verdict from the
official SDK's client.events.unwrap (increase on PyPI).
"""
import json
from datetime import datetime, timezone
from pathlib import Path

import standardwebhooks.webhooks as swh
from increase import Increase
from standardwebhooks import Webhook, WebhookVerificationError

NOW = 1700000000
SECRET = "f7d3c1a9e85b4b2c9a6e0d4f3b2a1c9e"
OLD = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
OTHER = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
# Looks like a Standard Webhooks secret, yet the SDK still keys the HMAC with its UTF-8 bytes.
WHSEC_LOOKALIKE = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
HOOK_URL = "https://hooks.example.com/webhooks/increase/acme"
MSG_ID = "msg_2cHxVb1TqNq7n3kZ8rWfY5sLpAe"
# The docs' example Event, the exact body Increase POSTs (the Event's API representation).
EVENT = {
    "id": "event_123abc",
    "created_at": "2020-01-31T23:59:59Z",
    "category": "transaction.created",
    "associated_object_type": "transaction",
    "associated_object_id": "transaction_abc123",
    "type": "event",
}
BODY = json.dumps(EVENT, separators=(",", ":"))
TAMPERED = BODY.replace("abc123", "abc124")


def sdk_key(secret):
    # increase/resources/events.py: key = raw_key.encode("utf-8"), then Webhook(key).
    return secret.encode("utf-8")


def sign(secret, ts, body=BODY):
    return Webhook(sdk_key(secret)).sign(MSG_ID, datetime.fromtimestamp(ts, tz=timezone.utc), body)


def request(sigs, ts, body=BODY):
    headers = [
        ["Content-Type", "application/json"],
        ["webhook-id", MSG_ID],
        ["webhook-timestamp", str(ts)],
        ["webhook-signature", " ".join(sigs)],
    ]
    return {"method": "POST", "url": HOOK_URL, "headers": headers, "body": body, "now": NOW, "tolerance": 300}


def strip(r):
    return {**r, "headers": [h for h in r["headers"] if h[0].lower() != "webhook-signature"]}


class FrozenDatetime(datetime):
    now_value = NOW

    @classmethod
    def now(cls, tz=None):
        return datetime.fromtimestamp(cls.now_value, tz=tz)


def sdk_verdict(case):
    swh.datetime = FrozenDatetime  # standardwebhooks reads the clock itself
    FrozenDatetime.now_value = case["now"]
    verdict = "invalid_signature"
    for secret in case["secrets"]:
        client = Increase(api_key="unused", webhook_secret=secret)
        try:
            client.events.unwrap(case["body"], headers=dict(case["headers"]))
            return "valid"
        except WebhookVerificationError as e:
            msg = str(e)
            if msg == "Missing required headers":
                return "missing_signature"
            if msg.startswith("Message timestamp too"):
                verdict = "timestamp_out_of_tolerance"
            elif msg != "No matching signature found":
                raise
    return verdict


ts = NOW - 2
ok = {"event_id": EVENT["id"], "event_type": EVENT["category"]}
cases = [
    {"name": "transaction.created signed with the SDK's key, accepted by events.unwrap", "secrets": [SECRET], **request([sign(SECRET, ts)], ts), "expect": "valid", **ok},
    {"name": "a whsec_-looking secret is still used as its UTF-8 bytes, not base64-decoded", "secrets": [WHSEC_LOOKALIKE], **request([sign(WHSEC_LOOKALIKE, ts)], ts), "expect": "valid", **ok},
    {"name": "webhook-signature carries the old and the new secret's signatures, the tenant holds only the new", "secrets": [SECRET], **request([sign(OLD, ts), sign(SECRET, ts)], ts), "expect": "valid", **ok},
    {"name": "rotation: the second configured secret verifies", "secrets": [OTHER, SECRET], **request([sign(SECRET, ts)], ts), "expect": "valid", **ok},
    {"name": "one body byte changed after signing", "secrets": [SECRET], **request([sign(SECRET, ts)], ts), "body": TAMPERED, "expect": "invalid_signature"},
    {"name": "verified with another webhook secret", "secrets": [OTHER], **request([sign(SECRET, ts)], ts), "expect": "invalid_signature"},
    {"name": "webhook-signature removed", "secrets": [SECRET], **strip(request([sign(SECRET, ts)], ts)), "expect": "missing_signature"},
    {"name": "webhook-timestamp 301 seconds old", "secrets": [SECRET], **request([sign(SECRET, NOW - 301)], NOW - 301), "expect": "timestamp_out_of_tolerance"},
    {"name": "webhook-timestamp 301 seconds in the future", "secrets": [SECRET], **request([sign(SECRET, NOW + 301)], NOW + 301), "expect": "timestamp_out_of_tolerance"},
]
for c in cases:
    got = sdk_verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: SDK says {got}, case expects {c['expect']}")

DOCS = "https://increase.com/documentation/webhooks"
out = {
    "kind": "increase",
    "source": {
        "kind": "sdk",
        "package": "increase",
        "registry": "pypi",
        "version": "0.552.0",
        "function": "Increase(webhook_secret=...).events.unwrap (standardwebhooks 1.1.0 Webhook(secret.encode('utf-8')).verify); signed with Webhook.sign",
        "url": DOCS,
    },
    "facts": {
        "title": "Increase",
        "docs": DOCS,
        "scheme": 'Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature = space-separated "v1,<base64(HMAC-SHA256(key, id + "." + timestamp + "." + raw body))>") with key = the UTF-8 bytes of the secret as configured (never base64-decoded, even with a whsec_ prefix)',
        "secret": "the Event Subscription's shared secret, used verbatim as UTF-8 bytes (increase-python events.unwrap: raw_key.encode('utf-8'); increase-typescript: new Webhook('whsec_' + toBase64(key)))",
        "timestamp": "webhook-timestamp, unix seconds, signed; 5 minutes either way (standardwebhooks)",
        "event_id": {"json_pointer": "/id"},
        "event_id_note": "the body is the Event object's API representation, so its id (event_...) is the same on every retry of that Event: " + DOCS,
        "event_type": {"json_pointer": "/category"},
        "retry_horizon": "up to 7 retries with exponentially increasing backoff (production), no total stated: default window; Events stay listable for 30 days",
        "retry_source": DOCS,
        "handshake": None,
    },
    "cases": cases,
}
Path(__file__).with_name("vectors.json").write_text(json.dumps(out, indent=2) + "\n")
print(f"wrote {len(cases)} cases")
