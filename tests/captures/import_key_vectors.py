#!/usr/bin/env python3
"""Corpus fragments for the providers whose keys are fetched (`scheme = "jwks"`,
`scheme = "ecdsa-key-id"`, `scheme = "ebay"`): Google Cloud Pub/Sub push, Kinde,
Fireblocks, Circle and eBay.

Each capture repeats a valid case of tests/vectors/<kind>/vectors.json, whose
token or signature the generator there made with the provider's SDK or docs
signer over a committed test key (NOTES.md there); none by hookline's code. The
fragment's `keys_from` names those vectors: tests/it/corpus.rs serves their
`certs` (what each key URL answers), and `tokens` where they have them (what
each token URL answers: eBay's), from a local HTTPS host under the real
host name, so the replay fetches the keys the way a receiver in production
does. Run from anywhere; existing fragments are rewritten.
"""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent
VECTORS = ROOT.parent / "vectors"

# kind -> (the second capture: a case index or "resend", why it is a duplicate)
RETRIES = {
    "google-pubsub": (1, "Pub/Sub redelivers a message it got no 2xx for, under the same messageId, "
                         "with a fresh ID token (here signed by the other key Google publishes): "
                         "https://cloud.google.com/pubsub/docs/push#receive_push"),
    "kinde": ("resend", "Kinde retries the same request: the webhook-id \"will not change between "
                        "attempts\": https://docs.kinde.com/integrate/webhooks/about-webhooks/"),
    "fireblocks": (1, "the same notification (its id: \"Unique identifier of the object\", "
                      "https://developers.fireblocks.com/reference/webhook-notification-structure) "
                      "sent again and signed again, here by the older key the JWKS still lists; "
                      "the docs state no retry policy, so this stands for any resend"),
    "circle": ("resend", "Circle retries a notification it got no 2xx for: \"the same notification can be "
                         "sent more than once, and Circle reuses the same notification ID across retries\": "
                         "https://developers.circle.com/api-reference/webhooks"),
    "ebay": ("resend", "eBay redelivers a notification it got no 2xx for: the same notification, "
                       "its notification.notificationId kept (its publishAttemptCount counts the "
                       "attempts: the SDK's test data, tests/vectors/ebay/NOTES.md)"),
}


def capture(kind, case):
    path = "/webhooks/" + kind
    return {
        "provider": kind,
        "tenant": "default",
        "method": case["method"],
        "path": path,
        "query": "",
        "headers": case["headers"],
        "body_base64": __import__("base64").b64encode(case["body"].encode()).decode(),
        "received_at": "2026-01-01T00:00:00Z",
    }


def main():
    for kind, (retry, why) in RETRIES.items():
        vectors = json.loads((VECTORS / kind / "vectors.json").read_text())
        cases = vectors["cases"]
        first = cases[0]
        second = first if retry == "resend" else cases[retry]
        assert first["expect"] == "valid" and second["expect"] == "valid", kind
        assert second["event_id"] == first["event_id"], kind
        out = ROOT / kind
        out.mkdir(exist_ok=True)
        events = [{"id": first["event_id"], "type": first["event_type"]}]
        names = [f"0001-{kind}.json", f"0002-{kind}-retry.json"]
        for name, case in zip(names, (first, second)):
            (out / name).write_text(json.dumps(capture(kind, case), indent=2) + "\n")
        fragment = {
            "route": kind,
            "kind": kind,
            "secrets": first["secrets"],
            "keys_from": kind,
            "source": f"tests/vectors/{kind}/ (cases \"{first['name']}\" and \"{second['name']}\"; "
                      "the generator and the SDK or docs it signs with: NOTES.md there)",
            "captures": [
                {"file": f"{kind}/{names[0]}", "expect": "accepted", "events": events,
                 "why": f"one delivery as the provider sends it; the vector case \"{first['name']}\""},
                {"file": f"{kind}/{names[1]}", "expect": "duplicate", "events": events, "why": why},
            ],
        }
        (out / "manifest.json").write_text(json.dumps(fragment, indent=2) + "\n")
        print(kind, events)


if __name__ == "__main__":
    main()
