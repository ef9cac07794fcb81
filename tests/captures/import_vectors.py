#!/usr/bin/env python3
"""Move the captures the vector generators write (tests/vectors/<kind>/capture.json)
into the corpus, one fragment per route (<route>/manifest.json, README.md).

Each capture was signed by the generator beside it, with the provider's SDK or
a signer from its docs checked by the SDK's verifier; none by hookline's code.
Its expected event ID and type and its secret come from the vector case the
capture repeats (the case whose body it carries): the vectors assert them
too. Run from anywhere; existing fragments are left alone.
"""
import base64
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
VECTORS = ROOT.parent / "vectors"


def case_for(kind, body, own_secret):
    """The valid vector case whose body the capture carries. A capture signed
    with the test config's own `<kind>-default-secret` carries the docs'
    example with that secret instead (Meraki's secret is in its body): then
    the first valid case, whose ID and type the corpus test checks."""
    valid = [c for c in json.loads((VECTORS / kind / "vectors.json").read_text())["cases"]
             if c.get("expect") == "valid"]
    for case in valid:
        raw = base64.b64decode(case["body_base64"]) if "body_base64" in case else case["body"].encode()
        if raw == body:
            return case
    if own_secret:
        return valid[0]
    sys.exit(f"{kind}: no valid vector case carries the capture's body")


def main():
    for path in sorted(VECTORS.glob("*/capture.json")):
        kind = path.parent.name
        capture = json.loads(path.read_text())
        out_dir = ROOT / kind
        if (out_dir / "manifest.json").exists():
            sys.exit(f"{out_dir}/manifest.json exists already")
        body = base64.b64decode(capture["body_base64"])
        own_secret = not ({"expect", "secret"} & capture.keys())
        case = case_for(kind, body, own_secret)
        expect = capture.pop("expect", None) or {}
        if own_secret:
            expect["secrets"] = [f"{kind}-default-secret"]
        elif "secret" in capture:
            expect["secrets"] = [capture["secret"]]
        capture.pop("secret", None)
        capture.pop("source", None)
        if "event_id" in expect:
            events = [{"id": expect["event_id"], "type": expect.get("event_type") or ""}]
        elif "items" in case:  # a batch
            events = [{"id": i["id"], "type": i.get("type") or ""} for i in case["items"]]
        else:
            events = [{"id": case["event_id"], "type": case.get("event_type") or ""}]
        name = f"0001-{kind}.json"
        out_dir.mkdir()
        (out_dir / name).write_text(json.dumps(capture, indent=2) + "\n")
        fragment = {
            "route": kind,
            "kind": capture["kind"],
            "secrets": expect.get("secrets", case["secrets"]),
            "source": f"tests/vectors/{kind}/ (the generator, and the SDK or docs it signs with: NOTES.md there)",
            "captures": [{
                "file": f"{kind}/{name}",
                "expect": "accepted",
                "events": events,
                "why": f"one delivery as the provider sends it; the vector case \"{case['name']}\"",
            }],
        }
        (out_dir / "manifest.json").write_text(json.dumps(fragment, indent=2) + "\n")
        path.unlink()
        print(f"{kind}: {events}")


if __name__ == "__main__":
    main()
