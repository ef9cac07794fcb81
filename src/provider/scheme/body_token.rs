//! `scheme = "body-token"`: a shared value inside each item of the JSON
//! body, compared in constant time; nothing is signed. Microsoft Graph
//! change notifications: every `/value/N/clientState` must equal the
//! `clientState` given when the subscription was created
//! (<https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#receive-notifications>).

use serde::Deserialize;
use serde_json::Value;

use super::token::matches_any;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "body-token"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyTokenParams {
    /// JSON pointer to the array of items (`/value`).
    pub items_pointer: String,
    /// The member of each item that carries the token (`clientState`).
    pub field: String,
}

impl Family for BodyTokenParams {
    fn name(&self) -> &'static str {
        "body-token"
    }

    fn check(&self) -> Result<(), String> {
        if self.field.is_empty() {
            return Err("field: must not be empty".into());
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let body: Value =
            serde_json::from_slice(&req.body).map_err(|_| VerifyError::MissingSignature)?;
        let items = body
            .pointer(&self.items_pointer)
            .and_then(Value::as_array)
            .filter(|items| !items.is_empty())
            .ok_or(VerifyError::MissingSignature)?;
        // Every item must carry the token: one forged item in a batch of
        // genuine ones is a forged request.
        for item in items {
            let token = item
                .get(&self.field)
                .and_then(Value::as_str)
                .ok_or(VerifyError::MissingSignature)?;
            if !matches_any(token.as_bytes(), keys) {
                return Err(VerifyError::InvalidSignature);
            }
        }
        Ok(None)
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
