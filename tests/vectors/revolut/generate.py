"""Known-answer vectors for Revolut (Business API and Merchant API) webhooks.

Source: the documentation's Python reference implementation ("Computation of
the expected signature in Python") on
https://developer.revolut.com/docs/guides/manage-accounts/webhooks/verify-the-payload-signature
(the Merchant API page,
https://developer.revolut.com/docs/guides/merchant/monitor-and-observe/webhooks/verify-the-payload-signature,
describes the same scheme), run verbatim below with its own signing secret,
timestamp and payload as the first case. Revolut publishes no SDK that verifies
webhooks. Standard library only.

The sample computes one expected signature; the page's comparison rule (the
header may hold several comma-separated v1= signatures while secrets rotate,
and the timestamp must be within 5 minutes) decides the verdicts.
"""
import hashlib
import hmac
import json


def docs_sample(signing_secret, timestamp, raw_payload):
    # --- the documentation's reference implementation, verbatim -----------
    payload_to_sign = 'v1.' + timestamp + '.' + raw_payload
    signature = 'v1=' + hmac.new(
        bytes(signing_secret, 'utf-8'),
        msg=bytes(payload_to_sign, 'utf-8'),
        digestmod=hashlib.sha256
    ).hexdigest()
    # ----------------------------------------------------------------------
    return signature


# The docs' own example inputs (Business API page).
DOCS_SECRET = "wsk_r59a4HfWVAKycbCaNO1RvgCJec02gRd8"
DOCS_TS = "1683650202360"
DOCS_BODY = '{"data":{"id":"645a7696-1234-aa47-1234-cbae0449cc46","new_state":"completed","old_state":"pending","request_id":"app_charges-9f5d5eb3-1234-1234-1234-3914763e0bcb"},"event":"TransactionStateChanged","timestamp":"2023-05-09T16:36:38.028960Z"}'
OTHER = "wsk_Q2x0c0NvbnRyb2xTZWNyZXQwMTIzNDU2Nzg5"
URL = "https://hooks.example.com/webhooks/revolut"
DOCS = "https://developer.revolut.com/docs/guides/manage-accounts/webhooks/verify-the-payload-signature"
NOW_MS = int(DOCS_TS) + 2000
# A Merchant API event (the Merchant page's payload example).
MERCHANT_BODY = '{"event": "ORDER_COMPLETED","order_id": "9fc01989-3f61-4484-a5d9-ffe768531be9","merchant_order_ext_ref": "Test #3928"}'


def case(name, secrets, sig, expect, body=DOCS_BODY, ts=DOCS_TS, now_ms=NOW_MS, event_type=None):
    headers = [["Content-Type", "application/json"], ["Revolut-Request-Timestamp", ts]]
    if sig is not None:
        headers.append(["Revolut-Signature", sig])
    c = {"name": name, "secrets": secrets, "method": "POST", "url": URL, "headers": headers,
         "body": body, "now": now_ms // 1000, "expect": expect}
    if event_type:
        c["event_type"] = event_type
    return c


def page_verdict(c):
    h = dict(c["headers"])
    sig = h.get("Revolut-Signature")
    if sig is None:
        return "missing_signature"
    ts = h["Revolut-Request-Timestamp"]
    ok = any(docs_sample(s, ts, c["body"]) in [x.strip() for x in sig.split(",")] for s in c["secrets"])
    if not ok:
        return "invalid_signature"
    return "valid" if abs(c["now"] * 1000 - int(ts)) <= 300_000 else "timestamp_out_of_tolerance"


sig = docs_sample(DOCS_SECRET, DOCS_TS, DOCS_BODY)
old_ts = str(int(DOCS_TS) - 600_000)
new_ts = str(int(DOCS_TS) + 600_000)
cases = [
    case("the docs' example (secret, timestamp, TransactionStateChanged payload) signed by the docs' Python sample", [DOCS_SECRET], sig, "valid", event_type="TransactionStateChanged"),
    case("Merchant API ORDER_COMPLETED signed the same way", [DOCS_SECRET], docs_sample(DOCS_SECRET, DOCS_TS, MERCHANT_BODY), "valid", body=MERCHANT_BODY, event_type="ORDER_COMPLETED"),
    case("rotation: two comma-separated signatures, the second made with the configured secret", [DOCS_SECRET], docs_sample(OTHER, DOCS_TS, DOCS_BODY) + "," + sig, "valid"),
    case("rotation: the tenant holds the old and the new secret", [OTHER, DOCS_SECRET], sig, "valid"),
    case("one body byte changed after signing", [DOCS_SECRET], sig, "invalid_signature", body=DOCS_BODY.replace("completed", "complete!")),
    case("the timestamp header changed after signing", [DOCS_SECRET], sig, "invalid_signature", ts=str(int(DOCS_TS) + 1)),
    case("verified with another signing secret", [OTHER], sig, "invalid_signature"),
    case("the bare hex without v1= is rejected", [DOCS_SECRET], sig[3:], "invalid_signature"),
    case("Revolut-Signature removed", [DOCS_SECRET], None, "missing_signature"),
    case("sent 10 minutes before it is verified", [DOCS_SECRET], docs_sample(DOCS_SECRET, old_ts, DOCS_BODY), "timestamp_out_of_tolerance", ts=old_ts),
    case("sent 10 minutes after it is verified", [DOCS_SECRET], docs_sample(DOCS_SECRET, new_ts, DOCS_BODY), "timestamp_out_of_tolerance", ts=new_ts),
]
for c in cases:
    got = page_verdict(c)
    assert got == c["expect"], f"{c['name']}: the docs say {got}, case expects {c['expect']}"

out = {
    "kind": "revolut",
    "source": {"kind": "docs-code", "package": "", "registry": "", "version": "",
               "function": "the docs' Python reference implementation (payload_to_sign, hmac.new ... hexdigest)", "url": DOCS},
    "facts": {
        "title": "Revolut (Business and Merchant APIs)",
        "docs": DOCS,
        "scheme": "Revolut-Signature: comma-separated 'v1=' + hex(HMAC-SHA256(signing secret as UTF-8, 'v1.' + Revolut-Request-Timestamp + '.' + raw body))",
        "secret": "the webhook's signing secret (wsk_...), returned when the webhook is created or retrieved, used verbatim as UTF-8",
        "timestamp": "Revolut-Request-Timestamp, unix milliseconds, signed; the docs ask for a 5-minute tolerance",
        "event_id": {"body_sha256": True},
        "event_id_note": "the payloads carry no event ID (event, timestamp, data / order_id); the signed body is the identity",
        "event_type": {"json_pointer": "/event"},
        "retry_horizon": "not stated on the signature pages: default window",
        "retry_source": DOCS,
        "handshake": None,
    },
    "cases": cases,
}
with open(__file__.rsplit("/", 1)[0] + "/vectors.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(f"wrote {len(cases)} cases")
