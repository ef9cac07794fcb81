//! `scheme = "basic"`: HTTP Basic authentication (RFC 7617). The tenant's
//! secret is `user:password` as the provider's dashboard shows it, and the
//! request carries `Authorization: Basic base64(user:password)`, compared
//! in constant time. Like `token`, it covers neither the body nor a time.
//! Postmark, Pipedrive, Chargebee.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::Deserialize;

use super::token::matches_any;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "basic"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasicParams {
    /// Header that carries the credentials (default `Authorization`).
    #[serde(default = "authorization")]
    pub header: HeaderNames,
}

fn authorization() -> HeaderNames {
    HeaderNames(vec!["Authorization".to_owned()])
}

impl Family for BasicParams {
    fn name(&self) -> &'static str {
        "basic"
    }

    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        if !secret.contains(':') {
            return Err(KeyError::new("a Basic auth secret is user:password"));
        }
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let value = super::required(req, &self.header)?;
        // The scheme word is case-insensitive (RFC 7617 section 2).
        let (word, credentials) = value
            .trim()
            .split_once(' ')
            .ok_or(VerifyError::InvalidSignature)?;
        if !word.eq_ignore_ascii_case("basic") {
            return Err(VerifyError::InvalidSignature);
        }
        let decoded = STANDARD
            .decode(credentials.trim())
            .map_err(|_| VerifyError::InvalidSignature)?;
        matches_any(&decoded, keys)
            .then_some(None)
            .ok_or(VerifyError::InvalidSignature)
    }

    fn sign(&self, key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let credentials = key.shared_bytes().ok_or(SignError::WrongKey)?;
        Ok(vec![(
            self.header.primary().to_owned(),
            format!("Basic {}", STANDARD.encode(credentials)),
        )])
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }

    fn secret_headers(&self) -> &[String] {
        &self.header.0
    }
}
