//! The content digest of an event: what the conflict check compares.
//!
//! Providers rewrite their own delivery envelope on a retry (Mux grows
//! `attempts[]`, Telnyx counts `meta.attempt`, LINE sets
//! `deliveryContext.isRedelivery`). Those fields say how the event was
//! delivered, not what happened, so a retry that changes only them is the
//! same event: a `duplicate`, not a `conflict`. A definition names them as
//! JSON pointers (`[fingerprint] ignore = [...]`); the digest is then the
//! SHA-256 of the body without them, in a canonical form (object members
//! sorted, no whitespace), so only a change of content is a conflict.
//!
//! Without `ignore`, the digest is the SHA-256 of the raw bytes, as it
//! always was: any changed byte is a conflict.

use serde::Deserialize;

use super::identity::check_pointer;
use crate::ids::BodyDigest;
use canonical::Node;

mod canonical;

/// `[fingerprint]` in a provider definition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// RFC 6901 pointers of the envelope the provider rewrites on a retry
    /// (relative to each item when the definition declares a `batch`).
    /// A pointer whose target is absent is skipped.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The body is a compact JWT whose claims are the event (Wix): the
    /// digest is of its payload, in canonical JSON less `ignore` (the
    /// token's `iat` and `exp`, which a resend signed again rewrites), not
    /// of the token's bytes. Read only from a body already verified.
    #[serde(default)]
    pub jwt_payload: bool,
}

impl Fingerprint {
    /// Each pointer is non-empty (ignoring the whole body would make every
    /// body the same event) and well formed.
    pub fn check(&self) -> Result<(), String> {
        for p in &self.ignore {
            if p.is_empty() {
                return Err("fingerprint.ignore: \"\" would ignore the whole body".into());
            }
            check_pointer(p).map_err(|e| format!("fingerprint.ignore: {e}"))?;
        }
        Ok(())
    }

    /// The content digest of `body`. A body that is not JSON has no
    /// envelope to drop: its raw bytes are digested.
    pub fn digest(&self, body: &[u8]) -> BodyDigest {
        if self.ignore.is_empty() && !self.jwt_payload {
            return BodyDigest::of(body);
        }
        let claims;
        let json = if self.jwt_payload {
            let token = std::str::from_utf8(body).ok();
            claims = token.and_then(|t| super::scheme::jws::unverified_payload(t.trim()));
            claims.as_deref()
        } else {
            Some(body)
        };
        let Some(mut doc) = json.and_then(Node::parse) else {
            return BodyDigest::of(body);
        };
        for pointer in &self.ignore {
            doc.remove(pointer);
        }
        let mut canonical = Vec::with_capacity(body.len());
        doc.write(&mut canonical);
        BodyDigest::of(&canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::Fingerprint;
    use crate::ids::BodyDigest;

    fn fp(ignore: &[&str]) -> Fingerprint {
        Fingerprint {
            jwt_payload: false,
            ignore: ignore.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn without_ignore_the_raw_bytes_are_the_digest() {
        let body = br#"{"id":"e1", "n":1}"#;
        assert_eq!(fp(&[]).digest(body), BodyDigest::of(body));
        // One changed byte is another digest.
        assert_ne!(
            fp(&[]).digest(body),
            fp(&[]).digest(br#"{"id":"e1","n":1}"#)
        );
    }

    /// Mux's retry: the same event with one more attempt recorded.
    #[test]
    fn a_retry_that_rewrites_only_the_envelope_has_the_same_digest() {
        let f = fp(&["/attempts"]);
        let first = br#"{"type":"video.asset.ready","id":"3a56","data":{"id":"a1"},"attempts":[]}"#;
        let retry = br#"{"type":"video.asset.ready","id":"3a56","data":{"id":"a1"},
            "attempts":[{"webhook_id":1,"response_status_code":500}]}"#;
        assert_eq!(f.digest(first), f.digest(retry));
        // A change of content is still another digest.
        let changed =
            br#"{"type":"video.asset.ready","id":"3a56","data":{"id":"a2"},"attempts":[]}"#;
        assert_ne!(f.digest(first), f.digest(changed));
    }

    #[test]
    fn nested_pointers_escapes_and_absent_targets() {
        let f = fp(&["/meta/attempt", "/a~1b", "/missing/deep", "/list/1"]);
        let one = br#"{"data":{"id":"x"},"meta":{"attempt":1,"delivered_to":"u"},"a/b":1,"list":[1,2,3]}"#;
        let two = br#"{"list":[1,9,3],"a/b":2,"meta":{"delivered_to":"u","attempt":2},"data":{"id":"x"}}"#;
        assert_eq!(f.digest(one), f.digest(two));
        let other = br#"{"data":{"id":"x"},"meta":{"attempt":1,"delivered_to":"v"},"a/b":1,"list":[1,2,3]}"#;
        assert_ne!(f.digest(one), f.digest(other));
    }

    #[test]
    fn member_order_and_whitespace_do_not_matter_once_canonical() {
        let f = fp(&["/x"]);
        assert_eq!(
            f.digest(br#"{"a":1,"b":{"c":[1,2],"d":"e"}}"#),
            f.digest(b"{ \"b\" : {\"d\":\"e\",\"c\":[1, 2]}, \"a\":1, \"x\":0 }")
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_digested_raw() {
        assert_eq!(fp(&["/a"]).digest(b"a=1&b=2"), BodyDigest::of(b"a=1&b=2"));
    }

    #[test]
    fn pointers_are_checked() {
        assert!(fp(&["/a", "/b/0"]).check().is_ok());
        assert!(fp(&[""]).check().is_err());
        assert!(fp(&["a"]).check().is_err());
    }

    #[test]
    fn a_jwt_body_is_digested_by_its_claims_less_its_times() {
        use base64::Engine as _;
        let b64 = |v: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
        let token = |claims: &str, sig: &str| {
            format!("{}.{}.{sig}", b64("{\"alg\":\"RS256\"}"), b64(claims))
        };
        let f = Fingerprint {
            jwt_payload: true,
            ignore: vec!["/iat".into(), "/exp".into()],
        };
        let first = f.digest(token(r#"{"data":"x","iat":1,"exp":301}"#, "s1").as_bytes());
        let resent = f.digest(token(r#"{"iat":900,"data":"x","exp":1200}"#, "s2").as_bytes());
        let changed = f.digest(token(r#"{"data":"y","iat":1,"exp":301}"#, "s1").as_bytes());
        assert_eq!(first, resent);
        assert_ne!(first, changed);
        // Not a token: the raw bytes.
        assert_eq!(f.digest(b"not a token"), BodyDigest::of(b"not a token"));
    }
}
