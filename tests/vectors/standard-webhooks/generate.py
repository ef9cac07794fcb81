"""Known-answer vectors for Standard Webhooks (and Svix, its `svix` alias),
checked by the reference `standardwebhooks` SDK.

The valid requests are the hard-coded vectors of the reference library's
JavaScript tests and of svix-webhooks' Rust tests (NOTES.md); every other
case is one of them with one thing changed. Each case's verdict is asked of
standardwebhooks.Webhook.verify with its clock at the case's `now` (the SDK
reads only `webhook-*` names, so `svix-*` headers are renamed for it); the
script fails on any disagreement.
"""
import json
from datetime import datetime, timezone
from unittest import mock

import standardwebhooks.webhooks as sw
import os  # noqa: E402
import sys  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from identity import with_identity  # noqa: E402

URL = "https://hooks.example.com/webhooks/standard-webhooks"
# standard-webhooks libraries/javascript/src/webhook.test.ts, "sign function works"
SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SW_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SW_TS = 1614265330
SW_BODY = '{"test": 2432232314}'
SW_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
# "multi sig payload is valid"
DECOY = "Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
# svix-webhooks rust/src/webhooks.rs: test_sign, test_no_verify,
# test_verify_with_multiple_signatures
SVIX_SECRET = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
SVIX_ID = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk"
SVIX_TS = 1649367553
SVIX_BODY = '{"email":"test@example.com","username":"test_user"}'
SVIX_SIG = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
SVIX_BAD = "v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU="
SVIX_DECOYS = "v1,tFtCZ5RDCPxzWQRWXWPgrCgE2frDBe9gjpbWQxnVfsQ= v1,Mm7xgUVICxZfQ3bgf0h0Dof65L/IFx+PnZvnDWPCX6Q= v1,9DfC1c3eeOrXB6w/5dIDydLNQaEyww5KalE5jLBZucE="


def headers(prefix, msg_id, ts, sig):
    h = [["Content-Type", "application/json"]]
    for name, value in (("id", msg_id), ("timestamp", ts), ("signature", sig)):
        if value is not None:
            h.append([f"{prefix}-{name}", str(value)])
    return h


def case(name, expect, prefix="webhook", msg_id=SW_ID, ts=SW_TS, sig=SW_SIG, body=SW_BODY,
         secrets=(SW_SECRET,), now=None, **extra):
    c = {"name": name, "secrets": list(secrets), "method": "POST", "url": URL,
         "headers": headers(prefix, msg_id, ts, sig), "body": body,
         "now": now if now is not None else (ts if isinstance(ts, int) else SW_TS),
         "tolerance": 300, "expect": expect}
    if expect == "valid":
        c["event_id"] = msg_id
    c.update(extra)
    return c


def svix(name, expect, **kw):
    kw = {"prefix": "svix", "msg_id": SVIX_ID, "ts": SVIX_TS, "sig": SVIX_SIG, "body": SVIX_BODY,
          "secrets": (SVIX_SECRET,), **kw}
    return case(name, expect, **kw)


cases = [
    case("reference library vector", "valid"),
    case("reference library vector, secret without whsec_", "valid", secrets=["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]),
    case("several signatures, one valid (and a v2 ignored)", "valid", sig=f"v1,{DECOY} {SW_SIG} v2,{DECOY}"),
    case("one body byte changed", "invalid_signature", body=SW_BODY.replace("4", "5", 1)),
    case("verified with another secret", "invalid_signature", secrets=["whsec_c2VjcmV0LXR3by1rZXk="]),
    case("tenant holds another secret and the right one (rotation)", "valid",
         secrets=["whsec_c2VjcmV0LXR3by1rZXk=", SW_SECRET]),
    case("webhook-signature removed", "missing_signature", sig=None),
    case("webhook-timestamp removed", "missing_signature", ts=None),
    case("webhook-id removed", "missing_signature", msg_id=None),
    case("timestamp 301 s old", "timestamp_out_of_tolerance", now=SW_TS + 301),
    case("timestamp 301 s in the future", "timestamp_out_of_tolerance", now=SW_TS - 301),
    svix("svix-webhooks vector under svix-* headers", "valid"),
    svix("svix-webhooks: decoys before the valid signature", "valid", sig=f"{SVIX_DECOYS} {SVIX_SIG}"),
    svix("svix-webhooks: decoys only", "invalid_signature", sig=SVIX_DECOYS),
    svix("svix-webhooks test_no_verify signature", "invalid_signature", sig=SVIX_BAD),
    svix("the signature under another message ID", "invalid_signature", msg_id="msg_other"),
]


def sdk_verdict(c):
    h = {}
    for k, v in c["headers"]:
        h[k.lower().replace("svix-", "webhook-")] = v
    fixed = datetime.fromtimestamp(c["now"], tz=timezone.utc)

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed

    verdict = "rejected"
    with mock.patch.object(sw, "datetime", Clock):
        for secret in c["secrets"]:
            try:
                sw.Webhook(secret).verify(c["body"], h, json_parse=False)
                return "valid"
            except sw.WebhookVerificationError as e:
                if "too old" in str(e) or "too new" in str(e):
                    verdict = "timestamp_out_of_tolerance"
    return verdict


for c in cases:
    want = c["expect"] if c["expect"] in ("valid", "timestamp_out_of_tolerance") else "rejected"
    assert sdk_verdict(c) == want, (c["name"], sdk_verdict(c))

doc = {
    "kind": "standard-webhooks",
    "source": {"kind": "sdk", "package": "standardwebhooks", "registry": "pypi", "version": "1.1.0",
               "function": "standardwebhooks.Webhook.verify",
               "url": "https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md"},
    "facts": {
        "title": "Standard Webhooks",
        "docs": "https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md",
        "scheme": "webhook-signature: v1,<base64 HMAC-SHA256(key, id + \".\" + timestamp + \".\" + raw body)>, space-separated list; svix-* names alike",
        "secret": "whsec_ + base64 of the key; the key is the decoded bytes",
        "timestamp": "webhook-timestamp, unix seconds, signed; 5 minutes both ways in the SDK",
        "event_id": {"header": "webhook-id"},
        "event_id_note": "the spec: the same on every retry, use it as the idempotency key",
        "event_type": {"json_pointer": "/type"},
        "retry_horizon": "sender-defined",
        "retry_source": "https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md",
        "handshake": None,
    },
    "cases": cases,
}
with_identity(doc)
with open("vectors.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"{len(cases)} cases, every verdict confirmed by the SDK")
