//! The `hmac` family's parameters, each through a definition an operator
//! could write: algorithms, digest encodings, template placeholders, and
//! where the event ID comes from.

use crate::common;

use base64::Engine as _;
use common::provider::{configure, event_id, headers, verify, Req};
use hookline::provider::{sender_headers, Rejection, VerifyError};
use sha2::Digest;

const NOW: i64 = 1_700_000_000;
/// RFC 2202 / RFC 4231 test case 2.
const KEY: &str = "Jefe";
const DATA: &[u8] = b"what do ya want for nothing?";

/// A definition of kind `custom` with these `[signature]` lines and
/// `[event_id]` line.
fn definition(signature: &str, event_id: &str) -> String {
    format!(
        "kind = \"custom\"\ntitle = \"Custom\"\n[signature]\nscheme = \"hmac\"\nheader = \"X-Sig\"\n{signature}\n[event_id]\n{event_id}\n"
    )
}

fn check(signature: &str, sig: &str, body: &[u8]) -> Result<String, Rejection> {
    let def = definition(signature, "body_sha256 = true");
    let (settings, _dir) = configure("custom", Some(&def), &[KEY]).unwrap();
    let req = Req::post(headers(&[("X-Sig", sig)]), body, NOW);
    verify(&settings, &req).map(|_| event_id(&settings, &req))
}

#[test]
fn algorithms() {
    // RFC 2202 section 3 and RFC 4231 section 4.3, test case 2.
    let sha1 = "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79";
    let sha256 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    let sha512 = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737";
    for (algorithm, sig) in [("sha1", sha1), ("sha256", sha256), ("sha512", sha512)] {
        let params = format!("algorithm = \"{algorithm}\"");
        assert!(check(&params, sig, DATA).is_ok(), "{algorithm}");
        let wrong = if algorithm == "sha1" { sha256 } else { sha1 };
        assert_eq!(
            check(&params, wrong, DATA).unwrap_err(),
            Rejection::Verify(VerifyError::InvalidSignature),
            "{algorithm} with another algorithm's digest"
        );
    }
}

#[test]
fn digest_encodings_with_and_without_padding() {
    let digest = hex::decode("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79").unwrap();
    let std = base64::engine::general_purpose::STANDARD.encode(&digest);
    let url = base64::engine::general_purpose::URL_SAFE.encode(&digest);
    // This digest holds a '/', so the two alphabets differ.
    assert_ne!(std, url);
    let sha1 = "algorithm = \"sha1\"\n";
    for (encoding, sig) in [
        ("base64", std.clone()),
        ("base64", std.trim_end_matches('=').to_owned()),
        ("base64url", url.clone()),
        ("base64url", url.trim_end_matches('=').to_owned()),
    ] {
        let params = format!("{sha1}encoding = \"{encoding}\"");
        assert!(check(&params, &sig, DATA).is_ok(), "{encoding} {sig}");
    }
    for (encoding, sig) in [("base64", &url), ("base64url", &std)] {
        let params = format!("{sha1}encoding = \"{encoding}\"");
        assert!(check(&params, sig, DATA).is_err(), "{encoding} {sig}");
    }
}

/// `{url}{form}` reproduces Twilio's signature as its SDK computes it
/// (`twilio` 9.13.0 on PyPI, `RequestValidator.compute_signature`): the
/// first case is the example of Twilio's docs, the second repeats a name
/// with a duplicated value.
#[test]
fn form_placeholder_matches_twilios_sdk() {
    let def = "kind = \"custom\"\ntitle = \"Twilio-like\"\n[signature]\nscheme = \"hmac\"\nheader = \"X-Twilio-Signature\"\nalgorithm = \"sha1\"\nencoding = \"base64\"\nsigned_content = \"{url}{form}\"\n[event_id]\nform_field = \"To\"\n";
    let (settings, _dir) = configure("custom", Some(def), &["12345"]).unwrap();
    assert!(settings.providers["p"].def.needs_url());
    let docs = (
        "https://mycompany.com/myapp.php?foo=1&bar=2",
        "Digits=1234&To=%2B18005551212&CallSid=CA1234567890ABCDE&Caller=%2B12349013030&From=%2B12349013030",
        "0/KCTR6DLpKmkAf8muzZqo1nDgQ=",
    );
    let repeated = (
        "https://hooks.example.com/webhooks/twilio",
        "To=%2B18005551212&MediaUrl=https%3A%2F%2Fb.example%2F2&Body=hi+there&MediaUrl=https%3A%2F%2Fa.example%2F1&MediaUrl=https%3A%2F%2Fb.example%2F2",
        "Vjc1/HZeUxx7h90ISMxLx2s2mb4=",
    );
    for (url, body, sig) in [docs, repeated] {
        let mut req = Req::post(
            headers(&[("X-Twilio-Signature", sig)]),
            body.as_bytes(),
            NOW,
        );
        req.url = url;
        assert_eq!(event_id(&settings, &req), "+18005551212", "{url}");
        // The URL is signed: another one fails.
        req.url = "https://attacker.example/myapp.php?foo=1&bar=2";
        assert_eq!(
            verify(&settings, &req).unwrap_err(),
            Rejection::Verify(VerifyError::InvalidSignature)
        );
    }
}

/// `{method}` and `{header:Name}` are signed; a signed header that is
/// absent is a missing signature, and a sender makes a nonce for a signed
/// header nothing else sets (Sinch's signature nonce).
#[test]
fn method_and_header_placeholders() {
    let def = definition(
        "signed_content = \"{method} {header:X-Request-Id} {body}\"",
        "header = \"X-Request-Id\"",
    );
    let (settings, _dir) = configure("custom", Some(&def), &[KEY]).unwrap();
    let mac = |content: &[u8]| {
        use hmac::Mac;
        let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(KEY.as_bytes()).unwrap();
        m.update(content);
        hex::encode(m.finalize().into_bytes())
    };
    let sig = mac(b"POST req-7 {}");
    let req = Req::post(
        headers(&[("X-Sig", &sig), ("X-Request-Id", "req-7")]),
        b"{}",
        NOW,
    );
    assert_eq!(event_id(&settings, &req), "req-7");
    let other = Req::post(
        headers(&[("X-Sig", &sig), ("X-Request-Id", "req-8")]),
        b"{}",
        NOW,
    );
    assert_eq!(
        verify(&settings, &other).unwrap_err(),
        Rejection::Verify(VerifyError::InvalidSignature)
    );
    let absent = Req::post(headers(&[("X-Sig", &sig)]), b"{}", NOW);
    assert_eq!(
        verify(&settings, &absent).unwrap_err(),
        Rejection::Verify(VerifyError::MissingSignature)
    );
    // The event ID header is the one a sender sets, so it can sign...
    let def = &settings.providers["p"].def;
    let key = def.decode_secret(KEY).unwrap();
    let signed = sender_headers(def, &key, b"{}", "req-7", None, NOW, "").unwrap();
    let req = Req::post(signed, b"{}", NOW);
    assert_eq!(event_id(&settings, &req), "req-7");
    // ...and a header nothing sets is a fresh nonce, sent and signed.
    let def = definition(
        "signed_content = \"{header:X-Nonce}{body}\"",
        "body_sha256 = true",
    );
    let (settings, _dir) = configure("custom", Some(&def), &[KEY]).unwrap();
    let def = &settings.providers["p"].def;
    let key = def.decode_secret(KEY).unwrap();
    let first = sender_headers(def, &key, b"{}", "x", None, NOW, "").unwrap();
    let second = sender_headers(def, &key, b"{}", "x", None, NOW, "").unwrap();
    let nonce = |h: &[(String, String)]| h.iter().find(|(k, _)| k == "X-Nonce").cloned();
    assert!(nonce(&first).is_some_and(|(_, v)| v.len() >= 16));
    assert_ne!(nonce(&first), nonce(&second), "a nonce is never reused");
    assert!(verify(&settings, &Req::post(first, b"{}", NOW)).is_ok());
}

/// The event ID from a form field or from the body's SHA-256: an identical
/// retry then has the same ID, another body another.
#[test]
fn event_id_from_form_field_and_body_digest() {
    let sha256 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    let digest = hex::encode(sha2::Sha256::digest(DATA));
    assert_eq!(check("", sha256, DATA).unwrap(), digest);
    assert_eq!(check("", sha256, DATA).unwrap(), digest);

    let def = definition("", "form_field = \"MessageSid\"");
    let (settings, _dir) = configure("custom", Some(&def), &[KEY]).unwrap();
    let key = settings.providers["p"].def.decode_secret(KEY).unwrap();
    for (body, want) in [
        (&b"MessageSid=SM123&Body=hi"[..], Ok("SM123")),
        (b"Body=hi+there&MessageSid=SM%20124", Ok("SM 124")),
        (b"Body=hi", Err(Rejection::MissingEventId)),
        (b"MessageSid=", Err(Rejection::MissingEventId)),
    ] {
        let def = &settings.providers["p"].def;
        let signed = sender_headers(def, &key, body, "", None, NOW, "").unwrap();
        let got = verify(&settings, &Req::post(signed.clone(), body, NOW));
        match want {
            Ok(id) => assert_eq!(event_id(&settings, &Req::post(signed, body, NOW)), id),
            Err(r) => assert_eq!(got.unwrap_err(), r),
        }
    }
}
