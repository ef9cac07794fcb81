#!/usr/bin/env python3
"""One capture per provider, taken from its vectors: `tests/vectors/KIND/capture.json`.

The capture corpus (issue 23, `tests/captures/`) holds requests signed by each
provider's SDK or docs signer, in the format the receiver writes with
`[capture] dir`. Until that corpus takes these providers in, each one's capture
sits beside its vectors: the first `valid` case of its `vectors.json`, which the
provider's SDK signed (or its docs' signer made and its verifier accepted), as a
capture of the `default` tenant, received at the case's `now`. The tenant's
secret is the case's first secret (in the capture's `secret` field, since these
are test secrets, so that a replay can be checked).

    python3 tests/vectors/captures.py KIND...
"""
import base64, datetime, json, pathlib, sys
from urllib.parse import urlsplit

HERE = pathlib.Path(__file__).resolve().parent


def capture(kind):
    vectors = json.loads((HERE / kind / "vectors.json").read_text())
    case = next(c for c in vectors["cases"] if c["expect"] == "valid")
    body = (base64.b64decode(case["body_base64"]) if "body_base64" in case
            else case["body"].encode())
    url = urlsplit(case["url"])
    return {
        "provider": kind, "kind": kind, "tenant": "default", "method": case["method"],
        "path": f"/webhooks/{kind}", "query": url.query, "headers": case["headers"],
        "body_base64": base64.b64encode(body).decode(),
        "received_at": datetime.datetime.fromtimestamp(case["now"], datetime.timezone.utc).isoformat(),
        "secret": case["secrets"][0],
        "source": f"tests/vectors/{kind}/vectors.json, case {case['name']!r}",
    }


def main(kinds):
    for kind in kinds:
        dest = HERE / kind / "capture.json"
        dest.write_text(json.dumps(capture(kind), indent=2) + "\n")
        print(dest.relative_to(HERE))


if __name__ == "__main__":
    main(sys.argv[1:])
