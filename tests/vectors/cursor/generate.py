"""Known-answer vectors for Cursor Cloud Agent webhooks, from the documentation's own Python sample
(https://cursor.com/docs/cloud-agent/api/webhooks, "Signature verification"): `verify_webhook` runs unchanged
below and gives every case's verdict. Cursor publishes no SDK that verifies webhooks. Standard library only."""
import hashlib
import hmac
import json
import pathlib


# --- cursor.com/docs/cloud-agent/api/webhooks, Python sample, verbatim ---------------------------------------
def verify_webhook(secret, raw_body, signature):
    expected_signature = 'sha256=' + hmac.new(
        secret.encode(),
        raw_body,
        hashlib.sha256
    ).hexdigest()

    return signature == expected_signature
# --------------------------------------------------------------------------------------------------------------

NOW = 1700000000
SECRET = "cursor-webhook-secret-6b2e9f0a4c8d1e3f5a7b"
OTHER = "cursor-webhook-secret-0f1e2d3c4b5a69788796"
URL = "https://hooks.example.com/webhooks/cursor"
# The statusChange payload the docs describe: the agent's id, its final status, source and target.
BODY = json.dumps({
    "event": "statusChange",
    "timestamp": "2024-01-15T10:30:00Z",
    "id": "bc_abc123",
    "status": "FINISHED",
    "source": {"repository": "https://github.com/your-org/your-repo", "ref": "main"},
    "target": {"url": "https://cursor.com/agents?id=bc_abc123", "branchName": "cursor/add-readme-1234",
               "prUrl": "https://github.com/your-org/your-repo/pull/1234"},
    "summary": "Added README.md with installation instructions",
}, separators=(",", ":"))
TAMPERED = BODY.replace('"FINISHED"', '"FINISHEE"')
DIGEST = hashlib.sha256(BODY.encode()).hexdigest()


def sign(secret, body=BODY):
    return "sha256=" + hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()


def req(sig, body=BODY):
    headers = [["Content-Type", "application/json"], ["User-Agent", "Cursor-Agent-Webhook/1.0"],
               ["X-Webhook-ID", "msg_01JGQ3K8Z9X2Y4W5V6U7T8S9R0"], ["X-Webhook-Event", "statusChange"]]
    if sig is not None:
        headers.append(["X-Webhook-Signature", sig])
    return {"method": "POST", "url": URL, "headers": headers, "body": body, "now": NOW}


sig = sign(SECRET)
ok = {"event_id": DIGEST, "event_type": "statusChange"}
cases = [
    {"name": "statusChange FINISHED, accepted by the docs' verify_webhook", "secrets": [SECRET], **req(sig), "expect": "valid", **ok},
    {"name": "rotation: the second configured secret verifies", "secrets": [OTHER, SECRET], **req(sig), "expect": "valid", **ok},
    {"name": "one body byte changed after signing", "secrets": [SECRET], **req(sig, TAMPERED), "expect": "invalid_signature"},
    {"name": "verified with another webhook secret", "secrets": [OTHER], **req(sig), "expect": "invalid_signature"},
    {"name": "the bare hex digest without sha256= is rejected", "secrets": [SECRET], **req(sig[len("sha256="):]), "expect": "invalid_signature"},
    {"name": "X-Webhook-Signature removed", "secrets": [SECRET], **req(None), "expect": "missing_signature"},
]

for c in cases:
    h = {k.lower(): v for k, v in c["headers"]}
    if "x-webhook-signature" not in h:
        got = "missing_signature"
    else:
        got = "valid" if any(verify_webhook(s, c["body"].encode(), h["x-webhook-signature"]) for s in c["secrets"]) else "invalid_signature"
    assert got == c["expect"], f"{c['name']}: the docs' sample says {got}, the case says {c['expect']}"

DOCS = "https://cursor.com/docs/cloud-agent/api/webhooks"
out = {
    "kind": "cursor",
    "source": {"kind": "docs-code", "package": "", "registry": "", "version": "",
               "function": "the docs' Python verify_webhook(secret, raw_body, signature) sample", "url": DOCS},
    "facts": {
        "title": "Cursor (Cloud Agents)",
        "docs": DOCS,
        "scheme": "X-Webhook-Signature = 'sha256=' + hex(HMAC-SHA256(webhook secret, raw body))",
        "secret": "the webhook secret given when the agent is created with a webhook URL, as UTF-8 bytes",
        "timestamp": None,
        "event_id": {"body_sha256": True},
        "event_id_note": "X-Webhook-ID is 'a unique identifier for this delivery (useful for logging)', not said to survive a retry, and the body names the agent, not the event: an identical retry is a duplicate by the body's SHA-256",
        "event_type": {"header": "X-Webhook-Event"},
        "retry_horizon": "not stated in the reachable sources: default window",
        "retry_source": DOCS,
        "handshake": None,
    },
    "cases": cases,
}
pathlib.Path(__file__).with_name("vectors.json").write_text(json.dumps(out, indent=2) + "\n")
print(f"cursor: {len(cases)} cases")

# A capture for the corpus (tests/captures/ format), signed for the test config's `default` tenant (secret
# `<kind>-default-secret`) and accepted by the docs' verify_webhook before it is written.
import base64
CAPTURE_SECRET = "cursor-default-secret"
capture_sig = sign(CAPTURE_SECRET)
assert verify_webhook(CAPTURE_SECRET, BODY.encode(), capture_sig)
capture = {
    "provider": "cursor", "kind": "cursor", "tenant": "default", "method": "POST", "path": "/webhooks/cursor",
    "query": "", "headers": [["User-Agent", "cursor-capture-corpus"]] + req(capture_sig)["headers"],
    "body_base64": base64.b64encode(BODY.encode()).decode(), "received_at": "2026-01-01T00:00:00+00:00",
}
pathlib.Path(__file__).with_name("capture.json").write_text(json.dumps(capture, indent=2) + "\n")
