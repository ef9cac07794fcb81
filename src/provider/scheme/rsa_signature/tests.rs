//! Tests of the `rsa` family: Bridge's header pairs and Alipay's form field.

use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use rsa::traits::PublicKeyParts as _;
use rsa::{RsaPrivateKey, RsaPublicKey};

use super::*;

fn bridge() -> RsaParams {
    toml::from_str(
        r#"
        header = "X-Webhook-Signature"
        encoding = "base64"
        prehash = true
        signed_content = "{timestamp}.{body}"
        timestamp_format = "unix-ms"
        [pairs]
        pair_separator = ","
        kv_separator = "="
        timestamp_key = "t"
        signature_key = "v0"
        "#,
    )
    .unwrap()
}

#[test]
fn a_signature_this_family_makes_verifies_and_a_changed_body_does_not() {
    let params = bridge();
    params.check().unwrap();
    // Generating a 2048-bit key takes seconds in a debug build: use the
    // fuzzing harness's throwaway key.
    let pem = include_str!("../../../fuzzing/rsa-2048.pem");
    let signing = params.decode_private_key(pem).unwrap();
    let public = params.public_secret(&signing).unwrap();
    let key = params.decode_secret(&public).unwrap();
    let input = SignInput {
        method: "POST",
        url: "https://hooks.example/bridge",
        headers: &[],
        body: br#"{"event_id":"wh_1"}"#,
        id: "",
        timestamp: 1_700_000_000,
    };
    let headers = params.sign(&signing, &input).unwrap();
    assert!(headers[0].1.starts_with("t=1700000000000,v0="));
    let req = |body: &[u8]| UntrustedRequest {
        method: "POST",
        url: input.url,
        query: "",
        headers: &headers,
        body: bytes::Bytes::copy_from_slice(body),
        received_at: 1_700_000_000,
    };
    assert_eq!(
        params.verify(&req(input.body), &[&key]),
        Ok(Some(1_700_000_000))
    );
    assert_eq!(
        params.verify(&req(br#"{"event_id":"wh_2"}"#), &[&key]),
        Err(VerifyError::InvalidSignature)
    );
}

#[test]
fn short_keys_and_garbage_are_refused_without_quoting_them() {
    let mut rng = rand::thread_rng();
    let short = RsaPublicKey::from(&RsaPrivateKey::new(&mut rng, 1024).unwrap());
    // (1024 bits generate quickly, and are refused.)
    let pem = short.to_public_key_pem(LineEnding::LF).unwrap();
    let err = bridge().decode_secret(&pem).unwrap_err().to_string();
    assert!(err.contains("2048"), "{err}");
    let err = bridge().decode_secret("c2VjcmV0").unwrap_err().to_string();
    assert!(!err.contains("c2VjcmV0"), "{err}");
}

#[test]
fn a_timestamp_without_its_placeholder_is_a_load_error() {
    let mut params = bridge();
    params.pairs = None;
    params.timestamp_header = Some(HeaderNames(vec!["X-Time".into()]));
    params.signed_content = Some(Template::body());
    assert!(params.check().is_err());
}

fn alipay() -> RsaParams {
    toml::from_str(
        r#"
        encoding = "base64"
        algorithm = "sha256"
        [form]
        field = "sign"
        unsigned = ["sign_type"]
        "#,
    )
    .unwrap()
}

/// A form body signed as Alipay signs one, with the throwaway key.
fn alipay_body(params: &[(&str, &str)]) -> (Vec<u8>, String) {
    let pem = include_str!("../../../fuzzing/rsa-2048.pem");
    let private = RsaPrivateKey::from_pkcs8_pem(pem)
        .or_else(|_| RsaPrivateKey::from_pkcs1_pem(pem))
        .unwrap();
    let mut sorted: Vec<_> = params.iter().filter(|(k, _)| *k != "sign_type").collect();
    sorted.sort();
    let content = sorted
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let hashed = digest(Algorithm::Sha256, content.as_bytes());
    let sig = private.sign(padding(Algorithm::Sha256), &hashed).unwrap();
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.extend_pairs(params.iter().copied());
    form.append_pair("sign", &mac::encode_digest(DigestEncoding::Base64, &sig));
    let public = RsaPublicKey::from(&private)
        .to_public_key_pem(LineEnding::LF)
        .unwrap();
    (form.finish().into_bytes(), public)
}

static NO_HEADERS: Vec<(String, String)> = Vec::new();

fn form_request(body: &[u8]) -> UntrustedRequest<'static> {
    UntrustedRequest {
        method: "POST",
        url: "",
        query: "",
        headers: &NO_HEADERS,
        body: bytes::Bytes::copy_from_slice(body),
        received_at: 1_700_000_000,
    }
}

#[test]
fn a_form_field_signature_over_the_sorted_fields() {
    let params = alipay();
    params.check().unwrap();
    let fields = [
        ("notify_id", "n1"),
        ("sign_type", "RSA2"),
        ("subject", "测试 a&b=c"),
        ("total_amount", "0.01"),
    ];
    let (body, public) = alipay_body(&fields);
    let key = params.decode_secret(&public).unwrap();
    assert_eq!(params.verify(&form_request(&body), &[&key]), Ok(None));
    // sign_type is unsigned: changing it changes nothing.
    let text = String::from_utf8(body.clone()).unwrap();
    let other_type = text.replace("sign_type=RSA2", "sign_type=RSA");
    assert_eq!(
        params.verify(&form_request(other_type.as_bytes()), &[&key]),
        Ok(None)
    );
    // A signed field changed, added, or given twice.
    for bad in [
        text.replace("total_amount=0.01", "total_amount=0.02"),
        format!("{text}&extra=1"),
        format!("{text}&total_amount=0.01"),
    ] {
        assert_eq!(
            params.verify(&form_request(bad.as_bytes()), &[&key]),
            Err(VerifyError::InvalidSignature),
            "{bad}"
        );
    }
    // Malformed signature encodings, and no signature at all.
    let sig_at = text.find("&sign=").unwrap();
    for (tail, want) in [
        ("&sign=%%%", VerifyError::InvalidSignature),
        ("&sign=AAAA", VerifyError::InvalidSignature),
        ("", VerifyError::MissingSignature),
        ("&sign=", VerifyError::MissingSignature),
    ] {
        let bad = format!("{}{tail}", &text[..sig_at]);
        assert_eq!(
            params.verify(&form_request(bad.as_bytes()), &[&key]),
            Err(want),
            "{bad}"
        );
    }
}

#[test]
fn a_form_signature_with_another_key_fails_and_rotation_works() {
    let params = alipay();
    let (body, public) = alipay_body(&[("notify_id", "n1"), ("a", "b")]);
    let right = params.decode_secret(&public).unwrap();
    // Another 2048-bit key (generating one takes seconds in a debug build).
    let other = include_str!("../../../../tests/vectors/alipay/test-merchant-key.pem");
    let other = RsaPublicKey::from(&RsaPrivateKey::from_pkcs8_pem(other).unwrap());
    assert_eq!(other.size(), 256);
    let other = params
        .decode_secret(&other.to_public_key_pem(LineEnding::LF).unwrap())
        .unwrap();
    assert_eq!(
        params.verify(&form_request(&body), &[&other]),
        Err(VerifyError::InvalidSignature)
    );
    assert_eq!(
        params.verify(&form_request(&body), &[&other, &right]),
        Ok(None)
    );
}

#[test]
fn form_is_exclusive_with_the_header_fields_and_signs_in_the_body() {
    let mut params = alipay();
    params.header = Some(HeaderNames(vec!["X-Sig".into()]));
    assert!(params.check().is_err());
    let mut params = alipay();
    params.form.as_mut().unwrap().field = String::new();
    assert!(params.check().is_err());
    let mut params = bridge();
    params.header = None;
    assert!(params.check().is_err());
    let params = alipay();
    let pem = include_str!("../../../fuzzing/rsa-2048.pem");
    let signing = params.decode_private_key(pem).unwrap();
    let input = SignInput {
        method: "POST",
        url: "",
        headers: &[],
        body: b"a=b",
        id: "",
        timestamp: 0,
    };
    assert_eq!(params.sign(&signing, &input), Err(SignError::SignedInBody));
}
