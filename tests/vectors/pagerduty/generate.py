"""Known-answer vectors for PagerDuty v3 webhooks.

Source: the documentation's own Python sample (PagerDutyVerifier) on
https://developer.pagerduty.com/docs/webhooks/04-Signatures (the page lives in
the PagerDuty/developer-docs repository), copied verbatim below. PagerDuty's
Python and Node clients have no webhook verifier. Each request is signed here
and the doc's verifier decides every verdict; the script fails on any
disagreement.
"""
import hashlib
import hmac
import json

SECRET = "pagerduty-test-secret-0123456789abcdefABCDEF"
OTHER = "pagerduty-other-secret-9876543210zyxwvuZYXWV"
NOW = 1700000000
URL = "https://hooks.example.com/webhooks/pagerduty"
SIG_HEADER = "X-PagerDuty-Signature"
WEBHOOK_ID = "b7a4b6e2-5f8e-11ee-8c99-0242ac120002"
EVENT_TYPE = "incident.triggered"


# --- the documentation's sample, verbatim ---------------------------------
class PagerDutyVerifier:
    def __init__(self, key: str, version: str) -> None:
        self.key = key
        self.version = version

    def verify(self, payload, signatures) -> bool:
        byte_key = self.key.encode("ASCII")
        signature = hmac.new(byte_key, payload.encode(), hashlib.sha256).hexdigest()
        signed_version = self.version + "=" + signature
        signatures = signatures.split(",")

        # Return boolean indicating whether signed version is legitimate.
        return any(hmac.compare_digest(signed_version, item) for item in signatures)
# ---------------------------------------------------------------------------


# The documented v3 payload shape: https://developer.pagerduty.com/docs/webhooks/01-v3-Overview
BODY = json.dumps({
    "event": {
        "id": "01DEN4HPBQAAAG05V5QQYBRZMF",
        "event_type": EVENT_TYPE,
        "resource_type": "incident",
        "occurred_at": "2023-11-14T22:13:15.000Z",
        "agent": {"html_url": "https://acme.pagerduty.com/users/PLH1HKV", "id": "PLH1HKV", "self": "https://api.pagerduty.com/users/PLH1HKV", "summary": "Tenex Engineer", "type": "user_reference"},
        "client": None,
        "data": {"id": "PGR0VU2", "type": "incident", "self": "https://api.pagerduty.com/incidents/PGR0VU2", "html_url": "https://acme.pagerduty.com/incidents/PGR0VU2", "number": 2, "status": "triggered", "title": "A little bump in the road", "urgency": "high"},
    }
}, separators=(",", ":"), ensure_ascii=False)


def sign(secret):
    return "v1=" + hmac.new(secret.encode(), BODY.encode(), hashlib.sha256).hexdigest()


def request(body=BODY, sign_with=(SECRET,), drop=False):
    headers = [["Content-Type", "application/json"], ["X-Webhook-Id", WEBHOOK_ID]]
    if not drop:
        headers.append([SIG_HEADER, ",".join(sign(s) for s in sign_with)])
    return {"method": "POST", "url": URL, "headers": headers, "body": body}


changed = BODY.replace('"A little bump in the road"', '"A little bump in the roae"')
assert changed != BODY
cases = [
    {"name": "valid v1 signature", "secrets": [SECRET], **request(), "expect": "valid"},
    {"name": "one body byte changed", "secrets": [SECRET], **request(body=changed), "expect": "invalid_signature"},
    {"name": "verified with another secret", "secrets": [OTHER], **request(), "expect": "invalid_signature"},
    {"name": "X-PagerDuty-Signature removed", "secrets": [SECRET], **request(drop=True), "expect": "missing_signature"},
    {"name": "two v1 signatures during secret rotation, the second matching", "secrets": [SECRET], **request(sign_with=(OTHER, SECRET)), "expect": "valid"},
    {"name": "tenant holds the old and the new secret", "secrets": [OTHER, SECRET], **request(), "expect": "valid"},
]


def verdict(case):
    """The doc verifier's verdict; a missing header is the caller's check."""
    sigs = next((v for k, v in case["headers"] if k == SIG_HEADER), None)
    if sigs is None:
        return "missing_signature"
    ok = any(PagerDutyVerifier(s, "v1").verify(case["body"], sigs) for s in case["secrets"])
    return "valid" if ok else "invalid_signature"


for c in cases:
    got = verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: the doc's verifier says {got}, the case says {c['expect']}")
    c["now"] = NOW
    if c["expect"] == "valid":
        c["event_id"] = WEBHOOK_ID
        c["event_type"] = EVENT_TYPE

out = {
    "kind": "pagerduty",
    "source": {
        "kind": "docs-code", "package": "", "registry": "", "version": "",
        "function": "PagerDutyVerifier.verify (Python sample)",
        "url": "https://developer.pagerduty.com/docs/webhooks/04-Signatures",
    },
    "facts": {
        "title": "PagerDuty",
        "docs": "https://developer.pagerduty.com/docs/webhooks/04-Signatures",
        "scheme": 'X-PagerDuty-Signature = comma-separated "v1=<hex HMAC-SHA256(secret, raw body)>", one per active secret; any may match',
        "secret": "the webhook subscription's secret, returned once when the v3 subscription is created, used as ASCII bytes",
        "timestamp": None,
        "event_id": {"header": "X-Webhook-Id"},
        "event_id_note": "X-Webhook-Id is unique to the webhook and repeated on every delivery attempt, documented for de-duplication (the body /event/id is the event): https://developer.pagerduty.com/docs/webhooks/02-Behavior",
        "event_type": {"json_pointer": "/event/event_type"},
        "retry_horizon": "up to 4 retries (5 attempts) with exponential backoff over about 20 minutes",
        "retry_source": "https://developer.pagerduty.com/docs/webhooks/02-Behavior",
        "handshake": None,
    },
    "cases": cases,
}
with open("vectors.json", "w") as f:
    f.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
print(f"pagerduty: {len(cases)} cases")
