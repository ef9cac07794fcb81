//! Unit tests of the `ebay` family and of its `JSON.stringify`
//! re-serialization, against what Node wrote (tests/vectors/ebay).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use p256::ecdsa::signature::hazmat::PrehashSigner;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::EncodePublicKey;
use sha1::{Digest as _, Sha1};

use super::stringify::{stringify, Refused};
use super::EbayParams;
use crate::provider::fetch_url::FetchHosts;
use crate::provider::key::Key;
use crate::provider::request::UntrustedRequest;
use crate::provider::scheme::{Family, KeyAuth, VerifyError};

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/vectors/ebay/vectors.json"
));
const KID: &str = "9936261a-7d7b-4621-a0f1-96ccb428af49";
const BODY: &str = r#"{"metadata":{"topic":"MARKETPLACE_ACCOUNT_DELETION"},"notification":{"notificationId":"n-1","data":{"userId":"u"}}}"#;

fn params() -> EbayParams {
    let def: toml::Value = toml::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/providers/ebay.toml"
    )))
    .unwrap();
    // `scheme` is the enum's tag, not a field of the params.
    let mut table = def["signature"].as_table().unwrap().clone();
    table.remove("scheme");
    let p: EbayParams = toml::Value::Table(table).try_into().unwrap();
    p.check().unwrap();
    p
}

fn hosts() -> FetchHosts {
    serde_json::from_str(r#"["api.ebay.com", "api.sandbox.ebay.com"]"#).unwrap()
}

fn key_url(host: &str, kid: &str) -> String {
    format!("https://{host}/commerce/notification/v1/public_key/{kid}")
}

fn signing_key(seed: u8) -> SigningKey {
    SigningKey::from_slice(&[seed; 32]).unwrap()
}

/// What getPublicKey answers for `key`: the PEM without line breaks.
fn fetched(url: &str, key: &SigningKey) -> Key {
    let pem = key
        .verifying_key()
        .to_public_key_pem(p256::pkcs8::LineEnding::LF)
        .unwrap()
        .replace('\n', "");
    let answer = serde_json::json!({"key": pem, "algorithm": "ECDSA", "digest": "SHA1"});
    Key::fetched(
        hosts().allow(url).unwrap(),
        answer.to_string().as_bytes(),
        None,
    )
    .unwrap()
}

fn header(key: &SigningKey, message: &[u8], kid: &str) -> String {
    let sig: Signature = key.sign_prehash(&Sha1::digest(message)).unwrap();
    let json = serde_json::json!({"alg": "ecdsa", "kid": kid,
        "signature": STANDARD.encode(sig.to_der().as_bytes()), "digest": "SHA1"});
    STANDARD.encode(json.to_string())
}

fn request<'a>(headers: &'a Vec<(String, String)>, body: &str) -> UntrustedRequest<'a> {
    UntrustedRequest {
        method: "POST",
        url: "https://hooks.example.com/webhooks/ebay",
        query: "",
        headers,
        body: bytes::Bytes::copy_from_slice(body.as_bytes()),
        received_at: 1_700_000_000,
    }
}

#[test]
fn stringify_writes_what_node_writes() {
    let file: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
    let pairs = file["stringify"].as_array().unwrap();
    assert!(pairs.len() >= 7);
    for pair in pairs {
        let raw = pair["raw"].as_str().unwrap();
        let want = pair["stringified"].as_str().unwrap();
        assert_eq!(stringify(raw.as_bytes()).unwrap(), want, "{raw}");
    }
}

#[test]
fn numbers_as_javascript_prints_them() {
    let cases = [
        ("1.0", "1"),
        ("-0", "0"),
        ("-0.0e5", "0"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("123e-20", "1.23e-18"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("1e400", "null"),
        ("-1e400", "null"),
        ("9007199254740993", "9007199254740992"),
        ("0.1", "0.1"),
        ("100", "100"),
        ("-1.25e+3", "-1250"),
        ("1.5", "1.5"),
        ("123456.789", "123456.789"),
    ];
    for (literal, want) in cases {
        let got = stringify(format!("[{literal}]").as_bytes()).unwrap();
        assert_eq!(got, format!("[{want}]"), "{literal}");
    }
}

#[test]
fn stringify_refuses_what_could_be_read_two_ways() {
    let refused = |body: &[u8]| stringify(body).err();
    assert_eq!(refused(br#"{"a":1,"a":2}"#), Some(Refused::DuplicateKey));
    assert_eq!(
        refused(br#"{"a":{"b":1,"b":1}}"#),
        Some(Refused::DuplicateKey)
    );
    assert_eq!(refused(br#"{"a":"\ud800"}"#), Some(Refused::LoneSurrogate));
    assert_eq!(
        refused(br#"{"a":"\udc00\ud800"}"#),
        Some(Refused::LoneSurrogate)
    );
    assert_eq!(refused(b"{\"a\":\"\xff\"}"), Some(Refused::NotUtf8));
    for not_json in [
        &b"\"a string\""[..],
        b"1",
        b"{",
        b"{\"a\":01}",
        b"{\"a\":1.}",
        b"{\"a\":.5}",
        b"{\"a\":+1}",
        b"{\"a\":\"\t\"}",
        b"{\"a\":1,}",
        b"[1] [2]",
        b"{'a':1}",
        b"\xef\xbb\xbf{}",
    ] {
        assert_eq!(refused(not_json), Some(Refused::NotJson), "{not_json:?}");
    }
    // Many keys, then one twice: found without a quadratic scan.
    let wide: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\":0")).collect();
    let wide = format!("{{{},\"k7\":1}}", wide.join(","));
    let started = std::time::Instant::now();
    assert_eq!(refused(wide.as_bytes()), Some(Refused::DuplicateKey));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(refused(deep.as_bytes()), Some(Refused::TooDeep));
    assert_eq!(stringify(b" {\"a\" : [ ] }\n").unwrap(), r#"{"a":[]}"#);
}

#[test]
fn secrets_are_client_credentials_with_an_optional_environment() {
    let p = params();
    assert!(p.decode_secret("APP-ID:CERT-ID").is_ok());
    assert!(p.decode_secret("sandbox APP-ID:CERT-ID").is_ok());
    for bad in [
        "APP-ID",
        "staging APP-ID:CERT-ID",
        ":CERT-ID",
        "APP-ID:",
        "a b c:d",
    ] {
        let e = p.decode_secret(bad).unwrap_err().to_string();
        assert!(!e.contains("CERT-ID"), "never quotes the secret: {e}");
    }
}

#[test]
fn the_key_is_fetched_with_client_credentials_from_the_secrets_environment() {
    let p = params();
    let key = signing_key(7);
    let h = vec![(
        "X-EBAY-SIGNATURE".to_owned(),
        header(&key, BODY.as_bytes(), KID),
    )];
    let prod = p.decode_secret("APP:PRD-SECRET").unwrap();
    let sandbox = p.decode_secret("sandbox SBX:SBX-SECRET").unwrap();
    let needed = p
        .certificate(&request(&h, BODY), &[&prod, &sandbox], &hosts())
        .unwrap()
        .unwrap();
    let urls: Vec<&str> = needed.urls.iter().map(|u| u.as_str()).collect();
    assert_eq!(
        urls,
        [
            key_url("api.ebay.com", KID),
            key_url("api.sandbox.ebay.com", KID)
        ]
    );
    let grants: Vec<(&str, &str, &str, &str)> = needed
        .credentials
        .iter()
        .map(|c| match &c.auth {
            KeyAuth::ClientCredentials(g) => (
                g.token_url.as_str(),
                g.client_id.as_str(),
                g.client_secret.expose(),
                g.scope.as_str(),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    let scope = "https://api.ebay.com/oauth/api_scope";
    assert_eq!(
        grants,
        [
            (
                "https://api.ebay.com/identity/v1/oauth2/token",
                "APP",
                "PRD-SECRET",
                scope
            ),
            (
                "https://api.sandbox.ebay.com/identity/v1/oauth2/token",
                "SBX",
                "SBX-SECRET",
                scope
            ),
        ]
    );
    assert!(!format!("{needed:?}").contains("SECRET"), "never shown");
    // No allowed host: nothing to fetch, a verification failure.
    let none = FetchHosts::default();
    let refused = p.certificate(&request(&h, BODY), &[&prod], &none);
    assert_eq!(refused.err(), Some(VerifyError::InvalidSignature));
}

#[test]
fn nothing_is_fetched_for_a_header_that_does_not_read() {
    let p = params();
    let prod = p.decode_secret("APP:SECRET").unwrap();
    let check = |value: Option<String>| {
        let h: Vec<(String, String)> = value
            .map(|v| vec![("X-EBAY-SIGNATURE".to_owned(), v)])
            .unwrap_or_default();
        p.certificate(&request(&h, BODY), &[&prod], &hosts()).err()
    };
    assert_eq!(check(None), Some(VerifyError::MissingSignature));
    let b64 = |s: &str| STANDARD.encode(s);
    let der = header(&signing_key(7), BODY.as_bytes(), KID);
    let sig = {
        let json: serde_json::Value =
            serde_json::from_slice(&STANDARD.decode(&der).unwrap()).unwrap();
        json["signature"].as_str().unwrap().to_owned()
    };
    for bad in [
        "not base64!".to_owned(),
        b64("not json"),
        b64(r#"{"kid":"k"}"#),
        b64(&format!(r#"{{"kid":"../x","signature":"{sig}"}}"#)),
        b64(&format!(r#"{{"kid":"a?b","signature":"{sig}"}}"#)),
        b64(&format!(r#"{{"kid":"{KID}","signature":"bm90IERFUg=="}}"#)),
    ] {
        assert_eq!(
            check(Some(bad.clone())),
            Some(VerifyError::InvalidSignature),
            "{bad}"
        );
    }
}

#[test]
fn verified_over_the_raw_bytes_or_their_json_stringify() {
    let p = params();
    let key = signing_key(7);
    let prod = p.decode_secret("APP:SECRET").unwrap();
    let fetched = fetched(&key_url("api.ebay.com", KID), &key);
    let keys = [&prod, &fetched];
    // Spaced out, in the same key order (none of BODY's strings holds `,`
    // or `:`).
    let pretty = BODY.replace(',', ",\n  ").replace(':', ": ") + "\n";
    let verify = |signed: &str, sent: &str| {
        let h = vec![(
            "X-EBAY-SIGNATURE".to_owned(),
            header(&key, signed.as_bytes(), KID),
        )];
        p.verify(&request(&h, sent), &keys)
    };
    assert_eq!(verify(BODY, BODY), Ok(None));
    assert_eq!(verify(BODY, &pretty), Ok(None), "over JSON.stringify");
    assert_eq!(verify(&pretty, &pretty), Ok(None), "over the raw bytes");
    let tampered = BODY.replace("\"u\"", "\"v\"");
    assert_eq!(verify(BODY, &tampered), Err(VerifyError::InvalidSignature));
    let duplicated = BODY.replace(r#""userId":"u""#, r#""userId":"x","userId":"u""#);
    assert_eq!(
        verify(BODY, &duplicated),
        Err(VerifyError::InvalidSignature),
        "never over a re-serialization of a body with a key twice"
    );
    // A key fetched for another kid's URL does not verify this one.
    let h = vec![(
        "X-EBAY-SIGNATURE".to_owned(),
        header(
            &key,
            BODY.as_bytes(),
            "00000000-0000-4000-8000-000000000000",
        ),
    )];
    assert_eq!(
        p.verify(&request(&h, BODY), &keys),
        Err(VerifyError::InvalidSignature)
    );
}

#[test]
fn a_key_answer_of_another_algorithm_is_refused() {
    let url = hosts().allow(&key_url("api.ebay.com", KID)).unwrap();
    let pem = signing_key(7)
        .verifying_key()
        .to_public_key_pem(p256::pkcs8::LineEnding::LF)
        .unwrap();
    let answer = |alg: &str, digest: &str| {
        serde_json::json!({"key": pem, "algorithm": alg, "digest": digest}).to_string()
    };
    assert!(Key::fetched(url.clone(), answer("ECDSA", "SHA1").as_bytes(), None).is_ok());
    assert!(Key::fetched(url.clone(), answer("ecdsa", "sha1").as_bytes(), None).is_ok());
    assert!(Key::fetched(url.clone(), answer("ECDSA", "SHA256").as_bytes(), None).is_err());
    assert!(Key::fetched(url.clone(), answer("RSA", "SHA1").as_bytes(), None).is_err());
    let key = Key::fetched(url, answer("ECDSA", "SHA1").as_bytes(), None).unwrap();
    assert_eq!(key.max_age(), Some(std::time::Duration::from_secs(3600)));
}
