//! `scheme = "body-token"`: a shared value inside each item of the JSON
//! body, compared in constant time; nothing is signed. Microsoft Graph
//! change notifications: every `/value/N/clientState` must equal the
//! `clientState` given when the subscription was created
//! (<https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#receive-notifications>).
//! With an empty `items_pointer` the body itself is the one item: Cisco
//! Meraki's alerts carry `sharedSecret` at the top level
//! (<https://developer.cisco.com/meraki/webhooks/introduction/#shared-secret>).
//!
//! The token is the secret itself, so what keeps or shows a body apart
//! from its deliveries (captures, the console) shows it redacted
//! ([`Family::redact_body`]): every value of `field` in every item, found
//! in the raw bytes and replaced there, the rest of the body untouched.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
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

    fn redact_body(&self, body: &[u8]) -> Option<Vec<u8>> {
        let items: Vec<&RawValue> = if self.items_pointer.is_empty() {
            vec![serde_json::from_slice(body).ok()?]
        } else {
            let items = raw_at(body, &self.items_pointer)?;
            serde_json::from_str(items.get()).ok()?
        };
        let mut spans = Vec::new();
        for item in items {
            let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(item.get()) else {
                continue;
            };
            // Every copy of the member, should a body write it twice.
            spans.extend(
                members
                    .iter()
                    .filter(|(name, _)| *name == self.field)
                    .map(|(_, value)| span_of(body, value)),
            );
        }
        if spans.is_empty() {
            return None;
        }
        spans.sort_unstable();
        let marker = serde_json::to_vec(super::REDACTED).expect("a string");
        let mut out = Vec::with_capacity(body.len());
        let mut at = 0;
        for (start, end) in spans {
            out.extend_from_slice(&body[at..start]);
            out.extend_from_slice(&marker);
            at = end;
        }
        out.extend_from_slice(&body[at..]);
        Some(out)
    }
}

/// The raw JSON value at `pointer` in `body`, borrowed from it.
fn raw_at<'a>(body: &'a [u8], pointer: &str) -> Option<&'a RawValue> {
    let mut value: &RawValue = serde_json::from_slice(body).ok()?;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        value = match token.parse::<usize>() {
            Ok(i) if value.get().starts_with('[') => {
                *serde_json::from_str::<Vec<&RawValue>>(value.get())
                    .ok()?
                    .get(i)?
            }
            _ => {
                let Members(members) = serde_json::from_str(value.get()).ok()?;
                // The last copy, as `serde_json::Value` reads a member
                // written twice.
                members.into_iter().rev().find(|(n, _)| *n == token)?.1
            }
        };
    }
    Some(value)
}

/// Where `value`, a slice of `body`, starts and ends in it.
fn span_of(body: &[u8], value: &RawValue) -> (usize, usize) {
    let start = value.get().as_ptr() as usize - body.as_ptr() as usize;
    (start, start + value.get().len())
}

/// An object's members in order, every copy of a name kept.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct All<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for All<'a> {
            type Value = Members<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(All(std::marker::PhantomData))
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
    fn every_copy_of_the_token_is_redacted_in_place() {
        let redacted = |p: &BodyTokenParams, body: &str| {
            p.redact_body(body.as_bytes())
                .map(|b| String::from_utf8(b).unwrap())
        };
        assert_eq!(
            redacted(&whole_body(), r#"{"alertId":"1", "sharedSecret" : "foo"}"#).as_deref(),
            Some(r#"{"alertId":"1", "sharedSecret" : "[redacted]"}"#)
        );
        let graph = BodyTokenParams {
            items_pointer: "/value".into(),
            field: "clientState".into(),
        };
        assert_eq!(
            redacted(
                &graph,
                r#"{"value":[{"clientState":"s\u0041","x":1},{"clientState":"s","clientState":"t"}]}"#
            )
            .as_deref(),
            Some(
                r#"{"value":[{"clientState":"[redacted]","x":1},{"clientState":"[redacted]","clientState":"[redacted]"}]}"#
            )
        );
        assert_eq!(redacted(&graph, r#"{"value":[{"x":1}]}"#), None);
        assert_eq!(redacted(&graph, "not json"), None);
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
