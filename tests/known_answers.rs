//! Known-answer tests: every built-in provider against vectors from its
//! official documentation or official SDK test suite (sources in comments and
//! in docs/test-vectors.md), plus the negative cases.

use std::time::Duration;

use hookline::provider::{
    sign, verify_signature, Definitions, HeaderLookup, ProviderDef, Request, SignInput, SigningKey,
    VerifyError,
};

fn def(kind: &str) -> ProviderDef {
    Definitions::load(None)
        .unwrap()
        .get(kind)
        .unwrap()
        .as_ref()
        .clone()
}

fn key(def: &ProviderDef, secret: &str) -> SigningKey {
    SigningKey::decode(def.signature.secret_encoding, secret).unwrap()
}

fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const TOLERANCE: Duration = Duration::from_secs(300);

fn check(
    def: &ProviderDef,
    secrets: &[&str],
    headers: &[(String, String)],
    body: &[u8],
    now: i64,
) -> Result<(), VerifyError> {
    let keys: Vec<_> = secrets.iter().map(|s| key(def, s)).collect();
    verify_signature(
        def,
        &keys,
        &Request {
            headers,
            body,
            url: "",
        },
        now,
        TOLERANCE,
    )
}

/// The header `sign` produces for this input, by name.
fn signed(def: &ProviderDef, secret: &str, body: &[u8], id: &str, ts: i64, name: &str) -> String {
    let headers = sign(
        def,
        &key(def, secret),
        &SignInput {
            body,
            id,
            timestamp: ts,
            url: "",
        },
    );
    headers
        .header(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_owned()
}

// --- Stripe -----------------------------------------------------------------

/// stripe/stripe-dotnet src/StripeTests/Services/Events/EventUtilityTest.cs,
/// fixture src/StripeTests/Resources/event_test_signature.json (LF endings,
/// trailing newline). The header also holds a `v0=` entry that must be ignored.
const STRIPE_DOTNET_BODY: &str = "{\n  \"id\": \"evt_123\",\n  \"object\": \"event\",\n  \"account\": \"acct_123\",\n  \"api_version\": \"2017-05-25\",\n  \"created\": 1533204620,\n  \"data\": {\n    \"object\": {\n      \"id\": \"cus_123\",\n      \"object\": \"customer\",\n      \"created\": 123456789,\n      \"email\": \"test@stripe.com\",\n      \"livemode\": false,\n      \"metadata\": {}\n    }\n  },\n  \"livemode\": false,\n  \"pending_webhooks\": 1,\n  \"request\": {\n    \"id\": \"req_123\",\n    \"idempotency_key\": \"idempotency-key-123\"\n  },\n  \"type\": \"customer.created\"\n}\n";
const STRIPE_DOTNET_HEADER: &str = "t=1533204620,v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7,v0=63f3a72374a733066c4be69ed7f8e5ac85c22c9f0a6a612ab9a025a9e4ee7eef";

#[test]
fn stripe_dotnet_vector_verifies_and_signs() {
    let d = def("stripe");
    let headers = h(&[("Stripe-Signature", STRIPE_DOTNET_HEADER)]);
    // The SDK test verifies at now = 1533204720 with tolerance 300.
    assert_eq!(
        check(
            &d,
            &["webhook_secret"],
            &headers,
            STRIPE_DOTNET_BODY.as_bytes(),
            1_533_204_720
        ),
        Ok(())
    );
    assert_eq!(
        signed(
            &d,
            "webhook_secret",
            STRIPE_DOTNET_BODY.as_bytes(),
            "",
            1_533_204_620,
            "Stripe-Signature"
        ),
        "t=1533204620,v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7"
    );
}

/// stripe-node test/Webhook.spec.ts and stripe-java WebhookTest.java inputs
/// (secret whsec_test_secret, timestamp 12345); the SDKs compute the value at
/// run time, so the expected value was computed from those inputs.
#[test]
fn stripe_sdk_inputs_vector() {
    let d = def("stripe");
    let body = b"{\n  \"id\": \"evt_test_webhook\",\n  \"object\": \"event\"\n}";
    let header = "t=12345,v1=2672d138c9a412830f3bfe2ecc5bfb3277cf6f5b49d0119d77dd6cb64da1257e";
    assert_eq!(
        check(
            &d,
            &["whsec_test_secret"],
            &h(&[("Stripe-Signature", header)]),
            body,
            12_345
        ),
        Ok(())
    );
    assert_eq!(
        signed(
            &d,
            "whsec_test_secret",
            body,
            "",
            12_345,
            "Stripe-Signature"
        ),
        header
    );
}

#[test]
fn stripe_accepts_any_of_several_v1_signatures() {
    let d = def("stripe");
    let header = format!(
        "t=1533204620,v1={},v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7",
        "ab".repeat(32)
    );
    assert_eq!(
        check(
            &d,
            &["webhook_secret"],
            &h(&[("Stripe-Signature", &header)]),
            STRIPE_DOTNET_BODY.as_bytes(),
            1_533_204_620
        ),
        Ok(())
    );
}

#[test]
fn stripe_rejects_stale_and_future_timestamps() {
    let d = def("stripe");
    let headers = h(&[("Stripe-Signature", STRIPE_DOTNET_HEADER)]);
    let body = STRIPE_DOTNET_BODY.as_bytes();
    let ts = 1_533_204_620;
    assert_eq!(
        check(&d, &["webhook_secret"], &headers, body, ts + 301),
        Err(VerifyError::TimestampOutOfTolerance)
    );
    assert_eq!(
        check(&d, &["webhook_secret"], &headers, body, ts - 301),
        Err(VerifyError::TimestampOutOfTolerance)
    );
    assert_eq!(
        check(&d, &["webhook_secret"], &headers, body, ts + 300),
        Ok(())
    );
    assert_eq!(
        check(&d, &["webhook_secret"], &headers, body, ts - 300),
        Ok(())
    );
}

#[test]
fn stripe_header_without_timestamp_or_v1_is_invalid() {
    let d = def("stripe");
    let body = STRIPE_DOTNET_BODY.as_bytes();
    for header in [
        "v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7",
        "t=1533204620",
        "t=1533204620,v0=63f3a72374a733066c4be69ed7f8e5ac85c22c9f0a6a612ab9a025a9e4ee7eef",
        "garbage",
        "",
    ] {
        assert_eq!(
            check(
                &d,
                &["webhook_secret"],
                &h(&[("Stripe-Signature", header)]),
                body,
                1_533_204_620
            ),
            Err(VerifyError::InvalidSignature),
            "{header:?}"
        );
    }
}

// --- GitHub -----------------------------------------------------------------

/// GitHub Docs, "Validating webhook deliveries", "Testing the webhook payload
/// validation"; and octokit/webhooks-methods.js test/sign.test.ts and
/// test/verify.test.ts (including the UTF-8 "special characters" case).
#[test]
fn github_vectors() {
    let d = def("github");
    let cases: &[(&str, &[u8], &str)] = &[
        ("It's a Secret to Everybody", b"Hello, World!", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
        ("mysecret", b"{\"foo\":\"bar\"}", "sha256=4864d2759938a15468b5df9ade20bf161da9b4f737ea61794142f3484236bda3"),
        ("mysecret", b"{\n  \"foo\": \"bar\"\n}\n", "sha256=e3eccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f"),
        (
            "development",
            "{\n  \"foo\": \"Foo\\n\\u001B[34mbar: ♥♥♥♥♥♥♥♥\\nthis-is-lost\\u001B[0m\\u001B[2K\"\n}\n".as_bytes(),
            "sha256=9dacf9003316b09be07df56d86a2d0d6872e42a1e6c72c3bad9ff915a7c5603e",
        ),
    ];
    for (secret, body, expected) in cases {
        assert_eq!(
            check(
                &d,
                &[secret],
                &h(&[("X-Hub-Signature-256", expected)]),
                body,
                0
            ),
            Ok(()),
            "{expected}"
        );
        assert_eq!(
            signed(&d, secret, body, "", 0, "X-Hub-Signature-256"),
            *expected
        );
    }
}

#[test]
fn github_header_name_is_case_insensitive_and_prefix_required() {
    let d = def("github");
    let sig = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    let s = "It's a Secret to Everybody";
    assert_eq!(
        check(
            &d,
            &[s],
            &h(&[("x-hub-signature-256", &format!("sha256={sig}"))]),
            b"Hello, World!",
            0
        ),
        Ok(())
    );
    assert_eq!(
        check(
            &d,
            &[s],
            &h(&[("X-Hub-Signature-256", sig)]),
            b"Hello, World!",
            0
        ),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        check(
            &d,
            &[s],
            &h(&[("X-Hub-Signature-256", "sha256=zz")]),
            b"Hello, World!",
            0
        ),
        Err(VerifyError::InvalidSignature)
    );
    // The legacy SHA-1 header alone is not accepted.
    assert_eq!(
        check(
            &d,
            &[s],
            &h(&[("X-Hub-Signature", "sha1=abc")]),
            b"Hello, World!",
            0
        ),
        Err(VerifyError::MissingSignature)
    );
}

// --- Shopify ----------------------------------------------------------------

/// Shopify/shopify-api-js packages/shopify-api/lib/webhooks/__tests__/validate.test.ts,
/// "returns true for valid request" (secret test_secret_key from test-config.ts).
#[test]
fn shopify_vector() {
    let d = def("shopify");
    let body = b"{\"foo\": \"bar\"}";
    let expected = "B23tXN681gZ0qIWNRrgtzBE9XSDo5yaUu6wfmhu3a7g=";
    assert_eq!(
        check(
            &d,
            &["test_secret_key"],
            &h(&[("X-Shopify-Hmac-Sha256", expected)]),
            body,
            0
        ),
        Ok(())
    );
    assert_eq!(
        signed(&d, "test_secret_key", body, "", 0, "X-Shopify-Hmac-Sha256"),
        expected
    );
}

// --- Slack ------------------------------------------------------------------

/// Slack, "Verifying requests from Slack" worked example, as used verbatim by
/// slackapi/python-slack-sdk tests/slack_sdk/signature/test_signature_verifier.py.
const SLACK_BODY: &str = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const SLACK_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
const SLACK_SIG: &str = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

#[test]
fn slack_vector() {
    let d = def("slack");
    let headers = h(&[
        ("X-Slack-Signature", SLACK_SIG),
        ("X-Slack-Request-Timestamp", "1531420618"),
    ]);
    assert_eq!(
        check(
            &d,
            &[SLACK_SECRET],
            &headers,
            SLACK_BODY.as_bytes(),
            1_531_420_618
        ),
        Ok(())
    );
    assert_eq!(
        signed(
            &d,
            SLACK_SECRET,
            SLACK_BODY.as_bytes(),
            "",
            1_531_420_618,
            "X-Slack-Signature"
        ),
        SLACK_SIG
    );
}

#[test]
fn slack_timestamp_is_signed_and_bounded() {
    let d = def("slack");
    let body = SLACK_BODY.as_bytes();
    // A replayed signature with a fresh timestamp no longer matches.
    let moved = h(&[
        ("X-Slack-Signature", SLACK_SIG),
        ("X-Slack-Request-Timestamp", "1531420619"),
    ]);
    assert_eq!(
        check(&d, &[SLACK_SECRET], &moved, body, 1_531_420_619),
        Err(VerifyError::InvalidSignature)
    );
    let headers = h(&[
        ("X-Slack-Signature", SLACK_SIG),
        ("X-Slack-Request-Timestamp", "1531420618"),
    ]);
    assert_eq!(
        check(&d, &[SLACK_SECRET], &headers, body, 1_531_420_618 + 3600),
        Err(VerifyError::TimestampOutOfTolerance)
    );
    assert_eq!(
        check(&d, &[SLACK_SECRET], &headers, body, 1_531_420_618 - 3600),
        Err(VerifyError::TimestampOutOfTolerance)
    );
    let no_ts = h(&[("X-Slack-Signature", SLACK_SIG)]);
    assert_eq!(
        check(&d, &[SLACK_SECRET], &no_ts, body, 1_531_420_618),
        Err(VerifyError::MissingSignature)
    );
    let bad_ts = h(&[
        ("X-Slack-Signature", SLACK_SIG),
        ("X-Slack-Request-Timestamp", "yesterday"),
    ]);
    assert_eq!(
        check(&d, &[SLACK_SECRET], &bad_ts, body, 1_531_420_618),
        Err(VerifyError::InvalidSignature)
    );
}

// --- Standard Webhooks / Svix -----------------------------------------------

/// standard-webhooks/standard-webhooks libraries/javascript/src/webhook.test.ts,
/// "sign function works" and "multi sig payload is valid".
#[test]
fn standard_webhooks_vector() {
    let d = def("standard-webhooks");
    let body = b"{\"test\": 2432232314}";
    let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    let headers = h(&[
        ("webhook-id", id),
        ("webhook-timestamp", "1614265330"),
        ("webhook-signature", expected),
    ]);
    for secret in [
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ] {
        assert_eq!(check(&d, &[secret], &headers, body, 1_614_265_330), Ok(()));
        assert_eq!(
            signed(&d, secret, body, id, 1_614_265_330, "webhook-signature"),
            expected
        );
    }
    let multi = format!("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= {expected} v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=");
    let headers = h(&[
        ("webhook-id", id),
        ("webhook-timestamp", "1614265330"),
        ("webhook-signature", &multi),
    ]);
    assert_eq!(
        check(
            &d,
            &["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
            &headers,
            body,
            1_614_265_330
        ),
        Ok(())
    );
}

/// svix/svix-webhooks rust/src/webhooks.rs, test_sign, test_no_verify and
/// test_verify_with_multiple_signatures; sent under Svix's svix-* headers.
#[test]
fn svix_vector_under_svix_headers() {
    let d = def("svix");
    let body = b"{\"email\":\"test@example.com\",\"username\":\"test_user\"}";
    let id = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    let secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    let good = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";
    let decoys = "v1,tFtCZ5RDCPxzWQRWXWPgrCgE2frDBe9gjpbWQxnVfsQ= v1,Mm7xgUVICxZfQ3bgf0h0Dof65L/IFx+PnZvnDWPCX6Q= v1,9DfC1c3eeOrXB6w/5dIDydLNQaEyww5KalE5jLBZucE=";
    let with = |sig: &str| {
        h(&[
            ("svix-id", id),
            ("svix-timestamp", "1649367553"),
            ("svix-signature", sig),
        ])
    };
    assert_eq!(
        check(&d, &[secret], &with(good), body, 1_649_367_553),
        Ok(())
    );
    assert_eq!(
        check(
            &d,
            &[secret],
            &with(&format!("{decoys} {good}")),
            body,
            1_649_367_553
        ),
        Ok(())
    );
    assert_eq!(
        check(&d, &[secret], &with(decoys), body, 1_649_367_553),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        check(
            &d,
            &[secret],
            &with("v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU="),
            body,
            1_649_367_553
        ),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        signed(&d, secret, body, id, 1_649_367_553, "webhook-signature"),
        good
    );
    // The signed id matters: the same signature under another id fails.
    let other_id = h(&[
        ("svix-id", "msg_other"),
        ("svix-timestamp", "1649367553"),
        ("svix-signature", good),
    ]);
    assert_eq!(
        check(&d, &[secret], &other_id, body, 1_649_367_553),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        check(&d, &[secret], &with(good), body, 1_649_367_553 + 301),
        Err(VerifyError::TimestampOutOfTolerance)
    );
    assert_eq!(
        check(&d, &[secret], &with(good), body, 1_649_367_553 - 301),
        Err(VerifyError::TimestampOutOfTolerance)
    );
}

// --- GitLab -----------------------------------------------------------------

/// GitLab docs, "Webhooks": the secret token is sent verbatim in
/// X-Gitlab-Token (no HMAC, so the known answer is the token itself).
#[test]
fn gitlab_token() {
    let d = def("gitlab");
    let body = b"{\"object_kind\":\"push\"}";
    assert_eq!(
        check(
            &d,
            &["s3cr3t-token"],
            &h(&[("X-Gitlab-Token", "s3cr3t-token")]),
            body,
            0
        ),
        Ok(())
    );
    assert_eq!(
        check(
            &d,
            &["s3cr3t-token"],
            &h(&[("X-Gitlab-Token", "s3cr3t-tokem")]),
            body,
            0
        ),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        check(
            &d,
            &["s3cr3t-token"],
            &h(&[("X-Gitlab-Token", "s3cr3t")]),
            body,
            0
        ),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        check(&d, &["s3cr3t-token"], &h(&[]), body, 0),
        Err(VerifyError::MissingSignature)
    );
    assert_eq!(
        signed(&d, "s3cr3t-token", body, "", 0, "X-Gitlab-Token"),
        "s3cr3t-token"
    );
}

// --- generic-hmac -----------------------------------------------------------

/// RFC 4231 section 4.3, Test Case 2 (HMAC-SHA-256).
#[test]
fn generic_hmac_rfc4231_case_2() {
    let d = def("generic-hmac");
    let body = b"what do ya want for nothing?";
    let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    assert_eq!(
        check(&d, &["Jefe"], &h(&[("X-Signature", expected)]), body, 0),
        Ok(())
    );
    assert_eq!(signed(&d, "Jefe", body, "", 0, "X-Signature"), expected);
}

// --- Negative cases common to every HMAC provider ---------------------------

/// For every built-in kind: a correctly signed request verifies; a tampered
/// body, a wrong secret and a missing header do not; any one of several
/// secrets verifies (rotation).
#[test]
fn every_kind_rejects_tampering_wrong_secret_and_missing_header() {
    let defs = Definitions::load(None).unwrap();
    let now = 1_700_000_000;
    for kind in defs.kinds() {
        let d = defs.get(kind).unwrap();
        let (secret, other) = match d.signature.secret_encoding {
            hookline::provider::SecretEncoding::WhsecBase64 => {
                ("whsec_c2VjcmV0LW9uZS1rZXk=", "whsec_c2VjcmV0LXR3by1rZXk=")
            }
            _ => ("secret-one", "secret-two"),
        };
        let body = b"{\"id\":\"evt_1\",\"type\":\"t\"}";
        let headers = sign(
            d,
            &key(d, secret),
            &SignInput {
                body,
                id: "msg_1",
                timestamp: now,
                url: "",
            },
        );
        assert_eq!(
            check(d, &[secret], &headers, body, now),
            Ok(()),
            "{kind}: signed"
        );
        assert_eq!(
            check(d, &[other, secret], &headers, body, now),
            Ok(()),
            "{kind}: rotation"
        );
        assert_eq!(
            check(d, &[other], &headers, body, now),
            Err(VerifyError::InvalidSignature),
            "{kind}: wrong secret"
        );
        if d.signature.scheme != hookline::provider::SchemeKind::Token {
            let tampered = b"{\"id\":\"evt_1\",\"type\":\"u\"}";
            assert_eq!(
                check(d, &[secret], &headers, tampered, now),
                Err(VerifyError::InvalidSignature),
                "{kind}: tampered"
            );
        }
        let stripped: Vec<_> = headers
            .iter()
            .filter(|(k, _)| {
                !d.signature
                    .header
                    .0
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(k))
            })
            .cloned()
            .collect();
        assert_eq!(
            check(d, &[secret], &stripped, body, now),
            Err(VerifyError::MissingSignature),
            "{kind}: missing"
        );
    }
}
