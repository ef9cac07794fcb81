"""Known-answer vectors for Smartcar webhooks, from the official Python SDK (PyPI `smartcar`, pinned in
requirements.txt): every signature is made with `smartcar.hash_challenge(amt, body)` and every verdict is
`smartcar.verify_payload(amt, signature, body)` over the raw body, as the SDK documents it ("body: Stringified JSON
of the webhook response body"). The VERIFY handshake's answer is `smartcar.hash_challenge(amt, challenge)`, as
Smartcar's callback verification page has it
(https://smartcar.com/docs/integrations/webhooks/callback-verification)."""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from identity import with_identity  # noqa: E402

import smartcar

NOW = 1700000000
URL = "https://hooks.example.com/webhooks/smartcar"
AMT = "smartcar-amt-5b0d7e3f-1a2c-4e6f-8a9b-0c1d2e3f4a5b"
OTHER = "smartcar-amt-9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
BODY = json.dumps({
    "eventId": "5a537912-9ad3-424b-ba33-65a1704567e9",
    "eventType": "VEHICLE_STATE",
    "data": {
        "user": {"id": "93b3ab6d-a2d1-4f6f-bd42-1ba7d2b1e8c4"},
        "vehicle": {"id": "36ab27d0-fd9d-4455-823a-ce30af709ffc", "make": "TESLA", "model": "Model 3", "year": 2020},
        "signals": [{"code": "tractionbattery-stateofcharge", "name": "StateOfCharge", "group": "TractionBattery",
                     "body": {"value": 78, "unit": "percent"}}],
    },
    "triggers": [{"type": "SIGNAL_UPDATED", "signal": {"code": "tractionbattery-stateofcharge"}}],
    "meta": {"version": "4.0", "webhookId": "123e4567-e89b-12d3-a456-426614174000",
             "deliveryId": "48b25f8f-2d4f-4ad4-9ad3-3e8e1c6c7b10", "deliveredAt": 1699999999000},
}, separators=(",", ":"))
TAMPERED = BODY.replace('"value":78', '"value":79')


def req(sig, body=BODY):
    headers = [["Content-Type", "application/json"]]
    if sig is not None:
        headers.append(["SC-Signature", sig])
    return {"method": "POST", "url": URL, "headers": headers, "body": body, "now": NOW}


sig = smartcar.hash_challenge(AMT, BODY)
cases = [
    {"name": "VEHICLE_STATE signed by smartcar.hash_challenge, accepted by smartcar.verify_payload", "secrets": [AMT], **req(sig), "expect": "valid"},
    {"name": "rotation: the second configured token verifies", "secrets": [OTHER, AMT], **req(sig), "expect": "valid"},
    {"name": "one body byte changed after signing", "secrets": [AMT], **req(sig, TAMPERED), "expect": "invalid_signature"},
    {"name": "verified with another Application Management Token", "secrets": [OTHER], **req(sig), "expect": "invalid_signature"},
    {"name": "SC-Signature removed", "secrets": [AMT], **req(None), "expect": "missing_signature"},
]
for c in cases:
    h = {k.lower(): v for k, v in c["headers"]}
    if "sc-signature" not in h:
        got = "missing_signature"
    else:
        got = "valid" if any(smartcar.verify_payload(s, h["sc-signature"], c["body"]) for s in c["secrets"]) else "invalid_signature"
    assert got == c["expect"], f"{c['name']}: the SDK says {got}, the case says {c['expect']}"

# The VERIFY event, as the callback verification page prints it (its challenge filled in), signed like every
# webhook: "Every webhook includes an SC-Signature header"
# (https://smartcar.com/docs/integrations/webhooks/payload-verification).
CHALLENGE = "3a9f1c0e-7b2d-4e8a-9c5f-1d2e3f4a5b6c"
VERIFY = json.dumps({
    "eventId": "52f6e0bb-1369-45da-a61c-9e67d092d6db",
    "eventType": "VERIFY",
    "data": {"challenge": CHALLENGE},
    "meta": {"version": "4.0", "webhookId": "5a8e5e38-1e12-4011-a36d-56f120053f9e", "webhookName": "Example Webhook",
             "deliveryId": "5d569643-3a47-4cd1-a3ec-db5fc1f6f03b", "deliveredAt": "2025-07-31T19:38:42.332Z"},
}, separators=(",", ":"))
verify_req = req(smartcar.hash_challenge(AMT, VERIFY), VERIFY)
handshakes = [
    {"name": "VERIFY signed by smartcar.hash_challenge: answered with hash_challenge(AMT, challenge)",
     "secrets": [AMT], "verify_token": None,
     "request": {k: verify_req[k] for k in ("method", "url", "headers", "body")}, "now": NOW,
     "expect": {"status": 200, "content_type": "application/json",
                "body": json.dumps({"challenge": smartcar.hash_challenge(AMT, CHALLENGE)})}},
    {"name": "VERIFY verified with another token: refused, no HMAC given",
     "secrets": [OTHER], "verify_token": None,
     "request": {k: verify_req[k] for k in ("method", "url", "headers", "body")}, "now": NOW,
     "expect": {"status": 401, "content_type": "application/problem+json", "code": "invalid_signature"}},
]

DOCS = "https://smartcar.com/docs/integrations/webhooks/payload-verification"
out = {
    "kind": "smartcar",
    "source": {"kind": "sdk", "package": "smartcar", "registry": "pypi", "version": "6.19.1",
               "function": "smartcar.hash_challenge / smartcar.verify_payload", "url": DOCS},
    "facts": {
        "title": "Smartcar",
        "docs": DOCS,
        "scheme": "SC-Signature = hex(HMAC-SHA256(Application Management Token, raw body))",
        "secret": "the application's Application Management Token (Smartcar Dashboard)",
        "timestamp": None,
        "event_id": {"json_pointer": "/eventId"},
        "event_id_note": "eventId identifies the event; Smartcar advises deduplicating on it: "
                         "https://smartcar.com/docs/integrations/webhooks/best-practices/security",
        "event_type": {"json_pointer": "/eventType"},
        "retry_horizon": "not stated in the pages read; use the default window",
        "retry_source": DOCS,
        "handshake": "a signed VERIFY event answered 200 with {\"challenge\": hash_challenge(AMT, data.challenge)}: "
                     "https://smartcar.com/docs/integrations/webhooks/callback-verification",
    },
    "cases": cases,
    "handshakes": handshakes,
}
with_identity(out)
pathlib.Path(__file__).with_name("vectors.json").write_text(json.dumps(out, indent=2) + "\n")
print(f"smartcar: {len(cases)} cases")
