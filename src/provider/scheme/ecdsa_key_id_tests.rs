//! Unit tests of the `ecdsa-key-id` family (Circle's shape).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::EncodePublicKey;

use super::EcdsaKeyIdParams;
use crate::provider::fetch_url::FetchHosts;
use crate::provider::key::Key;
use crate::provider::request::UntrustedRequest;
use crate::provider::scheme::{Family, KeyAuth, VerifyError};

const KEY_ID: &str = "879dc113-5ca4-4ff7-a6b7-54652083fcf8";
const BODY: &[u8] = br#"{"subscriptionId":"s","notificationId":"n","notificationType":"transactions.inbound","notification":{},"timestamp":"2026-01-15T21:47:35Z","version":2}"#;

fn params() -> EcdsaKeyIdParams {
    let p: EcdsaKeyIdParams = toml::from_str(
        r#"header = "X-Circle-Signature"
key_id_header = "X-Circle-Key-Id"
keys_url = "https://api.circle.com/v2/notifications/publicKey/{key_id}"
[product_keys_urls]
cpn = "https://api.circle.com/v2/cpn/notifications/publicKey/{key_id}"
"#,
    )
    .unwrap();
    p.check().unwrap();
    p
}

fn hosts() -> FetchHosts {
    serde_json::from_str(r#"["api.circle.com"]"#).unwrap()
}

fn signing_key(seed: u8) -> SigningKey {
    SigningKey::from_slice(&[seed; 32]).unwrap()
}

/// What the key endpoint answers for `key`.
fn answer(key: &SigningKey, algorithm: &str) -> String {
    let der = key.verifying_key().to_public_key_der().unwrap();
    format!(
        r#"{{"data":{{"id":"{KEY_ID}","algorithm":"{algorithm}","publicKey":"{}","createDate":"2026-01-15T21:47:35.107250Z"}}}}"#,
        STANDARD.encode(der.as_bytes())
    )
}

fn fetched(url: &str, key: &SigningKey) -> Key {
    Key::fetched(
        hosts().allow(url).unwrap(),
        answer(key, "ECDSA_SHA_256").as_bytes(),
        None,
    )
    .unwrap()
}

fn signature(key: &SigningKey, body: &[u8]) -> String {
    let sig: Signature = key.sign(body);
    STANDARD.encode(sig.to_der().as_bytes())
}

fn headers(sig: &str, key_id: &str) -> Vec<(String, String)> {
    vec![
        ("X-Circle-Signature".into(), sig.into()),
        ("X-Circle-Key-Id".into(), key_id.into()),
    ]
}

fn request<'a>(headers: &'a Vec<(String, String)>, body: &[u8]) -> UntrustedRequest<'a> {
    UntrustedRequest {
        method: "POST",
        url: "",
        query: "",
        headers,
        body: bytes::Bytes::copy_from_slice(body),
        received_at: 1_700_000_000,
    }
}

fn url(key_id: &str) -> String {
    format!("https://api.circle.com/v2/notifications/publicKey/{key_id}")
}

#[test]
fn a_signature_by_the_fetched_key_verifies_and_nothing_else_does() {
    let p = params();
    let key = signing_key(7);
    let secret = p.decode_secret("TEST_API_KEY:abc:def").unwrap();
    let good = fetched(&url(KEY_ID), &key);
    let h = headers(&signature(&key, BODY), KEY_ID);
    assert_eq!(p.verify(&request(&h, BODY), &[&secret, &good]), Ok(None));
    // The body changed by one byte.
    let mut tampered = BODY.to_vec();
    tampered[3] ^= 1;
    let refused = Err(VerifyError::InvalidSignature);
    assert_eq!(
        p.verify(&request(&h, &tampered), &[&secret, &good]),
        refused
    );
    // Another key under the same URL, or the right key fetched for another ID.
    let wrong = fetched(&url(KEY_ID), &signing_key(8));
    assert_eq!(p.verify(&request(&h, BODY), &[&secret, &wrong]), refused);
    let elsewhere = fetched(&url("0000"), &key);
    assert_eq!(
        p.verify(&request(&h, BODY), &[&secret, &elsewhere]),
        refused
    );
    // No key fetched at all.
    assert_eq!(p.verify(&request(&h, BODY), &[&secret]), refused);
}

#[test]
fn the_key_url_and_credential_come_from_the_secret() {
    let p = params();
    let key = signing_key(7);
    let h = headers(&signature(&key, BODY), KEY_ID);
    let plain = p.decode_secret(" KEY:abc:def ").unwrap();
    let cpn = p.decode_secret("cpn KEY2:abc:def").unwrap();
    let needed = p
        .certificate(&request(&h, BODY), &[&plain, &cpn], &hosts())
        .unwrap()
        .unwrap();
    let urls: Vec<&str> = needed.urls.iter().map(|u| u.as_str()).collect();
    assert_eq!(
        urls,
        [
            url(KEY_ID),
            format!("https://api.circle.com/v2/cpn/notifications/publicKey/{KEY_ID}")
        ]
    );
    assert_eq!(needed.credentials.len(), 2);
    let bearer = |i: usize| match &needed.credentials[i].auth {
        KeyAuth::Bearer(b) => b.expose().to_owned(),
        other => panic!("{other:?}"),
    };
    assert_eq!(bearer(0), "KEY:abc:def");
    assert_eq!(bearer(1), "KEY2:abc:def");
    assert!(!format!("{needed:?}").contains("abc:def"), "never shown");
    // A host outside fetch_hosts is never fetched.
    let none = FetchHosts::default();
    assert_eq!(
        p.certificate(&request(&h, BODY), &[&plain], &none),
        Err(VerifyError::InvalidSignature)
    );
}

#[test]
fn malformed_requests_are_refused_before_any_fetch() {
    let p = params();
    let secret = p.decode_secret("KEY:abc:def").unwrap();
    let sig = signature(&signing_key(7), BODY);
    let check = |h: Vec<(String, String)>| p.certificate(&request(&h, BODY), &[&secret], &hosts());
    let missing = Err(VerifyError::MissingSignature);
    let invalid = Err(VerifyError::InvalidSignature);
    assert_eq!(
        check(vec![("X-Circle-Key-Id".into(), KEY_ID.into())]),
        missing
    );
    assert_eq!(
        check(vec![("X-Circle-Signature".into(), sig.clone())]),
        missing
    );
    assert_eq!(check(headers("not base64!", KEY_ID)), invalid);
    assert_eq!(
        check(headers(&STANDARD.encode(b"not DER"), KEY_ID)),
        invalid
    );
    // A key ID that would change the URL, or is too long.
    for id in [
        "../../v1/x",
        "a/b",
        "a?b=1",
        "a#b",
        "a%2Fb",
        "",
        &"a".repeat(65),
    ] {
        assert_eq!(check(headers(&sig, id)), invalid, "{id:?}");
    }
    assert!(check(headers(&sig, KEY_ID)).unwrap().is_some());
}

#[test]
fn secrets_and_answers_are_checked() {
    let p = params();
    assert!(p.decode_secret("").is_err());
    assert!(
        p.decode_secret("stablefx KEY:a:b").is_err(),
        "unknown product"
    );
    assert!(p.decode_secret("a b c").is_err());
    let err = p.decode_secret("nope KEY:a:b").unwrap_err().to_string();
    assert!(
        !err.contains("KEY:a:b"),
        "the error never quotes the secret"
    );
    let u = hosts().allow(&url(KEY_ID)).unwrap();
    let key = signing_key(7);
    assert!(Key::fetched(u.clone(), answer(&key, "RSA_SHA_256").as_bytes(), None).is_err());
    let bad = r#"{"data":{"algorithm":"ECDSA_SHA_256","publicKey":"AAAA"}}"#;
    assert!(Key::fetched(u.clone(), bad.as_bytes(), None).is_err());
    let not_b64 = r#"{"data":{"algorithm":"ECDSA_SHA_256","publicKey":"@@"}}"#;
    assert!(Key::fetched(u, not_b64.as_bytes(), None).is_err());
}

#[test]
fn key_urls_are_https_with_one_key_id_in_the_path() {
    let with = |url: &str| {
        toml::from_str::<EcdsaKeyIdParams>(&format!(
            "header = \"A\"\nkey_id_header = \"B\"\nkeys_url = {url:?}\n"
        ))
        .unwrap()
        .check()
    };
    assert!(with("https://api.circle.com/v2/notifications/publicKey/{key_id}").is_ok());
    assert!(with("http://api.circle.com/v2/notifications/publicKey/{key_id}").is_err());
    assert!(with("https://api.circle.com/v2/notifications/publicKey").is_err());
    assert!(with("https://api.circle.com/?id={key_id}").is_err());
    assert!(with("https://{key_id}.circle.com/x").is_err());
}
