"""Known-answer vectors for Smartcar webhooks, from the official Python SDK (PyPI `smartcar`, pinned in
requirements.txt): every signature is made with `smartcar.hash_challenge(amt, body)` and every verdict is
`smartcar.verify_payload(amt, signature, body)` over the raw body, as the SDK documents it ("body: Stringified JSON
of the webhook response body")."""
import json
import pathlib

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

DOCS = "https://smartcar.com/docs/api-reference/webhooks/events/vehicle-state"
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
        "event_id": None,
        "event_id_note": "not asserted: the kind is pending (see ../PENDING)",
        "event_type": None,
        "retry_horizon": "not asserted",
        "retry_source": DOCS,
        "handshake": "a VERIFY event whose challenge must be answered with hash_challenge(AMT, challenge): not built",
    },
    "cases": cases,
}
pathlib.Path(__file__).with_name("vectors.json").write_text(json.dumps(out, indent=2) + "\n")
print(f"smartcar: {len(cases)} cases")
