//! `scheme = "body-token"`: a shared value inside each item of the JSON
//! body, compared in constant time; nothing is signed. Microsoft Graph
//! change notifications: every `/value/N/clientState` must equal the
//! `clientState` given when the subscription was created
//! (<https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#receive-notifications>).
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

    fn redact_body(&self, body: &[u8]) -> Option<Vec<u8>> {
        let items = raw_at(body, &self.items_pointer)?;
        let items: Vec<&RawValue> = serde_json::from_str(items.get()).ok()?;
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
