//! What the scheme families refuse, and in what order: no malformed
//! signature header panics, the tolerance is checked only after the
//! signature, other methods are no events, and Slack's URL verification is
//! answered only after its signature.

use crate::common;
use crate::schemes::{built_ins, signed, signer, BODY, NOW};

use common::provider::{configure, verify, Req};
use hookline::provider::{Definitions, Rejection, SignInput, Verdict, VerifyError};

/// Whatever the scheme's headers hold, the answer is a verification
/// failure: never a panic, never an acceptance.
#[test]
fn malformed_signature_headers_never_panic() {
    let long = "v1=".repeat(4000);
    let junk = [
        "",
        " ",
        ",",
        "=",
        ",,,",
        "t=",
        "v1=",
        "t=,v1=",
        "t=abc,v1=zz",
        "t=1,v1=",
        "sha256=",
        "sha256=zz",
        "v0=",
        "v1,",
        "v1,!!!",
        "v1,a v1,b",
        "===",
        "é∑≠",
        "\u{0}",
        "-1",
        "99999999999999999999999",
        "9223372036854775807",
        "-9223372036854775808",
        &long,
    ];
    for def in built_ins() {
        let signer = signer(&def);
        let (settings, _dir) = configure(&def.kind, None, &[&signer.secrets[0]]).unwrap();
        let key = &signer.key;
        let input = SignInput {
            method: "POST",
            url: "",
            headers: &[],
            body: BODY,
            id: "evt_1",
            timestamp: NOW,
        };
        let scheme_headers = def.sign(key, &input).unwrap();
        let all = signed(&def, key, BODY);
        for (name, _) in &scheme_headers {
            for value in junk {
                let headers: Vec<_> = all
                    .iter()
                    .map(|(k, v)| {
                        let v = if k.eq_ignore_ascii_case(name) {
                            value.to_owned()
                        } else {
                            v.clone()
                        };
                        (k.clone(), v)
                    })
                    .collect();
                let got = verify(&settings, &Req::post(headers, BODY, NOW));
                assert!(
                    matches!(got, Err(Rejection::Verify(_))),
                    "{}: {name}: {value:?} gave {got:?}",
                    def.kind
                );
            }
        }
    }
}

/// A signed timestamp exactly at the tolerance verifies; one second past
/// it, either way, does not; and a forged request is forged whatever its
/// timestamp says.
#[test]
fn tolerance_is_checked_after_the_signature_in_both_directions() {
    let defs = Definitions::load(None).unwrap();
    let def = defs.get("slack").unwrap();
    let (settings, _dir) = configure("slack", None, &["secret-one"]).unwrap();
    let headers = signed(def, &signer(def).key, BODY);
    let out = Rejection::Verify(VerifyError::TimestampOutOfTolerance);
    for (now, want) in [
        (NOW + 300, None),
        (NOW - 300, None),
        (NOW + 301, Some(out)),
        (NOW - 301, Some(out)),
    ] {
        let got = verify(&settings, &Req::post(headers.clone(), BODY, now)).err();
        assert_eq!(got, want, "now {now}");
    }
    let (wrong, _dir) = configure("slack", None, &["secret-two"]).unwrap();
    assert_eq!(
        verify(&wrong, &Req::post(headers, BODY, NOW + 3600)).unwrap_err(),
        Rejection::Verify(VerifyError::InvalidSignature)
    );
}

/// Only `POST` is an event; a `GET` that no handshake answers is refused
/// before any signature work.
#[test]
fn other_methods_are_not_events() {
    let (settings, _dir) = configure("github", None, &["secret-one"]).unwrap();
    let mut req = Req::post(Vec::new(), b"", NOW);
    req.method = "GET";
    assert_eq!(
        verify(&settings, &req).unwrap_err(),
        Rejection::MethodNotAllowed
    );
    assert_eq!(settings.providers["p"].def.methods(), ["POST"]);
}

/// Slack's url_verification is a handshake only once signed, and only as
/// `url_verification`: an event of another type is an event.
#[test]
fn slack_handshake_only_after_the_signature() {
    let defs = Definitions::load(None).unwrap();
    let def = defs.get("slack").unwrap();
    let (settings, _dir) = configure("slack", None, &["secret-one"]).unwrap();
    let body = br#"{"type":"url_verification","challenge":"abc123","token":"x"}"#;
    let headers = signed(def, &signer(def).key, body);
    match verify(&settings, &Req::post(headers.clone(), body, NOW)) {
        Ok(Verdict::Handshake(a)) => {
            assert_eq!((a.status, a.content_type), (200, Some("text/plain")));
            assert_eq!(&a.body[..], b"abc123");
        }
        other => panic!("expected a handshake, got {other:?}"),
    }
    let (wrong, _dir) = configure("slack", None, &["secret-two"]).unwrap();
    assert_eq!(
        verify(&wrong, &Req::post(headers, body, NOW)).unwrap_err(),
        Rejection::Verify(VerifyError::InvalidSignature)
    );
    for (body, want) in [
        (
            &br#"{"type":"url_verification"}"#[..],
            Rejection::MalformedPayload,
        ),
        (
            br#"{"type":"url_verification","challenge":""}"#,
            Rejection::MalformedPayload,
        ),
        (
            br#"{"type":"url_verification","challenge":"a\nb"}"#,
            Rejection::MalformedPayload,
        ),
        (
            br#"{"type":"event_callback","challenge":"abc"}"#,
            Rejection::MissingEventId,
        ),
    ] {
        let req = Req::post(signed(def, &signer(def).key, body), body, NOW);
        assert_eq!(verify(&settings, &req).unwrap_err(), want, "{body:?}");
    }
}
