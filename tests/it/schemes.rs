//! The scheme families beyond their known answers (those are in
//! `tests/vectors/`): every built-in signs what it verifies, refuses what
//! was tampered with; what it refuses, and in what order, is in
//! `schemes_refusals.rs`.

use crate::common;

use common::provider::{configure, event_id, verify, Req};
use hookline::provider::{
    sender_headers, Definitions, FieldSource, Key, ProviderDef, Rejection, Scheme, Verdict,
    VerifyError,
};
use sha2::Digest as _;

pub(crate) const NOW: i64 = 1_700_000_000;
/// The body of the built-ins that read nothing from it.
pub(crate) const BODY: &[u8] =
    br#"{"id":"evt_1","event_id":"evt_1","type":"t","event":{"type":"t"}}"#;

/// A JSON body that carries the event ID `evt_1` and the event type `ty`
/// where `def` looks for them (and a signed body timestamp where the scheme
/// reads one).
fn body_for(def: &ProviderDef, ty: &str) -> Vec<u8> {
    let mut value = serde_json::Value::Null;
    match &def.event_id {
        FieldSource::JsonPointer(p) => put(&mut value, p, "evt_1".into()),
        FieldSource::JsonPointers(ps, _) => {
            ps.iter().for_each(|p| put(&mut value, p, "evt_1".into()))
        }
        _ => {}
    }
    if let Some(FieldSource::JsonPointer(p)) = &def.event_type {
        put(&mut value, p, ty.into());
    }
    if let Scheme::Hmac(h) = &def.signature {
        if let Some(p) = &h.timestamp_json_pointer {
            put(&mut value, p, h.timestamp_format.format(NOW).into());
        }
    }
    // Two types make two bodies even where the type is not in the body.
    let salt = if value.is_array() { "/0/salt" } else { "/salt" };
    put(&mut value, salt, ty.into());
    // A batch definition reads its pointers in each item: one item here.
    if let Some(batch) = def.batch.as_deref() {
        let mut root = serde_json::Value::Null;
        put(&mut root, &format!("{batch}/0"), value);
        value = root;
    }
    serde_json::to_vec(&value).unwrap()
}

/// Set `pointer` in `root`, making objects (arrays for numeric tokens).
fn put(root: &mut serde_json::Value, pointer: &str, leaf: serde_json::Value) {
    let mut at = root;
    for token in pointer.split('/').skip(1) {
        at = match token.parse::<usize>() {
            Ok(i) => {
                if !at.is_array() {
                    *at = serde_json::Value::Array(Vec::new());
                }
                let a = at.as_array_mut().unwrap();
                a.resize(a.len().max(i + 1), serde_json::Value::Null);
                &mut a[i]
            }
            Err(_) => {
                if !at.is_object() {
                    *at = serde_json::Value::Object(Default::default());
                }
                at.as_object_mut()
                    .unwrap()
                    .entry(token)
                    .or_insert(serde_json::Value::Null)
            }
        };
    }
    *at = leaf;
}

/// The event ID a request with `body` yields under `def`.
fn expected_id(def: &ProviderDef, body: &[u8]) -> String {
    match &def.event_id {
        // The item's own bytes for a batch (its only item here).
        FieldSource::BodySha256 => match def.batch.as_deref() {
            Some(batch) => {
                let v: serde_json::Value = serde_json::from_slice(body).unwrap();
                let item = v.pointer(&format!("{batch}/0")).unwrap();
                hex::encode(sha2::Sha256::digest(serde_json::to_vec(item).unwrap()))
            }
            None => hex::encode(sha2::Sha256::digest(body)),
        },
        // Each part as the body holds it (the type may share a pointer).
        FieldSource::JsonPointers(ps, join) => {
            let v: serde_json::Value = serde_json::from_slice(body).unwrap();
            let part = |p: &String| v.pointer(p).and_then(|x| x.as_str()).unwrap().to_owned();
            ps.iter().map(part).collect::<Vec<_>>().join(join)
        }
        _ => "evt_1".to_owned(),
    }
}

/// Throwaway private keys (made with `openssl genpkey`) for the public-key
/// families: two of each, for rotation.
const ED25519_PEMS: [&str; 2] = [
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIMvN6re8LDrJVwkIsXUOfVv045ibFKZ0U4JnDIntCc20\n-----END PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIB+TTT+BlM5BCitJcC4eQyqKwq5DV/hnOfCDICYzzRsl\n-----END PRIVATE KEY-----",
];
const P256_PEMS: [&str; 2] = [
    "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+wURr8zsPyiaZvZU\nCbVml8J+bbm5sDKaxxSaYw85Ts+hRANCAAREI2G0wl7heuOZ6eL2Z8sIqOr+qVEo\nx2r1XCIrDHOP+iebQZkrL/Iw8XVeeNkV0Z88g3ZS749n8L6hUgroz4Kj\n-----END PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgndYylOEZvXFGWksZ\nsH0eeWy0Ue+tazZ0D4BOZ98MKsOhRANCAAQWIYf67W2+lt67WG9fSQb68TP0lD/O\nggmgtg0uLCfMoTBvVKDYJamX1/+cLojkyk6Y+OS+ymkVwQwV3ZmDN3xO\n-----END PRIVATE KEY-----",
];

/// Throwaway RSA keys (the test keys of Bridge's vectors).
const RSA_PEMS: [&str; 2] = [
    include_str!("../vectors/bridge/test-signing-key.pem"),
    include_str!("../vectors/bridge/test-other-key.pem"),
];

/// What a test needs to sign for one definition and configure a tenant
/// that verifies it: two tenant secrets of the definition's own format and
/// the key that signs for the first.
pub(crate) struct Signer {
    pub(crate) secrets: [String; 2],
    pub(crate) key: Key,
}

pub(crate) fn signer(def: &ProviderDef) -> Signer {
    for pems in [ED25519_PEMS, P256_PEMS, RSA_PEMS] {
        if let Ok(key) = def.decode_private_key(pems[0]) {
            let other = def.decode_private_key(pems[1]).unwrap();
            let public = |k: &Key| def.public_secret(k).expect("a public-key family");
            return Signer {
                secrets: [public(&key), public(&other)],
                key,
            };
        }
    }
    // The first pair the definition accepts: plain, Basic auth, whsec_.
    let secrets = [
        ["secret-one", "secret-two"],
        ["user:secret-one", "user:secret-two"],
        ["whsec_c2VjcmV0LW9uZS1rZXk=", "whsec_c2VjcmV0LXR3by1rZXk="],
        // An ID and a base64 secret (Sinch Voice's key and secret).
        ["key:c2VjcmV0LW9uZQ==", "key:c2VjcmV0LXR3bw=="],
        // Hex (Squarespace), then base64 (Microsoft Teams).
        ["736563726574206f6e65", "7365637265742074776f"],
        ["c2VjcmV0LW9uZQ==", "c2VjcmV0LXR3bw=="],
    ]
    .into_iter()
    .find(|[one, _]| def.decode_secret(one).is_ok())
    .expect("a secret format the definition accepts");
    Signer {
        key: def.decode_secret(secrets[0]).unwrap(),
        secrets: secrets.map(str::to_owned),
    }
}

pub(crate) fn signed(def: &ProviderDef, key: &Key, body: &[u8]) -> Vec<(String, String)> {
    let url = "https://hooks.example.com/webhooks/p/t";
    sender_headers(def, key, body, "evt_1", Some("t"), NOW, url).unwrap()
}

/// The built-ins whose signature travels in headers (those a sender
/// signs without touching the body); the body-carried schemes have
/// [`malformed_bodies_never_pass_body_carried_schemes`]. Those only the
/// provider signs, with a certificate hookline fetches (AWS SNS, PayPal),
/// have tests/it/cert_url.rs.
pub(crate) fn built_ins() -> Vec<ProviderDef> {
    let defs = Definitions::load(None).unwrap();
    defs.definitions()
        .filter(|d| !d.signature_headers().is_empty() && !d.fetches())
        .map(|d| d.as_ref().clone())
        .collect()
}

/// Schemes whose signature or token is inside the body (Mailgun, Microsoft
/// Graph) or the URL's query (Azure Event Grid): whatever the body holds, a
/// request is refused, never a panic, and `hookline sign` says it cannot
/// sign them.
#[test]
fn malformed_bodies_never_pass_body_carried_schemes() {
    let bodies: [&[u8]; 10] = [
        b"",
        b"not json",
        b"[]",
        b"null",
        br#"{"signature":{}}"#,
        br#"{"signature":{"timestamp":1,"token":[],"signature":"zz"}}"#,
        br#"{"signature":{"timestamp":"x","token":"t","signature":"00"}}"#,
        br#"{"value":[]}"#,
        br#"{"value":[{"clientState":"right"},{"clientState":7}]}"#,
        br#"{"value":"right"}"#,
    ];
    let alipay: serde_json::Value =
        serde_json::from_str(include_str!("../vectors/alipay/vectors.json")).unwrap();
    let rsa_public = alipay["cases"][0]["secrets"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let defs = Definitions::load(None).unwrap();
    let body_carried: Vec<_> = defs
        .definitions()
        .filter(|d| d.signature_headers().is_empty() && !d.fetches())
        .collect();
    assert!(body_carried.len() >= 2);
    for def in body_carried {
        // "right" as text, or as hex for a hex key (Adyen), or as a key
        // pair (Braintree's `public:private`), or an RSA public key
        // (Alipay's, from its vectors). Else the signer's key (Wix's).
        let right = ["right", "7269676874", "right:right", rsa_public.as_str()]
            .into_iter()
            .find(|s| def.decode_secret(s).is_ok())
            .map_or_else(|| signer(def).secrets[0].clone(), str::to_owned);
        let right = right.as_str();
        let (settings, _dir) = configure(&def.kind, None, &[right]).unwrap();
        for body in bodies {
            let got = verify(&settings, &Req::post(Vec::new(), body, NOW));
            assert!(
                matches!(got, Err(Rejection::Verify(_))),
                "{}: {:?} gave {got:?}",
                def.kind,
                String::from_utf8_lossy(body)
            );
        }
        let key = def.decode_secret(right).unwrap();
        let err = sender_headers(def, &key, b"{}", "x", None, NOW, "").unwrap_err();
        // A token in the URL (Azure Event Grid's ?code=) is no more in a
        // header than one in the body, and says where it goes instead.
        // A signature only the provider's own certificate chain can make
        // (Apple's JWS) says so instead.
        use hookline::provider::SignError;
        let expected: &[SignError] = if def.secret_query_params().is_empty() {
            &[SignError::SignedInBody, SignError::ProviderOnly]
        } else {
            &[SignError::SignedInUrl]
        };
        assert!(expected.contains(&err), "{}: {err:?}", def.kind);
    }
}

/// For every built-in kind: a request signed the way its sender signs
/// verifies, with the event ID it carries; any one of several secrets
/// verifies (rotation); a wrong secret, a changed body and a missing
/// signature header do not.
#[test]
fn every_built_in_verifies_what_it_signs() {
    for def in built_ins() {
        let kind = def.kind.as_str();
        let signer = signer(&def);
        let [secret, other] = [signer.secrets[0].as_str(), signer.secrets[1].as_str()];
        let body = body_for(&def, "t");
        let headers = signed(&def, &signer.key, &body);
        let req = Req::post(headers.clone(), &body, NOW);
        let (settings, _dir) = configure(kind, None, &[secret]).unwrap();
        let id = expected_id(&def, &body);
        assert_eq!(event_id(&settings, &req), id, "{kind}: signed");
        let (rotated, _dir) = configure(kind, None, &[other, secret]).unwrap();
        assert_eq!(event_id(&rotated, &req), id, "{kind}: rotation");
        let (wrong, _dir) = configure(kind, None, &[other]).unwrap();
        assert_eq!(
            verify(&wrong, &req).unwrap_err(),
            Rejection::Verify(VerifyError::InvalidSignature),
            "{kind}: wrong secret"
        );
        // A token covers no body: only the MAC families can notice this.
        if !matches!(def.signature, Scheme::Token(_) | Scheme::Basic(_)) {
            let changed = body_for(&def, "u");
            let tampered = Req::post(headers.clone(), &changed, NOW);
            assert_eq!(
                verify(&settings, &tampered).unwrap_err(),
                Rejection::Verify(VerifyError::InvalidSignature),
                "{kind}: tampered"
            );
        }
        let stripped: Vec<_> = headers
            .iter()
            .filter(|(k, _)| {
                !def.signature_headers()
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(k))
            })
            .cloned()
            .collect();
        assert_eq!(
            verify(&settings, &Req::post(stripped, &body, NOW)).unwrap_err(),
            Rejection::Verify(VerifyError::MissingSignature),
            "{kind}: missing"
        );
    }
}

/// A provider whose signature leaves out the header carrying the event ID
/// lets a captured request through again under a fresh ID. Every built-in
/// where that is so says, with its reason, whether its body is a second
/// dedup key (`replay_guard`); none sets it needlessly.
#[test]
fn every_unsigned_event_id_is_named() {
    let (mut unsigned, mut wrong) = (Vec::new(), Vec::new());
    for def in built_ins() {
        let FieldSource::Header(names) = &def.event_id else {
            continue;
        };
        let signer = signer(&def);
        let body = body_for(&def, "t");
        let mut headers = signed(&def, &signer.key, &body);
        let Some(at) = headers.iter().position(|(k, _)| names.contains(k)) else {
            continue;
        };
        headers[at].1 = "evt_fresh".into();
        let (settings, _dir) = configure(&def.kind, None, &[&signer.secrets[0]]).unwrap();
        let replayable = matches!(
            verify(&settings, &Req::post(headers.clone(), &body, NOW)),
            Ok(Verdict::Event(_))
        );
        if replayable {
            unsigned.push(def.kind.clone());
        }
        if def.replay_guard.is_some() != replayable {
            wrong.push(format!(
                "{} (replay_guard {:?})",
                def.kind, def.replay_guard
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "unsigned IDs {unsigned:?}; these disagree with their replay_guard: {wrong:?}"
    );
    assert!(unsigned.contains(&"github".to_owned()), "{unsigned:?}");
}

/// A token a scheme reads from the query (Azure Event Grid's `?code=`) is
/// never kept with the event: the query filters and transforms see has it
/// redacted, and the other parameters as sent.
#[test]
fn a_query_token_is_not_kept_with_the_event() {
    let defs = Definitions::load(None).unwrap();
    let url_tokens: Vec<_> = defs
        .definitions()
        .filter(|d| !d.secret_query_params().is_empty())
        .collect();
    assert!(!url_tokens.is_empty());
    for def in url_tokens {
        let param = &def.secret_query_params()[0];
        let (settings, _dir) = configure(&def.kind, None, &["s3cret-token"]).unwrap();
        let url = format!("https://hooks.example.com/webhooks/p/t?{param}=s3cret-token&keep=1");
        let mut req = Req::post(Vec::new(), &body_for(def, "t"), NOW);
        req.url = &url;
        let got = verify(&settings, &req);
        let ev = match got {
            Ok(Verdict::Event(ev)) => ev,
            Ok(Verdict::Batch(mut evs)) if !evs.is_empty() => evs.remove(0),
            other => panic!("{}: the token in the query verifies: {other:?}", def.kind),
        };
        assert!(
            !ev.query().contains("s3cret"),
            "{}: {}",
            def.kind,
            ev.query()
        );
        assert!(
            ev.query().contains("keep=1"),
            "{}: {}",
            def.kind,
            ev.query()
        );
    }
}

/// The items of a batch share the request's query string, forwarded
/// headers and content type: a copy each cost items x length (a 30 KB
/// query on a 1 MiB batch of 50,000 items took 1.8 GB).
#[test]
fn the_items_of_a_batch_share_what_the_request_carries() {
    let (settings, _dir) = configure("helius", None, &["tok-secret"]).unwrap();
    let query = format!("q={}", "A".repeat(30_000));
    let url = format!("https://hooks.example.com/webhooks/p/t?{query}");
    let mut req = Req::post(
        vec![
            ("Authorization".into(), "tok-secret".into()),
            ("Content-Type".into(), "application/json".into()),
        ],
        br#"[{"signature":"a"},{"signature":"b"},{"signature":"c"}]"#,
        NOW,
    );
    req.url = &url;
    let evs = match verify(&settings, &req) {
        Ok(Verdict::Batch(evs)) => evs,
        other => panic!("a batch of three: {other:?}"),
    };
    assert_eq!(evs.len(), 3);
    for ev in &evs {
        assert_eq!(ev.query(), query);
        assert_eq!(ev.query().as_ptr(), evs[0].query().as_ptr(), "one copy");
        assert_eq!(ev.content_type(), Some("application/json"));
        assert_eq!(
            ev.content_type().map(str::as_ptr),
            evs[0].content_type().map(str::as_ptr)
        );
    }
}
