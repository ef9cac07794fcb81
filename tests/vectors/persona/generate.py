"""Known-answer vectors for Persona webhooks.

Source: the documentation's own Python sample for checking signatures
(https://docs.withpersona.com/docs/webhooks-best-practices#checking-signatures,
printed in full on https://docs.withpersona.com/v2022-09-01/docs/best-practices),
copied verbatim below with `<YOUR_WEBHOOK_SECRET>` and `request` supplied as
arguments. Persona publishes no SDK that verifies webhooks. Every request is
signed here and the docs' sample decides every signature verdict; the script
fails on any disagreement. Standard library only (no requirements.txt).

While a secret rotates the header holds "two space-separated sets of the
key-value pairs described above" (same page): the sample is applied to each set.
The sample checks no timestamp; the out-of-tolerance cases are hookline's
policy (default 300 s) on a signature the sample accepts.
"""
import hashlib
import hmac
import json
from types import SimpleNamespace

SECRET = "wbhsec_7d1b5c0e-1f8a-4c3e-9b2d-6a4f0e8c2b17"
OTHER = "wbhsec_0f3e9a2d-8c7b-4a61-b5e4-d2c1f0a9e8b6"
NOW = 1700000000
URL = "https://hooks.example.com/webhooks/persona"
HEADER = "Persona-Signature"
EVENT_ID = "evt_XGuYWp1WdoU5bWCP3KWAEkyf"
EVENT_TYPE = "inquiry.completed"
DOCS = "https://docs.withpersona.com/docs/webhooks-best-practices"


def docs_sample(request, YOUR_WEBHOOK_SECRET):
    # --- the documentation's Python sample, verbatim ----------------------
    t, v1 = [value.split('=')[1] for value in request.headers['Persona-Signature'].split(',')]
    computed_digest = hmac.new(YOUR_WEBHOOK_SECRET.encode(), (t + '.' + request.data.decode('utf-8')).encode(), 'sha256').hexdigest()

    if hmac.compare_digest(v1, computed_digest):
        # Handle verified webhook event
        return True
    # ----------------------------------------------------------------------
    return False


# The documented event shape (JSON:API): data.type "event", data.id, data.attributes.name.
BODY = json.dumps({
    "data": {
        "type": "event",
        "id": EVENT_ID,
        "attributes": {
            "name": EVENT_TYPE,
            "created-at": "2023-11-14T22:13:15.000Z",
            "payload": {"data": {"type": "inquiry", "id": "inq_2CVZ4HyVg7qaboXz6z8xBz1J", "attributes": {"status": "completed", "reference-id": "user-1042"}}},
        },
    }
}, separators=(",", ":"))
TAMPERED = BODY.replace("user-1042", "user-1043")


def sign(secret, t, body=BODY):
    return hmac.new(secret.encode(), (str(t) + "." + body).encode(), hashlib.sha256).hexdigest()


def sample_accepts(header, body, secret):
    for one_set in header.split(" "):
        request = SimpleNamespace(headers={"Persona-Signature": one_set}, data=body.encode())
        if docs_sample(request, secret):
            return True
    return False


def case(name, secrets, header, expect, body=BODY, now=NOW, ids=False):
    headers = [["Content-Type", "application/json"]]
    if header is not None:
        headers.append([HEADER, header])
    c = {"name": name, "secrets": secrets, "method": "POST", "url": URL, "headers": headers,
         "body": body, "now": now, "expect": expect}
    if ids:
        c["event_id"] = EVENT_ID
        c["event_type"] = EVENT_TYPE
    return c


sig = f"t={NOW},v1={sign(SECRET, NOW)}"
rotating = f"t={NOW},v1={sign(OTHER, NOW)} t={NOW},v1={sign(SECRET, NOW)}"
cases = [
    case("inquiry.completed signed t=<unix>,v1=<hex HMAC-SHA256(t.body)>, accepted by the docs' sample", [SECRET], sig, "valid", ids=True),
    case("rotation: two space-separated sets, the second signed with the configured secret", [SECRET], rotating, "valid", ids=True),
    case("rotation: the tenant holds the old and the new secret", [OTHER, SECRET], sig, "valid", ids=True),
    case("one body byte changed after signing", [SECRET], sig, "invalid_signature", body=TAMPERED),
    case("verified with another webhook secret", [OTHER], sig, "invalid_signature"),
    case("the signature over a different timestamp than t=", [SECRET], f"t={NOW + 1},v1={sign(SECRET, NOW)}", "invalid_signature"),
    case("Persona-Signature removed", [SECRET], None, "missing_signature"),
    case("signed 10 minutes before it is verified", [SECRET], f"t={NOW - 600},v1={sign(SECRET, NOW - 600)}", "timestamp_out_of_tolerance"),
    case("signed 10 minutes after it is verified", [SECRET], f"t={NOW + 600},v1={sign(SECRET, NOW + 600)}", "timestamp_out_of_tolerance"),
]

for c in cases:
    header = next((v for k, v in c["headers"] if k == HEADER), None)
    if header is None:
        got = "missing_signature"
    else:
        ok = any(sample_accepts(header, c["body"], s) for s in c["secrets"])
        got = "valid" if ok else "invalid_signature"
        if ok and abs(c["now"] - int(header.split(",")[0][2:])) > 300:
            got = "timestamp_out_of_tolerance"
    assert got == c["expect"], f"{c['name']}: the docs' sample says {got}, case expects {c['expect']}"

out = {
    "kind": "persona",
    "source": {"kind": "docs-code", "package": "", "registry": "", "version": "",
               "function": "the docs' Python sample for checking signatures (hmac.new ... hexdigest, hmac.compare_digest)",
               "url": DOCS},
    "facts": {
        "title": "Persona",
        "docs": DOCS,
        "scheme": "Persona-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(webhook secret, t + '.' + raw body)>; two space-separated sets while a secret rotates",
        "secret": "the webhook secret (wbhsec_...) from the Dashboard's Webhooks section, used verbatim as UTF-8",
        "timestamp": "t= in Persona-Signature, unix seconds, signed; the docs set no tolerance: hookline's default 300 s",
        "event_id": {"json_pointer": "/data/id"},
        "event_id_note": "the event's ID (evt_...); duplicates of one event are the same event: " + DOCS,
        "event_type": {"json_pointer": "/data/attributes/name"},
        "retry_horizon": "not stated on the reachable pages: default window",
        "retry_source": DOCS,
        "handshake": None,
    },
    "cases": cases,
}
with open(__file__.rsplit("/", 1)[0] + "/vectors.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(f"wrote {len(cases)} cases")
