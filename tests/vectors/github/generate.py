"""Known-answer vectors for GitHub.

The valid signatures are printed in GitHub's docs ("Testing the webhook
payload validation") and hard-coded in octokit/webhooks-methods.js's tests
(NOTES.md): they are copied here verbatim, and this script recomputes each
with Python's hmac before writing, failing on any difference. Every other
case is one of them with one thing changed.
"""
import hashlib
import hmac
import json

URL = "https://hooks.example.com/webhooks/github"
DOCS = ("It's a Secret to Everybody", "Hello, World!",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
OCTOKIT = [
    ("mysecret", '{"foo":"bar"}', "sha256=4864d2759938a15468b5df9ade20bf161da9b4f737ea61794142f3484236bda3"),
    ("mysecret", '{\n  "foo": "bar"\n}\n', "sha256=e3eccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f"),
    ("development", '{\n  "foo": "Foo\\n\\u001B[34mbar: ♥♥♥♥♥♥♥♥\\nthis-is-lost\\u001B[0m\\u001B[2K"\n}\n',
     "sha256=9dacf9003316b09be07df56d86a2d0d6872e42a1e6c72c3bad9ff915a7c5603e"),
    ("development", '{\n  "foo": "\\\\u001b"\n}\n',
     "sha256=87316067e2011fae39998b18c46a14d83b3e7c3ffdd88fb2ee5afb7d11288e60"),
]
DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958"


def mac(secret, body):
    return "sha256=" + hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()


for secret, body, sig in [DOCS, *OCTOKIT]:
    assert mac(secret, body) == sig, sig


def case(name, sig, expect, secret=DOCS[0], body=DOCS[1], header="X-Hub-Signature-256", secrets=None, ids=True):
    h = [["Content-Type", "application/json"], ["X-GitHub-Delivery", DELIVERY], ["X-GitHub-Event", "ping"]]
    if sig is not None:
        h.append([header, sig])
    c = {"name": name, "secrets": secrets or [secret], "method": "POST", "url": URL, "headers": h,
         "body": body, "now": 1700000000, "expect": expect}
    if ids and expect == "valid":
        c.update(event_id=DELIVERY, event_type="ping")
    return c


cases = [case("docs worked example", DOCS[2], "valid")]
cases += [case(f"octokit/webhooks-methods.js vector {i + 1}", sig, "valid", secret, body)
          for i, (secret, body, sig) in enumerate(OCTOKIT)]
cases += [
    case("header name in lower case", DOCS[2], "valid", header="x-hub-signature-256"),
    case("one body byte changed", DOCS[2], "invalid_signature", body="Hello, World?"),
    case("verified with another secret", DOCS[2], "invalid_signature", secrets=["It's a Secret to Nobody"]),
    case("tenant holds another secret and the right one (rotation)", DOCS[2], "valid",
         secrets=["It's a Secret to Nobody", DOCS[0]]),
    case("X-Hub-Signature-256 removed", None, "missing_signature"),
    case("only the legacy SHA-1 header", "sha1=abc", "missing_signature", header="X-Hub-Signature"),
    case("digest without its sha256= prefix", DOCS[2].removeprefix("sha256="), "invalid_signature"),
    case("digest that is not hex", "sha256=zz", "invalid_signature"),
]

doc = {
    "kind": "github",
    "source": {"kind": "docs-example", "package": "", "registry": "", "version": "",
               "function": "",
               "url": "https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation"},
    "facts": {
        "title": "GitHub",
        "docs": "https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries",
        "scheme": "X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>",
        "secret": "the webhook's secret, its UTF-8 bytes",
        "timestamp": None,
        "event_id": {"header": "X-GitHub-Delivery"},
        "event_id_note": "kept on redelivery: https://docs.github.com/en/webhooks/using-webhooks/best-practices-for-using-webhooks",
        "event_type": {"header": "X-GitHub-Event"},
        "retry_horizon": "no automatic retries; redelivery by hand for 3 days",
        "retry_source": "https://docs.github.com/en/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks",
        "handshake": None,
    },
    "cases": cases,
}
with open("vectors.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"{len(cases)} cases")
