"""Known-answer vectors for Apple App Store Server Notifications V2.

Apple POSTs `{"signedPayload": "<JWS>"}`: an ES256 JWS whose header `x5c`
holds the signing certificate chain (leaf, intermediate, root). Apple's
app-store-server-library checks it with `SignedDataVerifier`: the leaf and
intermediate must chain to a configured root (Apple Root CA - G3), the leaf
must carry OID 1.2.840.113635.100.6.11.1 and the intermediate
1.2.840.113635.100.6.2.1, the certificates must be valid at the payload's
`signedDate`, and the payload's `data.bundleId` must be the app's:
https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2

Apple's keys cannot sign for us, so a test root, intermediate and leaf with
Apple's marker OIDs are made here (committed, see *.pem), the payloads are
signed with PyJWT (the library's own JWT dependency) and every verdict is
`SignedDataVerifier.verify_and_decode_notification`'s, with
`enable_online_checks=False` and the test root as its root certificate.
ECDSA signatures use a random nonce: running this again gives other
signatures for the same cases.
"""

import base64
import datetime
import json
import os

import jwt
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = 1700000000
DOCS = "https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2"
URL = "https://hooks.example.com/webhooks/apple-app-store/acme"
BUNDLE_ID = "com.example.acme"
OTHER_BUNDLE_ID = "com.example.other"
LEAF_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.11.1")
INTERMEDIATE_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.2.1")
UTC = datetime.timezone.utc


def key(name, curve):
    """A test key, generated once and then committed so the chain stays the same."""
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        k = ec.generate_private_key(curve)
        with open(path, "wb") as f:
            f.write(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    with open(path, "rb") as f:
        return serialization.load_pem_private_key(f.read(), password=None)


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "hookline test")])


def cert(file, subject, pub, issuer, issuer_key, ca, marker=None, serial=1,
         start=datetime.datetime(2023, 1, 1, tzinfo=UTC), end=datetime.datetime(2033, 1, 1, tzinfo=UTC)):
    """A certificate, made once and committed (certificates are not byte-stable across runs)."""
    path = os.path.join(HERE, file)
    if not os.path.exists(path):
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(pub)
             .serial_number(serial).not_valid_before(start).not_valid_after(end)
             .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca and marker else None), critical=True)
             .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False,
                                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                                          key_cert_sign=ca, crl_sign=ca, encipher_only=False,
                                          decipher_only=False), critical=True))
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                            critical=False)
        if marker is not None:
            b = b.add_extension(x509.UnrecognizedExtension(marker, b"\x05\x00"), critical=False)
        c = b.sign(issuer_key, hashes.SHA384())
        with open(path, "wb") as f:
            f.write(c.public_bytes(serialization.Encoding.PEM))
    with open(path, "rb") as f:
        return x509.load_pem_x509_certificate(f.read())


ROOT_KEY = key("root-key.pem", ec.SECP384R1())
INT_KEY = key("intermediate-key.pem", ec.SECP384R1())
LEAF_KEY = key("leaf-key.pem", ec.SECP256R1())
OTHER_KEY = key("other-key.pem", ec.SECP256R1())
ROOT_NAME, INT_NAME = name("Test Root CA - G3"), name("Test Worldwide Developer Relations CA - G6")
ROOT = cert("root.pem", ROOT_NAME, ROOT_KEY.public_key(), ROOT_NAME, ROOT_KEY, True, serial=1)
INTERMEDIATE = cert("intermediate.pem", INT_NAME, INT_KEY.public_key(), ROOT_NAME, ROOT_KEY, True,
                    INTERMEDIATE_OID, serial=2)
LEAF = cert("leaf.pem", name("Test StoreKit Signing"), LEAF_KEY.public_key(), INT_NAME, INT_KEY, False,
            LEAF_OID, serial=3)
# The same leaf without Apple's marker, and an intermediate without its own.
LEAF_UNMARKED = cert("leaf-unmarked.pem", name("Test StoreKit Signing"), LEAF_KEY.public_key(), INT_NAME,
                     INT_KEY, False, serial=4)
INT_UNMARKED = cert("intermediate-unmarked.pem", INT_NAME, INT_KEY.public_key(), ROOT_NAME, ROOT_KEY, True,
                    serial=5)
LEAF_EXPIRED = cert("leaf-expired.pem", name("Test StoreKit Signing"), LEAF_KEY.public_key(), INT_NAME,
                    INT_KEY, False, LEAF_OID, serial=6, start=datetime.datetime(2022, 1, 1, tzinfo=UTC),
                    end=datetime.datetime(2023, 1, 1, tzinfo=UTC))
# A chain of the same shape under a root the tenant did not configure.
ROGUE_ROOT_KEY = key("rogue-root-key.pem", ec.SECP384R1())
ROGUE_ROOT = cert("rogue-root.pem", ROOT_NAME, ROGUE_ROOT_KEY.public_key(), ROOT_NAME, ROGUE_ROOT_KEY, True, serial=7)
ROGUE_INT = cert("rogue-intermediate.pem", INT_NAME, INT_KEY.public_key(), ROOT_NAME, ROGUE_ROOT_KEY, True,
                 INTERMEDIATE_OID, serial=8)
ROOT_PEM = ROOT.public_bytes(serialization.Encoding.PEM).decode()


def der64(c):
    return base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode()


NOTIFICATION_UUID = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"


def payload(**over):
    p = {
        "notificationType": "DID_RENEW",
        "subtype": "BILLING_RECOVERY",
        "notificationUUID": NOTIFICATION_UUID,
        "data": {"appAppleId": 41234, "bundleId": BUNDLE_ID, "bundleVersion": "1.2.3",
                 "environment": "Sandbox", "signedTransactionInfo": "signed_transaction_info_value",
                 "signedRenewalInfo": "signed_renewal_info_value", "status": 1},
        "version": "2.0",
        "signedDate": NOW * 1000,
    }
    p.update(over)
    return p


def sign(claims=None, chain=(LEAF, INTERMEDIATE, ROOT), signer=LEAF_KEY):
    headers = {"x5c": [der64(c) for c in chain]}
    return jwt.encode(claims or payload(), signer, algorithm="ES256", headers=headers)


def sdk_verdict(token, secrets):
    """SignedDataVerifier's verdict: any of the tenant's bundle IDs, under its roots (Apple's otherwise)."""
    roots = [x509.load_pem_x509_certificate(s.encode()).public_bytes(serialization.Encoding.DER)
             for s in secrets if s.startswith("-----BEGIN")]
    if not roots:
        with open(os.path.join(HERE, "../../../src/provider/scheme/x5c/apple-root-ca-g3.pem"), "rb") as f:
            roots = [x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)]
    for bundle in (s for s in secrets if not s.startswith("-----BEGIN")):
        verifier = SignedDataVerifier(roots, False, Environment.SANDBOX, bundle)
        try:
            verifier.verify_and_decode_notification(token)
            return "valid"
        except VerificationException:
            continue
    return "invalid"


SECRETS = (ROOT_PEM, BUNDLE_ID)


def case(name, body, expect, secrets=SECRETS, token=None):
    c = {"name": name, "secrets": list(secrets), "method": "POST", "url": URL,
         "headers": [["Content-Type", "application/json"]], "body": body, "now": NOW + 5, "expect": expect}
    if expect == "valid":
        c["event_id"] = NOTIFICATION_UUID
        c["event_type"] = "DID_RENEW"
    if token is not None:
        sdk = sdk_verdict(token, secrets)
        assert (sdk == "valid") == (expect == "valid"), (name, sdk, expect)
    return c


def body(token):
    return json.dumps({"signedPayload": token}, separators=(",", ":"))


token = sign()
h, p, s = token.split(".")
b64 = lambda d: base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).rstrip(b"=").decode()
tampered = b64(payload(notificationType="REFUND"))
other_bundle = payload(data={**payload()["data"], "bundleId": OTHER_BUNDLE_ID})
cases = [
    case("a notification signed by a leaf chained to the tenant's root, accepted by SignedDataVerifier",
         body(token), "valid", token=token),
    case("the tenant lists two bundle IDs (two apps): the second matches", body(token), "valid",
         secrets=(ROOT_PEM, OTHER_BUNDLE_ID, BUNDLE_ID), token=token),
    case("payload changed after signing (notificationType replaced)", body(f"{h}.{tampered}.{s}"),
         "invalid_signature", token=f"{h}.{tampered}.{s}"),
    case("another app's bundle ID configured", body(token), "invalid_signature",
         secrets=(ROOT_PEM, OTHER_BUNDLE_ID), token=token),
    case("a notification for another app, signed by the same chain", body(sign(other_bundle)),
         "invalid_signature", token=sign(other_bundle)),
    case("no root configured: Apple Root CA - G3 does not issue the test chain", body(token),
         "invalid_signature", secrets=(BUNDLE_ID,), token=token),
    case("the chain's intermediate is signed by another root (x5c carries that root)",
         body(sign(chain=(LEAF, ROGUE_INT, ROGUE_ROOT))), "invalid_signature",
         token=sign(chain=(LEAF, ROGUE_INT, ROGUE_ROOT))),
    case("the leaf lacks Apple's marker OID 1.2.840.113635.100.6.11.1",
         body(sign(chain=(LEAF_UNMARKED, INTERMEDIATE, ROOT))), "invalid_signature",
         token=sign(chain=(LEAF_UNMARKED, INTERMEDIATE, ROOT))),
    case("the intermediate lacks Apple's marker OID 1.2.840.113635.100.6.2.1",
         body(sign(chain=(LEAF, INT_UNMARKED, ROOT))), "invalid_signature",
         token=sign(chain=(LEAF, INT_UNMARKED, ROOT))),
    case("the leaf had expired at signedDate", body(sign(chain=(LEAF_EXPIRED, INTERMEDIATE, ROOT))),
         "invalid_signature", token=sign(chain=(LEAF_EXPIRED, INTERMEDIATE, ROOT))),
    case("signed by a key that is not the leaf's", body(sign(signer=OTHER_KEY)), "invalid_signature",
         token=sign(signer=OTHER_KEY)),
    case("x5c with the leaf and intermediate only", body(sign(chain=(LEAF, INTERMEDIATE))),
         "invalid_signature", token=sign(chain=(LEAF, INTERMEDIATE))),
    case("no signedPayload member", json.dumps({"notificationType": "DID_RENEW"}), "missing_signature"),
]

out = {
    "kind": "apple-app-store",
    "source": {
        "kind": "sdk", "package": "app-store-server-library", "registry": "pypi", "version": "3.1.2",
        "function": "appstoreserverlibrary.signed_data_verifier.SignedDataVerifier.verify_and_decode_notification "
                    "(enable_online_checks=False, the test root as root certificate); signed with PyJWT 2.15.1",
        "url": DOCS,
    },
    "facts": {
        "title": "Apple App Store Server Notifications V2",
        "docs": DOCS,
        "scheme": "body {\"signedPayload\": JWS}, ES256, header x5c = [leaf, intermediate, root]: leaf and "
                  "intermediate chain to Apple Root CA - G3, leaf OID 1.2.840.113635.100.6.11.1, intermediate "
                  "OID 1.2.840.113635.100.6.2.1, valid at the payload's signedDate",
        "secret": "the app's bundle ID (a certificate PEM among the secrets replaces Apple's root)",
        "timestamp": None,
        "event_id": {"jwt_payload_pointer": "/notificationUUID", "jwt_in": "/signedPayload"},
        "event_id_note": "notificationUUID: the same on every retry: "
                         "https://developer.apple.com/documentation/appstoreservernotifications/notificationuuid",
        "event_type": {"jwt_payload_pointer": "/notificationType", "jwt_in": "/signedPayload"},
        "retry_horizon": "in production, five retries at 1, 12, 24, 48 and 72 hours after the previous attempt (about 6.5 days); sandbox sends once",
        "retry_source": "https://developer.apple.com/documentation/appstoreservernotifications/"
                        "responding-to-app-store-server-notifications",
        "handshake": None,
    },
    "cases": cases,
}

with open(os.path.join(HERE, "vectors.json"), "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
print(f"{len(cases)} cases")
