"""Known-answer vectors for Cisco Meraki webhooks (Dashboard alerts to an HTTP server), from the documentation's
worked example: the example alert on Meraki's developer pages carries `"sharedSecret": "foo"`, the shared secret the
HTTP server was configured with (https://developer.cisco.com/meraki/meraki-dashboard-api-node-red-node/webhooks),
and Meraki's Security section says the receiver checks that value
(https://developer.cisco.com/meraki/webhooks/introduction/#shared-secret). Nothing is signed: the body carries the
secret itself. The verdicts are the documented comparison (sharedSecret equals the configured secret).
Standard library only."""
import hashlib
import json
import pathlib

NOW = 1700000000
URL = "https://hooks.example.com/webhooks/meraki"
SECRET = "foo"  # the example's own shared secret
OTHER = "bar-other-meraki-secret"


def alert(shared_secret="foo", drop_secret=False):
    # The docs' example alert, field for field, in the order shown.
    body = {
        "version": "0.1",
        "sharedSecret": shared_secret,
        "sentAt": "2019-07-19T06:20:39.656975Z",
        "organizationId": "00000001",
        "organizationName": "Miles Monitoring Inc.",
        "organizationUrl": "https://n1.meraki.com/o//manage/organization/overview",
        "networkId": "N_111111111111",
        "networkName": "Main Office",
        "networkUrl": "https://n1.meraki.com//n//manage/nodes/list",
        "alertId": "0000000000000000",
        "alertType": "Settings changed",
        "occurredAt": "2019-07-19T06:15:33.504142Z",
        "alertData": {
            "name": "Routing and DHCP",
            "url": "/manage/configure/switch_l3",
            "changes": {"createStaticRoute": {
                "label": "Added static route on SP-Warehouse",
                "newText": "10.10.10.0/24 -> 172.16.254.253",
                "changedBy": "Miles Meraki (Miles@Meraki.com)",
                "oldText": "",
                "ssidId": None,
            }},
            "userId": "646829496481136255",
        },
        "deviceSerial": "XXXX-XXXX-XXXX",
        "deviceMac": "00:00:00:aa:bb:cc",
        "deviceName": "Device Foo Bar",
        "deviceUrl": "https://n1.meraki.com//n//manage/nodes/new_list/000000000000",
    }
    if drop_secret:
        del body["sharedSecret"]
    return json.dumps(body, separators=(",", ":"))


def documented_check(body, secrets):
    """Meraki's documented check: the alert's sharedSecret equals the HTTP server's shared secret."""
    value = json.loads(body).get("sharedSecret")
    if value is None:
        return "missing_signature"
    return "valid" if value in secrets else "invalid_signature"


def req(body):
    return {"method": "POST", "url": URL, "headers": [["Content-Type", "application/json"]], "body": body, "now": NOW}


ok = {"event_id": "0000000000000000", "event_type": "Settings changed"}
cases = [
    {"name": "the docs' example alert with sharedSecret foo", "secrets": [SECRET], **req(alert()), "expect": "valid", **ok},
    {"name": "rotation: the tenant holds another secret and foo", "secrets": [OTHER, SECRET], **req(alert()), "expect": "valid", **ok},
    {"name": "one byte of sharedSecret changed", "secrets": [SECRET], **req(alert("fop")), "expect": "invalid_signature"},
    {"name": "verified with another shared secret", "secrets": [OTHER], **req(alert()), "expect": "invalid_signature"},
    {"name": "sharedSecret removed", "secrets": [SECRET], **req(alert(drop_secret=True)), "expect": "missing_signature"},
]
for c in cases:
    got = documented_check(c["body"], c["secrets"])
    assert got == c["expect"], f"{c['name']}: the documented check says {got}, the case says {c['expect']}"

DOCS = "https://developer.cisco.com/meraki/webhooks/introduction/#shared-secret"
out = {
    "kind": "meraki",
    "source": {"kind": "docs-example", "package": "", "registry": "", "version": "",
               "function": "the example alert (sharedSecret \"foo\") and the documented sharedSecret comparison",
               "url": "https://developer.cisco.com/meraki/meraki-dashboard-api-node-red-node/webhooks"},
    "facts": {
        "title": "Cisco Meraki (Dashboard webhooks)",
        "docs": DOCS,
        "scheme": "the JSON body's sharedSecret equals the shared secret configured on the HTTP server; nothing is signed",
        "secret": "the HTTP server's shared secret (Network-wide > Alerts > Webhooks)",
        "timestamp": None,
        "event_id": {"json_pointer": "/alertId"},
        "event_id_note": "alertId: 'ID for this alert message' (Common JSON Parameters, https://developer.cisco.com/meraki/webhooks/)",
        "event_type": {"json_pointer": "/alertType"},
        "retry_horizon": "not stated in the reachable sources: default window",
        "retry_source": "https://developer.cisco.com/meraki/webhooks/",
        "handshake": None,
    },
    "cases": cases,
}
pathlib.Path(__file__).with_name("vectors.json").write_text(json.dumps(out, indent=2) + "\n")
print(f"meraki: {len(cases)} cases")

# A capture for the corpus (tests/captures/ format): the docs' example alert carrying the test config's `default`
# tenant secret (`<kind>-default-secret`), accepted by the documented check before it is written.
import base64
CAPTURE_SECRET = "meraki-default-secret"
capture_body = alert(CAPTURE_SECRET)
assert documented_check(capture_body, [CAPTURE_SECRET]) == "valid"
capture = {
    "provider": "meraki", "kind": "meraki", "tenant": "default", "method": "POST", "path": "/webhooks/meraki",
    "query": "", "headers": [["User-Agent", "meraki-capture-corpus"], ["Content-Type", "application/json"]],
    "body_base64": base64.b64encode(capture_body.encode()).decode(), "received_at": "2026-01-01T00:00:00+00:00",
}
pathlib.Path(__file__).with_name("capture.json").write_text(json.dumps(capture, indent=2) + "\n")
