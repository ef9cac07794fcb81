//! `scheme = "body-hmac"`: the signature travels inside the JSON body, over
//! other fields of the body. Mailgun: `/signature/signature` = hex
//! HMAC-SHA256(signing key, `/signature/timestamp` + `/signature/token`);
//! a subaccount's event carries the same HMAC with the primary account's
//! key in `/signature/parent-signature`. The rest of the body is not
//! covered, which is the provider's design: the token makes each signature
//! single-use, so hookline deduplicates on the event ID as usual.
//!
//! Adyen's standard webhooks are the same shape with three parameters more
//! (`@adyen/api-library` `HmacValidator`,
//! <https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures>):
//! base64 HMAC-SHA256 with a hex key over eight item fields joined by `:`
//! (`signed_separator`), an absent field counting as empty
//! (`missing_as_empty`), and no timestamp.

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
    /// Text between the signed fields (Adyen: `:`); default none.
    #[serde(default)]
    pub signed_separator: String,
    /// A signed field the body lacks counts as an empty string (Adyen's
    /// `originalReference`) instead of failing verification.
    #[serde(default)]
    pub missing_as_empty: bool,
    /// JSON pointer to the signed timestamp (one of `signed_pointers`), if
    /// the provider signs one.
    #[serde(default)]
    pub timestamp_pointer: Option<String>,
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
        if let Some(t) = &self.timestamp_pointer {
            if !self.signed_pointers.contains(t) {
                return Err("timestamp_pointer must be one of signed_pointers: an unsigned timestamp proves nothing".into());
            }
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
        for (i, pointer) in self.signed_pointers.iter().enumerate() {
            if i > 0 {
                signed.extend_from_slice(self.signed_separator.as_bytes());
            }
            let value = match text(&body, pointer) {
                Some(value) => value,
                None if self.missing_as_empty => "".into(),
                None => return Err(VerifyError::InvalidSignature),
            };
            signed.extend_from_slice(value.as_bytes());
        }
        if !mac::any_raw_matches(self.algorithm, keys, &signed, &candidates) {
            return Err(VerifyError::InvalidSignature);
        }
        let Some(pointer) = &self.timestamp_pointer else {
            return Ok(None);
        };
        let timestamp = text(&body, pointer).ok_or(VerifyError::InvalidSignature)?;
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
