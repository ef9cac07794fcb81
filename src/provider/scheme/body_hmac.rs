//! `scheme = "body-hmac"`: the signature travels inside the JSON body, over
//! other fields of the body. Mailgun: `/signature/signature` = hex
//! HMAC-SHA256(signing key, `/signature/timestamp` + `/signature/token`);
//! a subaccount's event carries the same HMAC with the primary account's
//! key in `/signature/parent-signature`. The rest of the body is not
//! covered, which is the provider's design: the token makes each signature
//! single-use, so hookline deduplicates on the event ID as usual.

use serde::Deserialize;
use serde_json::Value;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding, TimestampFormat};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "body-hmac"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyHmacParams {
    /// JSON pointers to the signatures; any one may match.
    pub signature_pointers: Vec<String>,
    /// JSON pointers to the signed fields, concatenated in this order.
    pub signed_pointers: Vec<String>,
    /// JSON pointer to the signed timestamp (one of `signed_pointers`).
    pub timestamp_pointer: String,
    /// How the timestamp is written (default `unix`).
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// `sha1`, `sha256` (default) or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the signature is written: `hex` (default), `base64`, `base64url`.
    #[serde(default)]
    pub encoding: DigestEncoding,
    /// How a configured secret becomes key bytes (default `utf8`).
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
}

/// A string or number at `pointer`, as text.
fn text<'a>(body: &'a Value, pointer: &str) -> Option<std::borrow::Cow<'a, str>> {
    match body.pointer(pointer)? {
        Value::String(s) => Some(s.as_str().into()),
        Value::Number(n) => Some(n.to_string().into()),
        _ => None,
    }
}

impl Family for BodyHmacParams {
    fn name(&self) -> &'static str {
        "body-hmac"
    }

    fn check(&self) -> Result<(), String> {
        if self.signature_pointers.is_empty() || self.signed_pointers.is_empty() {
            return Err("signature_pointers and signed_pointers must not be empty".into());
        }
        if !self.signed_pointers.contains(&self.timestamp_pointer) {
            return Err("timestamp_pointer must be one of signed_pointers: an unsigned timestamp proves nothing".into());
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        mac::decode_secret(self.secret_encoding, secret)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let body: Value =
            serde_json::from_slice(&req.body).map_err(|_| VerifyError::MissingSignature)?;
        let candidates: Vec<Vec<u8>> = self
            .signature_pointers
            .iter()
            .filter_map(|p| text(&body, p))
            .filter_map(|s| mac::decode_digest(self.encoding, &s))
            .collect();
        if candidates.is_empty() {
            return Err(VerifyError::MissingSignature);
        }
        let mut signed = Vec::new();
        for pointer in &self.signed_pointers {
            let value = text(&body, pointer).ok_or(VerifyError::InvalidSignature)?;
            signed.extend_from_slice(value.as_bytes());
        }
        if !mac::any_raw_matches(self.algorithm, keys, &signed, &candidates) {
            return Err(VerifyError::InvalidSignature);
        }
        let timestamp =
            text(&body, &self.timestamp_pointer).ok_or(VerifyError::InvalidSignature)?;
        self.timestamp_format.parse(&timestamp).map(Some)
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::SignedInBody)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &[]
    }
}
