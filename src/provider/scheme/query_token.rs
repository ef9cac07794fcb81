//! `scheme = "query-token"`: the tenant's secret is a query parameter of
//! the URL the subscriber registered (`?code=...`), compared in constant
//! time. Like `token`, it covers neither the body nor a time; it is what
//! Azure Event Grid offers a webhook that is not a Microsoft Entra app
//! (<https://learn.microsoft.com/azure/event-grid/security-authentication#using-client-secret-as-a-query-parameter>).
//!
//! The parameter is the secret: captures store the query with it
//! redacted ([`Family::secret_query_params`]).

use serde::Deserialize;

use super::token::matches_any;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "query-token"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryTokenParams {
    /// The query parameter that carries the token (`code`).
    pub param: String,
}

impl Family for QueryTokenParams {
    fn name(&self) -> &'static str {
        "query-token"
    }

    fn check(&self) -> Result<(), String> {
        if self.param.is_empty() {
            return Err("param: must not be empty".into());
        }
        Ok(())
    }

    /// The token is the secret's UTF-8 bytes, as the URL carries them
    /// once decoded.
    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let offered = form_urlencoded::parse(req.query.as_bytes())
            .find(|(k, _)| *k == *self.param)
            .map(|(_, v)| v)
            .ok_or(VerifyError::MissingSignature)?;
        matches_any(offered.as_bytes(), keys)
            .then_some(None)
            .ok_or(VerifyError::InvalidSignature)
    }

    /// Nothing goes in a header: the token is part of the URL the sender
    /// is given ([`Family::secret_query_params`] names it).
    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::SignedInUrl)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &[]
    }

    fn secret_query_params(&self) -> &[String] {
        std::slice::from_ref(&self.param)
    }
}
