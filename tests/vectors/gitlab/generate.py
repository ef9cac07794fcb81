"""Known-answer vectors for GitLab.

GitLab's classic scheme has no MAC: the secret token is sent verbatim in
X-Gitlab-Token (docs, "Webhooks"), so the known answer is the token itself,
and the cases are the token, other tokens, and no token. IDs and types are
the delivery headers the same page documents.
"""
import json

URL = "https://hooks.example.com/webhooks/gitlab"
TOKEN = "s3cr3t-token"
BODY = '{"object_kind":"push","event_name":"push","ref":"refs/heads/main"}'
KEY = "2b1c6f6e-9d1c-4c7b-8f2a-5a0d7c3e1f00"


def case(name, token, expect, secrets=(TOKEN,), ids=(("Idempotency-Key", KEY),), event_id=KEY):
    h = [["Content-Type", "application/json"], ["X-Gitlab-Event", "Push Hook"]] + [list(i) for i in ids]
    if token is not None:
        h.append(["X-Gitlab-Token", token])
    c = {"name": name, "secrets": list(secrets), "method": "POST", "url": URL, "headers": h,
         "body": BODY, "now": 1700000000, "expect": expect}
    if expect == "valid":
        c.update(event_id=event_id, event_type="Push Hook")
    return c


cases = [
    case("the configured token", TOKEN, "valid"),
    case("an older GitLab: only X-Gitlab-Event-UUID", TOKEN, "valid",
         ids=(("X-Gitlab-Event-UUID", "a8b2c7d1-0000-4000-8000-000000000001"),),
         event_id="a8b2c7d1-0000-4000-8000-000000000001"),
    case("another token of the same length", "s3cr3t-tokem", "invalid_signature"),
    case("a prefix of the token", "s3cr3t", "invalid_signature"),
    case("the token with a suffix", TOKEN + "x", "invalid_signature"),
    case("verified with another secret", TOKEN, "invalid_signature", secrets=["other-token"]),
    case("tenant holds another token and the right one (rotation)", TOKEN, "valid", secrets=["other-token", TOKEN]),
    case("X-Gitlab-Token removed", None, "missing_signature"),
]

doc = {
    "kind": "gitlab",
    "source": {"kind": "docs-example", "package": "", "registry": "", "version": "", "function": "",
               "url": "https://docs.gitlab.com/user/project/integrations/webhooks/"},
    "facts": {
        "title": "GitLab",
        "docs": "https://docs.gitlab.com/user/project/integrations/webhooks/",
        "scheme": "X-Gitlab-Token: the secret token, verbatim (no MAC, body not covered)",
        "secret": "the webhook's secret token",
        "timestamp": None,
        "event_id": {"header": ["Idempotency-Key", "X-Gitlab-Event-UUID"]},
        "event_id_note": "Idempotency-Key: 'unique ID consistent across webhook retries' (GitLab 17.4+)",
        "event_type": {"header": "X-Gitlab-Event"},
        "retry_horizon": "GitLab retries failed deliveries a few times; none documented precisely",
        "retry_source": "https://docs.gitlab.com/user/project/integrations/webhooks/",
        "handshake": None,
    },
    "cases": cases,
}
with open("vectors.json", "w") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"{len(cases)} cases")
