#!/usr/bin/env python3
"""Build the capture corpus from the public example payloads.

Reads payloads/SOURCES.md (file, provider, event type, event id), signs every
payload with `hookline sign` using the test secret of the provider's
`default` tenant (the same secrets tests/common/mod.rs configures), and
writes one capture file per payload under tests/captures/<provider>/, in the
format the receiver writes with [capture] dir.

    cargo build && python3 tests/captures/build.py target/debug/hookline

Captures carry a fixed timestamp, so schemes that sign one (Stripe, Slack,
Standard Webhooks) need `hookline replay --resign SECRET`; GitHub and Shopify
captures replay as they are. GitLab's token header is redacted, as the
receiver redacts it.
"""
import base64, json, pathlib, re, subprocess, sys

HERE = pathlib.Path(__file__).resolve().parent
TIMESTAMP = "1767225600"  # 2026-01-01T00:00:00Z


def secret(route):
    if route == "standard-webhooks":
        return "whsec_" + base64.b64encode(f"{route}-default-key-material".encode()).decode()
    return f"{route}-default-secret"


def rows():
    for line in (HERE / "payloads" / "SOURCES.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not cells[0].endswith(".json"):
            continue
        ticks = lambda s: re.findall(r"`([^`]*)`", s)
        # The first: the value the provider sends (GitHub rows add the
        # action, Slack rows the inner type, after it).
        event_type = ticks(cells[2])[0]
        yield cells[0], cells[1], event_type, ticks(cells[3])[0]


def main(binary):
    for file, provider, event_type, event_id in rows():
        body = (HERE / "payloads" / file).read_bytes()
        out = subprocess.run(
            [binary, "sign", "--provider", provider, "--secret", secret(provider),
             "--timestamp", TIMESTAMP, "--id", event_id, "--event-type", event_type],
            input=body, capture_output=True, check=True).stdout.decode()
        headers = [line.split(": ", 1) for line in out.splitlines()]
        headers = [[k, "[redacted]" if k.lower() == "x-gitlab-token" else v] for k, v in headers]
        headers.insert(0, ["User-Agent", f"{provider}-capture-corpus"])
        capture = {
            "provider": provider, "kind": provider, "tenant": "default", "method": "POST",
            "path": f"/webhooks/{provider}", "query": "", "headers": headers,
            "body_base64": base64.b64encode(body).decode(),
            "received_at": "2026-01-01T00:00:00+00:00",
        }
        dest = HERE / provider / pathlib.Path(file).name
        dest.parent.mkdir(exist_ok=True)
        dest.write_text(json.dumps(capture, indent=2) + "\n")
        print(dest.relative_to(HERE))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/debug/hookline")
