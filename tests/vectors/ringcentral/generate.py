"""Known-answer vectors for RingCentral webhooks.

(A challenge with a control character cannot be sent over HTTP at all; the
handshake's refusal of one is a unit test in src/provider/handshake/header_echo.rs.)

RingCentral signs nothing: a subscription's optional verification token
(deliveryMode.verificationToken, chosen by the developer) comes back verbatim
in a header on every notification, so the known answer is the token itself.
RingCentral's guide names the header Verification-Token in one revision and
Validation-Token (with deliveryMode.validationToken) in the current one:
https://developers.ringcentral.com/guide/notifications/webhooks/receiving
The API's request type keeps `verificationToken` (RingCentral.Net and
ringcentral-java WebhookDeliveryModeRequest), so Verification-Token is read
first and Validation-Token accepted too.

The handshake: creating a subscription POSTs a request with a Validation-Token
header, and the URL "must return the Validation-Token response header using
the value that was sent in the Validation-Token request header"
(https://ringcentral-faq.readthedocs.io/en/latest/webhooks/; the docs' PHP
sample: `header("Validation-Token: {$v}")`,
https://ringcentral-quickstart.readthedocs.io/en/latest/webhooks/).
"""
import json

URL = "https://hooks.example.com/webhooks/ringcentral"
TOKEN = "rc-verification-token-7Q2mX9"
UUID = "5136325545765439551"
EVENT = "/restapi/v1.0/account/~/extension/~/message-store"
# The documented notification envelope (uuid, event, timestamp, subscriptionId,
# ownerId, body): https://developers.ringcentral.com/guide/team-messaging/events/outgoing-webhooks
BODY = json.dumps({
    "uuid": UUID, "event": EVENT, "timestamp": "2023-11-14T22:13:15.123Z",
    "subscriptionId": "fa8a8d1a-5d4c-4e4a-a6c8-7fcd2d4c0a11", "ownerId": "400131342008",
    "body": {"accountId": 400131342004, "extensionId": 400131342008, "lastUpdated": "2023-11-14T22:13:14.987Z",
             "changes": [{"type": "SMS", "newCount": 1, "updatedCount": 0, "newMessageIds": [12345678]}]},
}, separators=(",", ":"))


def case(name, headers, expect, secrets=(TOKEN,)):
    h = [["Content-Type", "application/json; charset=UTF-8"], ["User-Agent", "RingCentral-Webhook/8.3"]] + headers
    c = {"name": name, "secrets": list(secrets), "method": "POST", "url": URL, "headers": h,
         "body": BODY, "now": 1700000000, "expect": expect}
    if expect == "valid":
        c.update(event_id=UUID, event_type=EVENT)
    return c


cases = [
    case("Verification-Token carries the configured token", [["Verification-Token", TOKEN]], "valid"),
    case("the current guide's header name, Validation-Token", [["Validation-Token", TOKEN]], "valid"),
    case("another token of the same length", [["Verification-Token", TOKEN[:-1] + "8"]], "invalid_signature"),
    case("a prefix of the token", [["Verification-Token", TOKEN[:10]]], "invalid_signature"),
    case("verified with another token", [["Verification-Token", TOKEN]], "invalid_signature", secrets=["other-token"]),
    case("rotation: the tenant holds the old and the new token", [["Verification-Token", TOKEN]], "valid",
         secrets=["other-token", TOKEN]),
    case("no token header", [], "missing_signature"),
]

handshakes = [
    {
        "name": "subscription creation: the Validation-Token header echoed on a 200",
        "secrets": [TOKEN], "verify_token": None,
        "request": {"method": "POST", "url": URL, "headers": [["Validation-Token", "2b6a3a21-77f1-4b9c-9d3f-a6f0c2e1d4b7"]],
                    "body": ""},
        "now": 1700000000,
        "expect": {"status": 200, "content_type": None, "body": "",
                   "headers": [["Validation-Token", "2b6a3a21-77f1-4b9c-9d3f-a6f0c2e1d4b7"]]},
    },
]

doc = {
    "kind": "ringcentral",
    "source": {"kind": "docs-example", "package": "", "registry": "", "version": "", "function": "",
               "url": "https://developers.ringcentral.com/guide/notifications/webhooks/receiving"},
    "facts": {
        "title": "RingCentral",
        "docs": "https://developers.ringcentral.com/guide/notifications/webhooks/receiving",
        "scheme": "Verification-Token (or Validation-Token): the subscription's verification token, verbatim (no MAC, body not covered)",
        "secret": "the deliveryMode.verificationToken chosen when creating the subscription",
        "timestamp": None,
        "event_id": {"json_pointer": "/uuid"},
        "event_id_note": "uuid: 'A unique identifier for this specific event being transmitted'",
        "event_type": {"json_pointer": "/event"},
        "retry_horizon": "not documented on the pages reached",
        "retry_source": "https://developers.ringcentral.com/guide/notifications/webhooks/receiving",
        "handshake": "subscription creation POSTs Validation-Token with no body; the answer must echo it in a Validation-Token response header",
    },
    "cases": cases,
    "handshakes": handshakes,
}
with open("vectors.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
cap = cases[0]
with open("capture.json", "w") as f:
    import base64
    # The token is the test's own (RingCentral sends it as it was configured): a corpus capture
    # must carry it to be accepted, where hookline's own captures would redact it.
    headers = [[k, v] for k, v in cap["headers"]]
    json.dump({"provider": "ringcentral", "kind": "ringcentral", "tenant": "default", "method": "POST",
               "path": "/webhooks/ringcentral", "query": "", "headers": headers,
               "body_base64": base64.b64encode(cap["body"].encode()).decode(),
               "received_at": "2023-11-14T22:13:20+00:00",
               "expect": {"verdict": "accepted", "event_id": UUID, "event_type": EVENT, "secrets": cap["secrets"]}},
              f, indent=2)
    f.write("\n")
print(f"ringcentral: {len(cases)} cases, {len(handshakes)} handshakes, 1 capture")
