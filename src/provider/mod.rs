//! Providers: definitions (data), schemes (code), and the one function that
//! turns an untrusted request into a [`VerifiedWebhook`].

mod definition;
mod scheme;

use std::sync::Arc;

use bytes::Bytes;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

pub use definition::{
    Definitions, Encoding, FieldSource, HeaderNames, ProviderDef, SchemeKind, SecretEncoding,
};
pub use scheme::{
    sign, verify as verify_signature, HeaderLookup, Request, SignInput, SigningKey, Template,
    VerifyError,
};

use crate::config::{Provider, Tenant};

/// Longest event ID accepted; longer ones are malformed.
pub const MAX_EVENT_ID_LEN: usize = 255;

/// A request whose signature checked out and whose event ID was found.
///
/// The fields are private and the only constructor is [`verify_request`], so
/// nothing that has not been verified can reach the dedup and delivery code.
#[derive(Debug, Clone)]
pub struct VerifiedWebhook {
    provider: Arc<Provider>,
    tenant: String,
    event_id: String,
    event_type: String,
    body: Bytes,
    body_sha256: [u8; 32],
    content_type: Option<String>,
}

impl VerifiedWebhook {
    pub fn provider(&self) -> &Arc<Provider> {
        &self.provider
    }
    pub fn provider_name(&self) -> &str {
        &self.provider.name
    }
    pub fn tenant(&self) -> &str {
        &self.tenant
    }
    pub fn event_id(&self) -> &str {
        &self.event_id
    }
    pub fn event_type(&self) -> &str {
        &self.event_type
    }
    pub fn body(&self) -> &Bytes {
        &self.body
    }
    pub fn body_sha256(&self) -> &[u8; 32] {
        &self.body_sha256
    }
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }
    /// Whether the provider's `critical` globs select this event type.
    pub fn is_critical(&self) -> bool {
        self.provider.is_critical(&self.event_type)
    }
}

/// Why a request was rejected before reaching any state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error(transparent)]
    Verify(#[from] VerifyError),
    #[error("the event ID is absent")]
    MissingEventId,
    #[error("the body or event ID could not be parsed")]
    MalformedPayload,
}

/// Verify the signature, then extract the event ID and type.
pub fn verify_request<H: HeaderLookup + ?Sized>(
    provider: &Arc<Provider>,
    tenant: &Tenant,
    headers: &H,
    body: Bytes,
    url: &str,
    content_type: Option<String>,
    now_unix: i64,
) -> Result<VerifiedWebhook, Rejection> {
    let def = &provider.def;
    scheme::verify(
        def,
        &tenant.keys,
        &Request {
            headers,
            body: &body,
            url,
        },
        now_unix,
        provider.tolerance,
    )?;
    // Validate the body as JSON only if a pointer needs it, and only once.
    // It stays raw: extraction walks just the pointer's path, so a large
    // body is never built into a tree of allocated values.
    let needs_json = def.event_id.json_pointer.is_some()
        || def
            .event_type
            .as_ref()
            .is_some_and(|t| t.json_pointer.is_some());
    let json = if needs_json {
        Some(serde_json::from_slice::<&RawValue>(&body).map_err(|_| Rejection::MalformedPayload)?)
    } else {
        None
    };
    let event_id = match extract(&def.event_id, headers, json)? {
        Some(id) if !id.is_empty() => id,
        _ => return Err(Rejection::MissingEventId),
    };
    if event_id.len() > MAX_EVENT_ID_LEN || event_id.chars().any(char::is_control) {
        return Err(Rejection::MalformedPayload);
    }
    let event_type = match &def.event_type {
        Some(src) => extract(src, headers, json)?.unwrap_or_default(),
        None => String::new(),
    };
    // Control characters (NUL above all, which PostgreSQL text cannot
    // hold) would make the request fail on every retry: refuse it now.
    if event_type.chars().any(char::is_control) {
        return Err(Rejection::MalformedPayload);
    }
    let body_sha256 = Sha256::digest(&body).into();
    Ok(VerifiedWebhook {
        provider: provider.clone(),
        tenant: tenant.name.to_string(),
        event_id,
        event_type,
        body,
        body_sha256,
        content_type,
    })
}

/// Everything a sender of this kind puts on a request for `body`: content
/// type, the event ID and type headers (where the definition reads them from
/// headers), and the signature headers. Used by `hookline sign` and tests.
pub fn sender_headers(
    def: &ProviderDef,
    key: &SigningKey,
    body: &[u8],
    id: &str,
    event_type: Option<&str>,
    timestamp: i64,
    url: &str,
) -> Vec<(String, String)> {
    let mut headers = vec![("Content-Type".to_owned(), def.content_type.clone())];
    if let Some(names) = &def.event_id.header {
        // Standard Webhooks' id header is also the signed id: sign() adds it.
        if def.signature.id_header.as_ref() != Some(names) {
            headers.push((names.primary().to_owned(), id.to_owned()));
        }
    }
    if let (Some(names), Some(t)) = (
        def.event_type.as_ref().and_then(|s| s.header.as_ref()),
        event_type,
    ) {
        headers.push((names.primary().to_owned(), t.to_owned()));
    }
    headers.extend(sign(
        def,
        key,
        &SignInput {
            body,
            id,
            timestamp,
            url,
        },
    ));
    headers
}

/// A header value, or a JSON string/number at a pointer. `Ok(None)` when
/// absent; an object or array where a scalar belongs is malformed.
fn extract<H: HeaderLookup + ?Sized>(
    src: &FieldSource,
    headers: &H,
    json: Option<&RawValue>,
) -> Result<Option<String>, Rejection> {
    if let Some(names) = &src.header {
        if let Some(v) = headers.first_of(names) {
            return Ok(Some(v.trim().to_owned()));
        }
    }
    if let (Some(pointer), Some(json)) = (&src.json_pointer, json) {
        let Some(raw) = raw_pointer(json, pointer) else {
            return Ok(None);
        };
        return match serde_json::from_str(raw.get()) {
            Ok(serde_json::Value::Null) => Ok(None),
            Ok(serde_json::Value::String(s)) => Ok(Some(s)),
            Ok(serde_json::Value::Number(n)) => Ok(Some(n.to_string())),
            _ => Err(Rejection::MalformedPayload),
        };
    }
    Ok(None)
}

/// The raw value at an RFC 6901 pointer, or `None` if the path is absent.
/// Each step deserializes one level into borrowed raw members; values off
/// the path are skipped, not built.
fn raw_pointer<'a>(root: &'a RawValue, pointer: &str) -> Option<&'a RawValue> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut at = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token: std::borrow::Cow<'_, str> = if token.contains('~') {
            token.replace("~1", "/").replace("~0", "~").into()
        } else {
            token.into()
        };
        at = match at.get().as_bytes().first()? {
            b'{' => {
                let members: std::collections::HashMap<String, &RawValue> =
                    serde_json::from_str(at.get()).ok()?;
                members.get(token.as_ref()).copied()?
            }
            b'[' => {
                let items: Vec<&RawValue> = serde_json::from_str(at.get()).ok()?;
                items.get(token.parse::<usize>().ok()?).copied()?
            }
            _ => return None,
        };
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::raw_pointer;
    use serde_json::value::RawValue;

    /// The walk agrees with serde_json's own `Value::pointer`.
    #[test]
    fn raw_pointer_matches_value_pointer() {
        let doc = r#"{"id":"evt_1","n":7,"event":{"type":"app_mention","a/b":1,"m~n":2},
                     "list":[{"x":true},"two"],"nil":null,"esc\u0041ped":"yes","dup":1,"dup":2}"#;
        let raw: &RawValue = serde_json::from_str(doc).unwrap();
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        for p in [
            "",
            "/id",
            "/n",
            "/event/type",
            "/event/a~1b",
            "/event/m~0n",
            "/list/0/x",
            "/list/1",
            "/list/2",
            "/list/x",
            "/nil",
            "/escAped",
            "/dup",
            "/missing",
            "/id/deeper",
            "id",
        ] {
            let ours = raw_pointer(raw, p)
                .map(|r| serde_json::from_str::<serde_json::Value>(r.get()).unwrap());
            assert_eq!(ours.as_ref(), value.pointer(p), "{p:?}");
        }
    }
}
