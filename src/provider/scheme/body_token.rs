//! `scheme = "body-token"`: a shared value inside each item of the JSON
//! body, compared in constant time; nothing is signed. Microsoft Graph
//! change notifications: every `/value/N/clientState` must equal the
//! `clientState` given when the subscription was created
//! (<https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#receive-notifications>).
//! With an empty `items_pointer` the body itself is the one item: Cisco
//! Meraki's alerts carry `sharedSecret` at the top level
//! (<https://developer.cisco.com/meraki/webhooks/introduction/#shared-secret>).

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
    /// JSON pointer to the array of items (`/value`); empty: the body is
    /// the one item and must be an object.
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
        if !self.items_pointer.is_empty() && !self.items_pointer.starts_with('/') {
            return Err("items_pointer: must be empty or start with '/'".into());
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
        let whole;
        let items: &[Value] = if self.items_pointer.is_empty() {
            whole = [body];
            whole.as_slice()
        } else {
            body.pointer(&self.items_pointer)
                .and_then(Value::as_array)
                .filter(|items| !items.is_empty())
                .ok_or(VerifyError::MissingSignature)?
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn verify(
        params: &BodyTokenParams,
        body: &str,
        secret: &str,
    ) -> Result<Option<i64>, VerifyError> {
        let headers: Vec<(String, String)> = Vec::new();
        let req = UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &headers,
            body: bytes::Bytes::copy_from_slice(body.as_bytes()),
            received_at: 0,
        };
        let key = params.decode_secret(secret).unwrap();
        params.verify(&req, &[&key])
    }

    fn whole_body() -> BodyTokenParams {
        BodyTokenParams {
            items_pointer: String::new(),
            field: "sharedSecret".into(),
        }
    }

    #[test]
    fn an_empty_items_pointer_reads_the_token_from_the_body_itself() {
        let p = whole_body();
        assert!(p.check().is_ok());
        let body = r#"{"sharedSecret":"foo","alertId":"1"}"#;
        assert_eq!(verify(&p, body, "foo"), Ok(None));
        assert_eq!(verify(&p, body, "bar"), Err(VerifyError::InvalidSignature));
        assert_eq!(
            verify(&p, r#"{"alertId":"1"}"#, "foo"),
            Err(VerifyError::MissingSignature)
        );
        // An array body is not one item: its members are not searched.
        assert_eq!(
            verify(&p, r#"[{"sharedSecret":"foo"}]"#, "foo"),
            Err(VerifyError::MissingSignature)
        );
    }

    #[test]
    fn a_pointer_to_an_array_needs_the_token_in_every_item() {
        let p = BodyTokenParams {
            items_pointer: "/value".into(),
            field: "clientState".into(),
        };
        let both = r#"{"value":[{"clientState":"s"},{"clientState":"s"}]}"#;
        assert_eq!(verify(&p, both, "s"), Ok(None));
        let one_forged = r#"{"value":[{"clientState":"s"},{"clientState":"x"}]}"#;
        assert_eq!(
            verify(&p, one_forged, "s"),
            Err(VerifyError::InvalidSignature)
        );
        let bad = BodyTokenParams {
            items_pointer: "value".into(),
            field: "clientState".into(),
        };
        assert!(bad.check().is_err());
    }
}
