//! `kind = "intent-to-receive"`: before a subscription goes live, the
//! provider POSTs signed batches with **no** events, some correctly signed
//! and some not, and turns the subscription on only if the first are
//! answered 200 and the others 401, each with an empty body. Xero
//! (<https://developer.xero.com/documentation/guides/webhooks/configuring-your-server/>;
//! its receiver example, github.com/XeroAPI/xero-php-webhook, warns that
//! any response body fails the check).
//!
//! hookline's ordinary 401 carries a problem document, so the probe is
//! answered here, before verification: a POST whose JSON body holds an
//! empty array at `batch_pointer` is checked against the signature
//! described by `header`, `algorithm` and `encoding` (the definition's own
//! signature, repeated here) with the tenant's keys, and answered 200 or
//! 401, empty either way. It is never an event. Anything else (a batch
//! with events) goes on to verification as usual.

use bytes::Bytes;
use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::header::HeaderNames;
use crate::provider::request::{Rejection, UntrustedRequest};
use crate::provider::scheme::mac::{self, Algorithm, DigestEncoding};

/// What the probe looks like and how it is signed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntentToReceive {
    /// RFC 6901 pointer to the events array that is empty in a probe
    /// (Xero: `/events`).
    pub batch_pointer: String,
    /// Header carrying the signature of the raw body (the definition's).
    pub header: HeaderNames,
    /// The HMAC's hash (the definition's): `sha1`, `sha256`, `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the signature is written (the definition's).
    pub encoding: DigestEncoding,
}

impl IntentToReceive {
    /// Whether `body` is JSON with an empty array at `batch_pointer`.
    fn is_probe(&self, body: &[u8]) -> bool {
        serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| {
                v.pointer(&self.batch_pointer)
                    .and_then(|a| a.as_array().map(Vec::is_empty))
            })
            .unwrap_or(false)
    }

    /// 200 or 401, with no body and no content type.
    fn empty(status: u16) -> HandshakeAnswer {
        HandshakeAnswer {
            status,
            body: Bytes::new(),
            ..HandshakeAnswer::empty()
        }
    }
}

impl HandshakeKind for IntentToReceive {
    fn name(&self) -> &'static str {
        "intent-to-receive"
    }

    fn stage(&self) -> Stage {
        // Answered before verification: its refusal must be an empty 401,
        // not the problem document a failed verification gets.
        Stage::Unsigned
    }

    fn check(&self) -> Result<(), String> {
        if !self.batch_pointer.starts_with('/') {
            return Err("batch_pointer: a JSON pointer starts with '/'".into());
        }
        Ok(())
    }

    fn sample(&self, _challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let mut body = serde_json::json!({});
        let mut at = &mut body;
        for part in self.batch_pointer.trim_start_matches('/').split('/') {
            at = &mut at[part];
        }
        *at = serde_json::json!([]);
        Some(SampleRequest::json(&body))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "POST" || !self.is_probe(&req.body) {
            return None;
        }
        let signed = req
            .headers
            .first_of(&self.header)
            .and_then(|h| mac::decode_digest(self.encoding, h.trim()))
            .is_some_and(|candidate| {
                mac::any_raw_matches(self.algorithm, tenant.keys, &req.body, &[candidate])
            });
        Some(Ok(Self::empty(if signed { 200 } else { 401 })))
    }
}

#[cfg(test)]
mod tests {
    use super::IntentToReceive;
    use crate::provider::handshake::HandshakeKind;

    #[test]
    fn only_an_empty_batch_is_a_probe() {
        let h: IntentToReceive = toml::from_str(
            "batch_pointer = \"/events\"\nheader = \"x-xero-signature\"\nencoding = \"base64\"",
        )
        .unwrap();
        assert!(h.is_probe(br#"{"events":[],"firstEventSequence":0}"#));
        for body in [
            &br#"{"events":[{"eventType":"UPDATE"}]}"#[..],
            br#"{"events":{}}"#,
            br#"{"other":[]}"#,
            b"not json",
        ] {
            assert!(!h.is_probe(body), "{:?}", String::from_utf8_lossy(body));
        }
        let sample = h.sample("", None).unwrap();
        assert!(h.is_probe(&sample.body));
    }
}
