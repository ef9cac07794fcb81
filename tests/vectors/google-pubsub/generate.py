"""Known-answer vectors for Google Cloud Pub/Sub push with authentication.

Pub/Sub signs a Google OIDC ID token (RS256) for the subscription's service
account and sends it as `Authorization: Bearer <token>`; the receiver checks
it with Google's published keys, its audience and its `email` claim:
https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions

Google's keys cannot sign for us, so the tokens are signed here with a
committed test key through google-auth's own signer (`google.auth.jwt.encode`
with `google.auth.crypt.RSASigner`), and every verdict is google-auth's:
`google.oauth2.id_token.verify_oauth2_token` (which fetches
https://www.googleapis.com/oauth2/v1/certs, answered here from the test
keys' certificates, in this process only) followed by the two checks the
Pub/Sub page's Python sample makes on the claims (`email` is the push
service account, `email_verified` is true).
"""

import base64
import datetime
import json
import os

import google.auth._helpers
import google.auth.transport
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from google.auth import crypt, jwt
from google.oauth2 import id_token

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = 1700000000
CERTS_URL = "https://www.googleapis.com/oauth2/v1/certs"
DOCS = "https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions"
PUSH_URL = "https://hooks.example.com/webhooks/google-pubsub/acme"
AUDIENCE = PUSH_URL
EMAIL = "pubsub-push@acme-project.iam.gserviceaccount.com"
OTHER_EMAIL = "someone-else@other-project.iam.gserviceaccount.com"


def test_key(name):
    """A test key, generated once and then committed so the vectors stay the same."""
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with open(path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    with open(path, "rb") as f:
        return serialization.load_pem_private_key(f.read(), password=None)


def certificate(key, cn):
    """A self-signed certificate for `key`, fixed dates, as Google's v1 certs are."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(int.from_bytes(cn.encode()[:8], "big"))
            .not_valid_before(datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc))
            .not_valid_after(datetime.datetime(2033, 1, 1, tzinfo=datetime.timezone.utc))
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


KEYS = {
    "current": ("7c309e3a1c1999cb0404ab7125ee40b7cdbcaf7d", test_key("test-key.pem")),
    "old": ("1f40f0a8ef3d880978dc82f25c3ec317c6a5b781", test_key("test-key-old.pem")),
    "unlisted": ("0ea0f0a8ef3d880978dc82f25c3ec317c6a5b7ff", test_key("test-key-other.pem")),
}
CERTS = {kid: certificate(key, kid) for name, (kid, key) in KEYS.items() if name != "unlisted"}
# RSA PKCS#1 v1.5 signatures are deterministic, but certificate generation is
# not byte-stable across cryptography versions: keep the committed answer.
certs_file = os.path.join(HERE, "certs.json")
if os.path.exists(certs_file):
    with open(certs_file) as f:
        CERTS = json.load(f)
else:
    with open(certs_file, "w") as f:
        json.dump(CERTS, f, indent=2)
CERTS_BODY = json.dumps(CERTS)


class Response:
    def __init__(self, data):
        self.status = 200
        self.headers = {"Cache-Control": "public, max-age=21600"}
        self.data = data.encode()


class Request(google.auth.transport.Request):
    """Answers the certificate fetch from CERTS, refuses any other URL."""

    def __call__(self, url, method="GET", body=None, headers=None, timeout=None, **kwargs):
        if url != CERTS_URL:
            raise AssertionError(f"unexpected fetch {url}")
        return Response(CERTS_BODY)


# The verifier reads the clock through google.auth._helpers.utcnow.
def at(now):
    google.auth._helpers.utcnow = lambda: datetime.datetime.fromtimestamp(now, datetime.timezone.utc).replace(tzinfo=None)


def claims(**over):
    c = {"aud": AUDIENCE, "azp": "113774264463038321964", "email": EMAIL, "email_verified": True,
         "exp": NOW + 3600 - 60, "iat": NOW - 60, "iss": "https://accounts.google.com",
         "sub": "113774264463038321964"}
    c.update(over)
    return {k: v for k, v in c.items() if v is not None}


def sign(which="current", **over):
    kid, key = KEYS[which]
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    signer = crypt.RSASigner.from_string(pem, key_id=kid)
    return jwt.encode(signer, claims(**over)).decode()


def sdk_verdict(token, secrets, now):
    """google-auth's verdict, then the Pub/Sub sample's claim checks."""
    at(now)
    for secret in secrets:
        email, audience = secret.split(" ", 1)
        try:
            claim = id_token.verify_oauth2_token(token, Request(), audience=audience)
        except Exception:
            continue
        if claim.get("email") == email and claim.get("email_verified"):
            return "valid"
    return "invalid"


MESSAGE_ID = "9876543210123456"
BODY = json.dumps({
    "message": {
        "attributes": {"eventType": "OBJECT_FINALIZE", "bucketId": "acme-uploads"},
        "data": base64.b64encode(b'{"name":"report.csv","size":"2048"}').decode(),
        "messageId": MESSAGE_ID,
        "message_id": MESSAGE_ID,
        "publishTime": "2023-11-14T22:13:19.504Z",
        "publish_time": "2023-11-14T22:13:19.504Z",
    },
    "subscription": "projects/acme-project/subscriptions/orders-push",
}, separators=(",", ":"))
SECRET = f"{EMAIL} {AUDIENCE}"


def case(name, token, expect, secrets=(SECRET,), now=NOW, ok=True, tolerance=None):
    headers = [["Content-Type", "application/json"]]
    if token is not None:
        headers.append(["Authorization", f"Bearer {token}"])
    c = {"name": name, "secrets": list(secrets), "method": "POST", "url": PUSH_URL, "headers": headers,
         "body": BODY, "now": now}
    if tolerance is not None:
        c["tolerance"] = tolerance
    c["expect"] = expect
    if expect == "valid":
        c["event_id"] = MESSAGE_ID
        c["event_type"] = "projects/acme-project/subscriptions/orders-push"
    # The expected verdict is google-auth's (with the sample's claim checks).
    if token is not None:
        sdk = sdk_verdict(token, secrets, now if tolerance is None else now)
        assert (sdk == "valid") == (expect == "valid") or (
            expect == "timestamp_out_of_tolerance" and sdk == "invalid"), (name, sdk, expect)
    return c


token = sign()
h, p, s = token.split(".")
b64 = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()
tampered = b64({**json.loads(base64.urlsafe_b64decode(p + "==")), "email": OTHER_EMAIL})
cases = [
    case("push with an ID token from the current key, accepted by verify_oauth2_token", token, "valid"),
    case("key rotation: signed with the other key Google still publishes (kid picks it)", sign("old"), "valid"),
    case("rotation of the tenant's settings: the second one matches", token, "valid",
         secrets=(f"{OTHER_EMAIL} {AUDIENCE}", SECRET)),
    case("another service account's token (email claim differs)", sign(email=OTHER_EMAIL), "invalid_signature"),
    case("email not verified", sign(email_verified=False), "invalid_signature"),
    case("a token for another audience", sign(aud="https://other.example.com/push"), "invalid_signature"),
    case("an issuer other than accounts.google.com", sign(iss="https://evil.example.com"), "invalid_signature"),
    case("claims changed after signing (email replaced)", f"{h}.{tampered}.{s}", "invalid_signature"),
    case("signed with a key Google does not publish, under the current kid",
         jwt.encode(crypt.RSASigner.from_string(KEYS["unlisted"][1].private_bytes(
             serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
             key_id=KEYS["current"][0]), claims()).decode(), "invalid_signature"),
    case("unsigned token (alg none)", f"{b64({'alg': 'none', 'typ': 'JWT'})}.{p}.", "invalid_signature"),
    case("a token without exp", sign(exp=None), "invalid_signature"),
    case("expired: ten minutes past exp", token, "timestamp_out_of_tolerance", now=NOW + 3600 + 600, tolerance=300),
    case("no Authorization header", None, "missing_signature"),
]

out = {
    "kind": "google-pubsub",
    "source": {
        "kind": "sdk", "package": "google-auth", "registry": "pypi", "version": "2.63.0",
        "function": "google.oauth2.id_token.verify_oauth2_token (certificates from www.googleapis.com/oauth2/v1/certs) "
                    "and the Pub/Sub sample's email and email_verified checks; tokens signed with google.auth.jwt.encode",
        "url": DOCS,
    },
    "facts": {
        "title": "Google Cloud Pub/Sub (push)",
        "docs": DOCS,
        "scheme": "Authorization: Bearer <Google-signed OIDC ID token, RS256>; verify with the key the token's kid picks "
                  "from https://www.googleapis.com/oauth2/v1/certs, iss accounts.google.com, aud the configured audience, "
                  "email the push service account with email_verified",
        "secret": "\"SERVICE_ACCOUNT_EMAIL AUDIENCE\": the subscription's push service account and its audience "
                  "(the push endpoint URL unless another was set); neither is secret",
        "timestamp": "the token's iat and exp, signed",
        "event_id": {"json_pointer": "/message/messageId"},
        "event_id_note": "messageId is the same on every redelivery of a message: "
                         "https://cloud.google.com/pubsub/docs/push#receive_push",
        "event_type": {"json_pointer": "/subscription"},
        "retry_horizon": "until acknowledged or the subscription's retention (7 days by default) ends",
        "retry_source": "https://cloud.google.com/pubsub/docs/push#push_backoff",
        "handshake": None,
    },
    "certs": {CERTS_URL: CERTS_BODY},
    "cases": cases,
}
with open(os.path.join(HERE, "vectors.json"), "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(f"wrote {len(cases)} cases")
