//! A handshake that hands over the signing secret: a `POST` with the secret
//! and no signature, answered 200 once the secret is stored durably for the
//! provider and tenant; later events are verified against it.
//!
//! - Asana puts it in a header (`X-Hook-Secret`) and wants the same header
//!   back (`header`).
//! - Notion puts it in the JSON body (`{"verification_token": "secret_..."}`)
//!   and wants a 200 (`json_pointer`); the operator then pastes the token
//!   into Notion, so it must be read back from the store, never a log line
//!   (<https://developers.notion.com/reference/webhooks#step-2-verifying-the-subscription>).
//!
//! It carries no proof of origin, so it is accepted only while the tenant
//! has no key at all (configured or stored): a second one is refused (403)
//! until an operator re-arms the tenant (`hookline handshake reset`, or the
//! admin API), which forgets the stored secret.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::identity::raw_pointer;
use crate::provider::request::{Rejection, UntrustedRequest};

/// Where the secret is: exactly one of `header` or `json_pointer`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSecret {
    /// The header carrying the secret, echoed in the answer (Asana).
    #[serde(default)]
    header: Option<String>,
    /// RFC 6901 pointer to the secret, a string, in the JSON body (Notion's
    /// `/verification_token`); the answer is an empty 200.
    #[serde(default)]
    json_pointer: Option<String>,
}

impl HookSecret {
    /// The secret the request hands over, if it is this handshake.
    fn secret(&self, req: &UntrustedRequest<'_>) -> Option<String> {
        if let Some(name) = &self.header {
            return req.headers.header(name).map(str::to_owned);
        }
        let pointer = self.json_pointer.as_deref()?;
        let body: &RawValue = serde_json::from_slice(&req.body).ok()?;
        match serde_json::from_str(raw_pointer(body, pointer)?.get()).ok()? {
            serde_json::Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl HandshakeKind for HookSecret {
    fn name(&self) -> &'static str {
        "hook-secret"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn stores_secret(&self) -> bool {
        true
    }

    fn check(&self) -> Result<(), String> {
        match (&self.header, &self.json_pointer) {
            (Some(_), None) => Ok(()),
            (None, Some(p)) if p.starts_with('/') => Ok(()),
            (None, Some(p)) => Err(format!("json_pointer {p:?} must start with '/'")),
            _ => Err("set exactly one of header, json_pointer".into()),
        }
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        match (&self.header, &self.json_pointer) {
            (Some(name), _) => {
                Some(SampleRequest::json(&serde_json::json!({})).with_header(name, challenge))
            }
            (None, Some(pointer)) => {
                let mut value = serde_json::Value::Null;
                for part in pointer.trim_start_matches('/').split('/').rev() {
                    value = serde_json::json!({ part: value });
                }
                // The innermost member holds the secret.
                let body = serde_json::to_string(&value).ok()?.replacen(
                    "null",
                    &serde_json::to_string(challenge).ok()?,
                    1,
                );
                Some(SampleRequest {
                    body: body.into_bytes(),
                    ..SampleRequest::json(&serde_json::Value::Null)
                })
            }
            (None, None) => None,
        }
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "POST" {
            return None;
        }
        let secret = self.secret(req)?;
        Some((|| {
            let secret = echoable(&secret)?;
            if !tenant.keys.is_empty() {
                return Err(Rejection::HandshakeRefused);
            }
            let headers = match &self.header {
                Some(name) => vec![(name.clone(), secret.to_owned())],
                None => Vec::new(),
            };
            Ok(HandshakeAnswer {
                headers,
                store_secret: Some(secret.to_owned().into()),
                ..HandshakeAnswer::empty()
            })
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::HookSecret;
    use crate::provider::handshake::HandshakeKind;
    use crate::provider::request::UntrustedRequest;

    fn kind(toml: &str) -> HookSecret {
        toml::from_str(toml).unwrap()
    }

    #[test]
    fn exactly_one_source() {
        assert!(kind("header = \"X-Hook-Secret\"").check().is_ok());
        assert!(kind("json_pointer = \"/verification_token\"")
            .check()
            .is_ok());
        assert!(kind("").check().is_err());
        assert!(kind("json_pointer = \"verification_token\"")
            .check()
            .is_err());
        assert!(kind("header = \"X\"\njson_pointer = \"/v\"")
            .check()
            .is_err());
    }

    /// Only a string at the pointer hands a secret over; an ordinary event
    /// without it is not this handshake.
    #[test]
    fn the_secret_from_the_body() {
        let notion = kind("json_pointer = \"/verification_token\"");
        let headers: Vec<(String, String)> = Vec::new();
        let secret = |body: &'static [u8]| {
            notion.secret(&UntrustedRequest {
                method: "POST",
                url: "",
                query: "",
                headers: &headers,
                body: bytes::Bytes::from_static(body),
                received_at: 0,
            })
        };
        assert_eq!(
            secret(br#"{"verification_token":"secret_abc"}"#).as_deref(),
            Some("secret_abc")
        );
        assert_eq!(secret(br#"{"id":"evt","type":"page.created"}"#), None);
        assert_eq!(secret(br#"{"verification_token":7}"#), None);
        assert_eq!(secret(b"not json"), None);
    }
}
