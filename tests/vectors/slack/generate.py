"""Known-answer vectors for Slack, checked by the official `slack_sdk`.

The first case is the worked example of Slack's "Verifying requests from
Slack" page, as slack_sdk's own tests use it verbatim; the Events API and
url_verification requests are signed by SignatureVerifier.generate_signature.
Every verdict is asked of SignatureVerifier.is_valid with its clock at the
case's `now`; the script fails on any disagreement.
"""
import json

from slack_sdk.signature import SignatureVerifier
import os  # noqa: E402
import sys  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from identity import with_identity  # noqa: E402

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TS = 1531420618
FORM_BODY = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
FORM_SIG = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
# https://api.slack.com/apis/events-api#callback-field (event_callback envelope)
EVENT_BODY = '{"token":"XXYYZZ","team_id":"T123ABC456","api_app_id":"A123ABC456","event":{"type":"app_mention","user":"U123ABC456","text":"<@U0LAN0Z89> hi","ts":"1531420618.000200","channel":"C123ABC456","event_ts":"1531420618.000200"},"type":"event_callback","event_id":"Ev123ABC456","event_time":1531420618}'
# https://api.slack.com/events/url_verification
CHALLENGE = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
VERIFY_BODY = '{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"' + CHALLENGE + '","type":"url_verification"}'
URL = "https://hooks.example.com/webhooks/slack"


class Clock:
    def __init__(self, now):
        self._now = now

    def now(self):
        return self._now


def sign(body, ts=TS):
    return SignatureVerifier(SECRET).generate_signature(timestamp=str(ts), body=body)


def headers(sig, ts=TS, content_type="application/json"):
    h = [["Content-Type", content_type]]
    if ts is not None:
        h.append(["X-Slack-Request-Timestamp", str(ts)])
    if sig is not None:
        h.append(["X-Slack-Signature", sig])
    return h


def case(name, hdrs, expect, body=FORM_BODY, secrets=(SECRET,), now=TS, **extra):
    return {"name": name, "secrets": list(secrets), "method": "POST", "url": URL, "headers": hdrs,
            "body": body, "now": now, "tolerance": 300, "expect": expect, **extra}


FORM = "application/x-www-form-urlencoded"
assert sign(FORM_BODY) == FORM_SIG
cases = [
    case("docs worked example: a slash command", headers(FORM_SIG, content_type=FORM), "valid"),
    case("an Events API callback", headers(sign(EVENT_BODY)), "valid", body=EVENT_BODY,
         event_id="Ev123ABC456", event_type="app_mention"),
    case("one body byte changed", headers(FORM_SIG, content_type=FORM), "invalid_signature",
         body=FORM_BODY.replace("foobar", "foobaz")),
    case("verified with another secret", headers(FORM_SIG, content_type=FORM), "invalid_signature",
         secrets=["0" * 32]),
    case("tenant holds another secret and the right one (rotation)", headers(FORM_SIG, content_type=FORM),
         "valid", secrets=["0" * 32, SECRET]),
    case("X-Slack-Signature removed", headers(None, content_type=FORM), "missing_signature"),
    case("X-Slack-Request-Timestamp removed", headers(FORM_SIG, ts=None, content_type=FORM), "missing_signature"),
    case("the signature replayed with a fresh timestamp", headers(FORM_SIG, ts=TS + 1, content_type=FORM),
         "invalid_signature", now=TS + 1),
    case("timestamp 301 s old", headers(FORM_SIG, content_type=FORM), "timestamp_out_of_tolerance", now=TS + 301),
    case("timestamp 301 s in the future", headers(FORM_SIG, content_type=FORM), "timestamp_out_of_tolerance",
         now=TS - 301),
    case("a timestamp that is not a number", headers(FORM_SIG, ts="yesterday", content_type=FORM),
         "invalid_signature"),
]


def sdk_verdict(c):
    h = {k.lower(): v for k, v in c["headers"]}
    for secret in c["secrets"]:
        v = SignatureVerifier(secret, clock=Clock(c["now"]))
        try:
            ok = v.is_valid(body=c["body"], timestamp=h.get("x-slack-request-timestamp"),
                            signature=h.get("x-slack-signature"))
        except ValueError:
            ok = False
        if ok:
            return "valid"
    return "rejected"


for c in cases:
    assert sdk_verdict(c) == ("valid" if c["expect"] == "valid" else "rejected"), c["name"]


def handshake(name, body, sig, signed, expect, ts=TS):
    """`signed`: the SDK's verdict on the request's signature, asserted."""
    req = {"method": "POST", "url": URL, "headers": headers(sig, ts), "body": body}
    ok = sdk_verdict({"headers": req["headers"], "body": body, "secrets": [SECRET], "now": TS}) == "valid"
    assert ok == signed, name
    return {"name": name, "secrets": [SECRET], "verify_token": None, "request": req, "now": TS, "expect": expect}


handshakes = [
    handshake("url_verification, signed: the challenge echoed", VERIFY_BODY, sign(VERIFY_BODY), True,
              {"status": 200, "content_type": "text/plain", "body": CHALLENGE,
               "headers": [["X-Content-Type-Options", "nosniff"]]}),
    handshake("url_verification, wrongly signed: refused before any echo", VERIFY_BODY,
              sign(VERIFY_BODY.replace(CHALLENGE, "other")), False,
              {"status": 401, "content_type": "application/problem+json", "code": "invalid_signature"}),
    handshake("url_verification with an oversized challenge, signed", VERIFY_BODY.replace(CHALLENGE, "x" * 513),
              sign(VERIFY_BODY.replace(CHALLENGE, "x" * 513)), True,
              {"status": 400, "content_type": "application/problem+json", "code": "malformed_payload"}),
]
# The oversized challenge is refused by hookline's own limit (512 bytes),
# although its signature is good.

doc = {
    "kind": "slack",
    "source": {"kind": "sdk", "package": "slack_sdk", "registry": "pypi", "version": "3.47.0",
               "function": "slack_sdk.signature.SignatureVerifier",
               "url": "https://api.slack.com/authentication/verifying-requests-from-slack"},
    "facts": {
        "title": "Slack",
        "docs": "https://api.slack.com/authentication/verifying-requests-from-slack",
        "scheme": "X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, \"v0:\" + X-Slack-Request-Timestamp + \":\" + raw body)>",
        "secret": "the app's Signing Secret, its UTF-8 bytes",
        "timestamp": "X-Slack-Request-Timestamp, unix seconds, signed; 5 minutes in the SDK",
        "event_id": {"json_pointer": "/event_id"},
        "event_id_note": "Events API callbacks carry a globally unique event_id, kept on retries: https://api.slack.com/apis/events-api#retries",
        "event_type": {"json_pointer": "/event/type"},
        "retry_horizon": "3 retries: immediately, after 1 minute, after 5 minutes",
        "retry_source": "https://api.slack.com/apis/events-api#retries",
        "handshake": "url_verification: a signed POST whose challenge is answered as text/plain: https://api.slack.com/events/url_verification",
    },
    "cases": cases,
    "handshakes": handshakes,
}
# A slash command is signed but is no Events API event: hookline must refuse
# it missing_event_id rather than invent an ID.
for c in cases:
    if c["expect"] == "valid" and c["body"].startswith("token="):
        c["event_id"] = None
with_identity(doc)
with open("vectors.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"{len(cases)} cases, {len(handshakes)} handshakes, every signature verdict confirmed by the SDK")
