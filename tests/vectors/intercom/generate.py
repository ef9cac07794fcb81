"""Known-answer vectors for Intercom webhooks (X-Hub-Signature).

Source: Intercom's own sample receivers, github.com/intercom/intercom-webhooks
(now archived as intercom-archive/intercom-webhooks), python/flask/webhook_flask.py:
its signature lines are copied verbatim below and decide every verdict. The
scheme they implement is the one Intercom documents ("hexadecimal (40-byte)
representation of a SHA-1 signature computed using the HMAC algorithm ... The
X-Hub-Signature header value starts with the string sha1=",
https://developers.intercom.com/intercom-api-reference/v1.0/reference/signed-notifications).
Intercom's SDKs have no webhook verifier.
"""
import hashlib
import hmac
import json

SECRET = "3c0ffee7-1d2e-4b5a-9c8d-7e6f5a4b3c2d"     # the shape of an app's client_secret
OTHER = "0badc0de-9f8e-4d7c-8b6a-5f4e3d2c1b0a"
NOW = 1700000000
URL = "https://hooks.example.com/webhooks/intercom"
SIG_HEADER = "X-Hub-Signature"
EVENT_ID = "notif_35c466b0-070a-11e6-a507-3d022cab75f8"
EVENT_TYPE = "contact.created"


# --- Intercom's sample (python/flask/webhook_flask.py), its signature lines ---
def intercom_sample_matches(KEY, DATA, EXPECTED):
    calculated = hmac.new(KEY.encode("ascii"), DATA, hashlib.sha1).hexdigest()
    calculated = "sha1=" + (calculated)
    return calculated == EXPECTED
# ----------------------------------------------------------------------------


# The sample repository's own contact.created notification (samples/contact.created.txt), compacted.
BODY = json.dumps({
    "type": "notification_event",
    "app_id": "a86dr8yl",
    "data": {"type": "notification_event_data", "item": {
        "type": "contact", "id": "57179c30c776e05d4c0002a8", "user_id": "712529d3-919d-4a91-ac31-60979319594d",
        "anonymous": True, "email": "", "name": None, "pseudonym": "Green Deer from Bandar Seri Begawan",
        "app_id": "a86dr8yl", "created_at": "2016-04-20T15:11:44.074Z", "updated_at": "2016-04-20T15:11:51.357Z",
        "unsubscribed_from_emails": False, "custom_attributes": {}}},
    "links": {},
    "id": EVENT_ID,
    "topic": EVENT_TYPE,
    "delivery_status": None,
    "delivery_attempts": 1,
    "delivered_at": 0,
    "first_sent_at": 1461165111,
    "created_at": 1461165111,
    "self": None,
}, separators=(",", ":"))


def sign(secret, body=BODY):
    return "sha1=" + hmac.new(secret.encode(), body.encode(), hashlib.sha1).hexdigest()


def request(body=BODY, signed=BODY, drop=False):
    headers = [["Content-Type", "application/json"]]
    if not drop:
        headers.append([SIG_HEADER, sign(SECRET, signed)])
    return {"method": "POST", "url": URL, "headers": headers, "body": body}


changed = BODY.replace('"Green Deer', '"Green Beer')
assert changed != BODY
cases = [
    {"name": "valid sha1= signature", "secrets": [SECRET], **request(), "expect": "valid"},
    {"name": "one body byte changed", "secrets": [SECRET], **request(body=changed), "expect": "invalid_signature"},
    {"name": "verified with another client secret", "secrets": [OTHER], **request(), "expect": "invalid_signature"},
    {"name": "X-Hub-Signature removed", "secrets": [SECRET], **request(drop=True), "expect": "missing_signature"},
    {"name": "tenant holds the old and the new client secret", "secrets": [OTHER, SECRET], **request(), "expect": "valid"},
]
for c in cases:
    c["now"] = NOW
    if c["expect"] == "valid":
        c["event_id"] = EVENT_ID
        c["event_type"] = EVENT_TYPE


def verdict(case):
    """The sample's verdict; it too skips verification when the header is absent."""
    sig = next((v for k, v in case["headers"] if k == SIG_HEADER), None)
    if sig is None:
        return "missing_signature"
    data = case["body"].encode()
    return "valid" if any(intercom_sample_matches(k, data, sig) for k in case["secrets"]) else "invalid_signature"


for c in cases:
    got = verdict(c)
    if got != c["expect"]:
        raise SystemExit(f"{c['name']}: Intercom's sample says {got}, the case says {c['expect']}")

DOCS = "https://developers.intercom.com/docs/webhooks/setting-up-webhooks"
out = {
    "kind": "intercom",
    "source": {
        "kind": "docs-code", "package": "", "registry": "", "version": "",
        "function": "intercom/intercom-webhooks python/flask/webhook_flask.py (Intercom's sample receiver), signature lines run unchanged",
        "url": "https://developers.intercom.com/intercom-api-reference/v1.0/reference/signed-notifications",
    },
    "facts": {
        "title": "Intercom",
        "docs": DOCS,
        "scheme": "X-Hub-Signature: sha1=<hex HMAC-SHA1(client secret, raw body)>",
        "secret": "the app's client_secret from the Developer Hub (Configure > Basic information), used as ASCII bytes",
        "timestamp": None,
        "event_id": {"json_pointer": "/id"},
        "event_id_note": "the notification's id (notif_...); the body also carries delivery_attempts and delivered_at, which change between attempts, so the body hash is not an event ID: https://developers.intercom.com/docs/references/webhooks/webhook-models",
        "event_type": {"json_pointer": "/topic"},
        "retry_horizon": "not stated as a schedule; a subscription answering errors for more than 7 days is suspended (private apps): use the default window",
        "retry_source": "https://developers.intercom.com/docs/webhooks/webhook-notifications",
        "handshake": None,
    },
    "cases": cases,
}
with open("vectors.json", "w") as f:
    f.write(json.dumps(out, indent=2) + "\n")
print(f"intercom: {len(cases)} cases")
