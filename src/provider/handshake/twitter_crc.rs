//! `kind = "twitter-crc"`: X (Twitter) checks a webhook at registration,
//! hourly and on demand with `GET ?crc_token=T`, and expects
//! `{"response_token":"sha256=" + base64(HMAC-SHA256(consumer secret, T))}`
//! within 3 s (<https://docs.x.com/x-api/webhooks/quickstart#2-the-crc-check>).
//!
//! The answer is an HMAC of text the caller chose, made with the tenant's
//! secret: whoever can ask gets a MAC of anything. So the CRC is answered
//! only when X signed it the way it signs events (the same header,
//! base64 HMAC-SHA256 over the raw query string, as the `autohook`
//! package's fixtures show), the token is at most
//! [`super::MAX_CHALLENGE_LEN`] bytes, and a token that parses as JSON (an
//! event body, whose MAC would be a valid event signature) is refused.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::Deserialize;

use super::{echoable, query_param, Credentials, HandshakeAnswer, HandshakeKind, Stage};
use crate::provider::header::HeaderNames;
use crate::provider::request::{Rejection, UntrustedRequest};
use crate::provider::scheme::mac::{self, Algorithm, DigestEncoding};
use crate::provider::scheme::VerifyError;

/// Where the CRC's own signature is.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwitterCrc {
    /// Header carrying `prefix` + base64 HMAC-SHA256 of the raw query.
    pub header: HeaderNames,
    /// Text before the digest (`sha256=`).
    #[serde(default)]
    pub prefix: String,
}

impl HandshakeKind for TwitterCrc {
    fn name(&self) -> &'static str {
        "twitter-crc"
    }

    fn stage(&self) -> Stage {
        // Verified here: the CRC signs its query, not a body.
        Stage::Unsigned
    }

    fn methods(&self) -> &'static [&'static str] {
        &["GET"]
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "GET" {
            return None;
        }
        let token = query_param(req.query, "crc_token")?;
        Some(self.respond(req, tenant, &token))
    }
}

impl TwitterCrc {
    fn respond(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
        token: &str,
    ) -> Result<HandshakeAnswer, Rejection> {
        let header = req
            .headers
            .first_of(&self.header)
            .ok_or(VerifyError::MissingSignature)?;
        let offered = header
            .trim()
            .strip_prefix(self.prefix.as_str())
            .and_then(|d| mac::decode_digest(DigestEncoding::Base64, d))
            .ok_or(VerifyError::InvalidSignature)?;
        // The key that signed the CRC answers it.
        let candidates = [offered];
        let key = tenant
            .keys
            .iter()
            .find(|k| {
                mac::any_raw_matches(Algorithm::Sha256, &[**k], req.query.as_bytes(), &candidates)
            })
            .and_then(|k| k.shared_bytes())
            .ok_or(VerifyError::InvalidSignature)?;
        echoable(token)?;
        if serde_json::from_str::<serde_json::Value>(token).is_ok_and(|v| !v.is_string()) {
            return Err(Rejection::MalformedPayload);
        }
        let mut m = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        m.update(token.as_bytes());
        let response = format!("sha256={}", STANDARD.encode(m.finalize().into_bytes()));
        Ok(HandshakeAnswer::json(
            &serde_json::json!({ "response_token": response }),
        ))
    }
}
