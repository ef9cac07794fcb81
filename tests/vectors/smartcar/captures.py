"""Smartcar's captures for the corpus (tests/captures/smartcar/, README.md there): bodies signed by the official SDK,
`smartcar.hash_challenge(amt, body)` (smartcar 6.19.1, requirements.txt), each checked by its
`smartcar.verify_payload` before it is written, at the corpus's fixed time 2026-01-01T00:00:00Z, for the route
`smartcar` of the tenant `default`."""
import base64
import json
import pathlib

import smartcar

AMT = "smartcar-corpus-amt-2d9c4b7e-0f1a-4c3d-8e5f-6a7b8c9d0e1f"
SENT_AT = "2026-01-01T00:00:00+00:00"
DIR = pathlib.Path(__file__).resolve().parent.parent.parent / "captures" / "smartcar"


def state(delivery_id, delivered_at, charge):
    return json.dumps({
        "eventId": "0c6e2a9f-4d1b-4e7a-8f3c-5b2d9e1a7c40",
        "eventType": "VEHICLE_STATE",
        "data": {
            "user": {"id": "7f1e3d5c-9b2a-4c8e-a6d4-2e0f8b1c3a59"},
            "vehicle": {"id": "c2e4a6b8-1d3f-4a5c-9e7b-0f2d4c6e8a1b", "make": "FORD", "model": "Mustang Mach-E",
                        "year": 2023},
            "signals": [{"code": "tractionbattery-stateofcharge", "name": "StateOfCharge", "group": "TractionBattery",
                         "body": {"value": charge, "unit": "percent"}}],
        },
        "triggers": [{"type": "SIGNAL_UPDATED", "signal": {"code": "tractionbattery-stateofcharge"}}],
        "meta": {"version": "4.0", "webhookId": "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
                 "deliveryId": delivery_id, "deliveredAt": delivered_at},
    }, separators=(",", ":"))


FIRST = state("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "2025-12-31T23:59:50.000Z", 64)
RETRY = state("f6e5d4c3-b2a1-4f9e-8d7c-6b5a4f3e2d1c", "2025-12-31T23:59:58.000Z", 64)


def capture(body):
    sig = smartcar.hash_challenge(AMT, body)
    assert smartcar.verify_payload(AMT, sig, body)
    return {
        "provider": "smartcar", "kind": "smartcar", "tenant": "default", "method": "POST",
        "path": "/webhooks/smartcar", "query": "",
        "headers": [["Content-Type", "application/json"], ["SC-Signature", sig]],
        "body_base64": base64.b64encode(body.encode()).decode(), "received_at": SENT_AT,
    }


DIR.mkdir(parents=True, exist_ok=True)
files = [("0001-vehicle-state.json", FIRST), ("0002-vehicle-state-redelivered.json", RETRY)]
for name, body in files:
    (DIR / name).write_text(json.dumps(capture(body), indent=2) + "\n")
event = [{"id": "0c6e2a9f-4d1b-4e7a-8f3c-5b2d9e1a7c40", "type": "VEHICLE_STATE"}]
manifest = {
    "route": "smartcar",
    "kind": "smartcar",
    "secrets": [AMT],
    "source": "signed by the official SDK, smartcar 6.19.1 hash_challenge, and checked by its verify_payload: "
              "tests/vectors/smartcar/captures.py",
    "captures": [
        {"file": "smartcar/0001-vehicle-state.json", "expect": "accepted", "events": event,
         "why": "a VEHICLE_STATE event: https://smartcar.com/docs/api-reference/webhooks/events/vehicle-state"},
        {"file": "smartcar/0002-vehicle-state-redelivered.json", "expect": "duplicate", "events": event,
         "why": "the same eventId delivered again under new delivery metadata (meta.deliveryId, meta.deliveredAt), "
                "which the fingerprint ignores: "
                "https://smartcar.com/docs/integrations/webhooks/best-practices/security"},
    ],
}
(DIR / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
print(f"smartcar: {len(files)} captures")
