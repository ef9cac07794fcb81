//! `scheme = "token"`: the tenant's secret is sent verbatim in a header and
//! compared in constant time. It covers neither the body nor a time: the
//! weakest scheme, for providers that offer nothing else. GitLab.

use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "token"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenParams {
    /// Header that carries the token.
    pub header: HeaderNames,
}

/// Whether `offered` equals any key's bytes. Both sides are hashed so the
/// comparison is constant-time and does not depend on the secret's length;
/// every key is tried without stopping at a match.
pub(crate) fn matches_any(offered: &[u8], keys: &[&Key]) -> bool {
    let offered = Sha256::digest(offered);
    let matched = keys
        .iter()
        .filter_map(|k| k.shared_bytes())
        .fold(subtle::Choice::from(0), |acc, k| {
            acc | Sha256::digest(k).ct_eq(&offered)
        });
    bool::from(matched)
}

impl Family for TokenParams {
    fn name(&self) -> &'static str {
        "token"
    }

    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// The token is the secret's UTF-8 bytes, as the provider sends them.
    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let offered = super::required(req, &self.header)?;
        matches_any(offered.as_bytes(), keys)
            .then_some(None)
            .ok_or(VerifyError::InvalidSignature)
    }

    fn sign(&self, key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let token = key.shared_bytes().ok_or(SignError::WrongKey)?;
        Ok(vec![(
            self.header.primary().to_owned(),
            String::from_utf8_lossy(token).into_owned(),
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
