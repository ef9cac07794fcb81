//! `kind = "json-echo"`: a signed JSON request of one type, answered with
//! one of its members echoed in a JSON object. Tebex sends
//! `{"id": ..., "type": "validation.webhook", ...}`, signed like every
//! webhook, and sends no other webhook to the endpoint until the answer is
//! a 200 "containing a JSON object that has an `id` property representing
//! the validation webhook's ID"
//! (<https://docs.tebex.io/developers/webhooks/overview>).
//!
//! With `hmac_sha256 = true` the answer holds the lower-case hex
//! HMAC-SHA256 of the value, keyed with the tenant's first secret, instead
//! of the value: Smartcar's signed `VERIFY` event (`data.challenge`) must be
//! answered with `{"challenge": hex(HMAC-SHA256(AMT, challenge))}` before a
//! webhook is activated
//! (<https://smartcar.com/docs/integrations/webhooks/callback-verification>).
//!
//! It is answered only after the signature verified, so nobody else can
//! make hookline echo, nor obtain an HMAC of a text of their choosing (which
//! for Smartcar would be a signature); the value is the caller's own, at
//! most [`super::MAX_CHALLENGE_LEN`] bytes without control characters.

use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::Sha256;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::identity::raw_pointer;
use crate::provider::request::{Rejection, UntrustedRequest};

/// Which request is the handshake, and what its answer echoes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonEcho {
    /// RFC 6901 pointer to the request's type, a string (Tebex: `/type`).
    pub type_pointer: String,
    /// The type that makes the request this handshake (Tebex:
    /// `validation.webhook`); any other is an event.
    pub type_value: String,
    /// Pointer to the string echoed (Tebex: `/id`).
    pub echo_pointer: String,
    /// The member of the answer's JSON object that carries it (Tebex: `id`).
    pub answer_member: String,
    /// Answer with the hex HMAC-SHA256 of the value under the tenant's
    /// first secret instead of the value (Smartcar). Default `false`.
    #[serde(default)]
    pub hmac_sha256: bool,
}

/// The value at `pointer` in a JSON `body`, if it has one: `Ok` when it
/// is a string.
fn string_at(body: &[u8], pointer: &str) -> Option<Result<String, Rejection>> {
    let root: &RawValue = serde_json::from_slice(body).ok()?;
    let raw = raw_pointer(root, pointer)?;
    Some(serde_json::from_str::<String>(raw.get()).map_err(|_| Rejection::MalformedPayload))
}

impl HandshakeKind for JsonEcho {
    fn name(&self) -> &'static str {
        "json-echo"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn check(&self) -> Result<(), String> {
        for (field, pointer) in [
            ("type_pointer", &self.type_pointer),
            ("echo_pointer", &self.echo_pointer),
        ] {
            if !pointer.starts_with('/') {
                return Err(format!("{field}: a JSON pointer starts with '/'"));
            }
        }
        if self.type_value.is_empty() || self.answer_member.is_empty() {
            return Err("type_value and answer_member: must not be empty".into());
        }
        Ok(())
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let mut body = serde_json::Value::Null;
        for (pointer, value) in [
            (&self.type_pointer, &self.type_value),
            (&self.echo_pointer, &challenge.to_owned()),
        ] {
            set(&mut body, pointer, value);
        }
        Some(SampleRequest::json(&body))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        // A body that is no JSON, or of another type, is an event.
        match string_at(&req.body, &self.type_pointer)? {
            Ok(kind) if kind == self.type_value => {}
            _ => return None,
        }
        let value = match string_at(&req.body, &self.echo_pointer) {
            Some(Ok(value)) => value,
            _ => return Some(Err(Rejection::MalformedPayload)),
        };
        if let Err(e) = echoable(&value) {
            return Some(Err(e));
        }
        let answer = if self.hmac_sha256 {
            let key = tenant.keys.iter().find_map(|k| k.shared_bytes())?;
            let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
            mac.update(value.as_bytes());
            hex::encode(mac.finalize().into_bytes())
        } else {
            value
        };
        Some(Ok(HandshakeAnswer::json(
            &serde_json::json!({ self.answer_member.as_str(): answer }),
        )))
    }
}

/// Put `value` at `pointer` in `doc`, making objects on the way (for the
/// sample request only: pointers of the form `/a/b`).
fn set(doc: &mut serde_json::Value, pointer: &str, value: &str) {
    let mut at = doc;
    for token in pointer.split('/').skip(1) {
        if !at.is_object() {
            *at = serde_json::json!({});
        }
        at = at
            .as_object_mut()
            .expect("made an object")
            .entry(token.replace("~1", "/").replace("~0", "~"))
            .or_insert(serde_json::Value::Null);
    }
    *at = serde_json::Value::String(value.to_owned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fetch_url::FetchHosts;

    fn tebex() -> JsonEcho {
        JsonEcho {
            type_pointer: "/type".into(),
            type_value: "validation.webhook".into(),
            echo_pointer: "/id".into(),
            answer_member: "id".into(),
            hmac_sha256: false,
        }
    }

    fn answer(body: &'static [u8]) -> Option<Result<Vec<u8>, Rejection>> {
        let headers: &[(String, String)] = &[];
        let req = UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &headers,
            body: bytes::Bytes::from_static(body),
            received_at: 0,
        };
        let hosts = FetchHosts::default();
        let creds = Credentials {
            keys: &[],
            verify_token: None,
            fetch_hosts: &hosts,
        };
        tebex()
            .answer(&req, &creds)
            .map(|r| r.map(|a| a.body.to_vec()))
    }

    #[test]
    fn only_the_named_type_is_the_handshake() {
        let got = answer(br#"{"id":"2c11","type":"validation.webhook","subject":{}}"#);
        assert_eq!(got, Some(Ok(br#"{"id":"2c11"}"#.to_vec())));
        assert_eq!(answer(br#"{"id":"2c11","type":"payment.completed"}"#), None);
        assert_eq!(answer(b"not json"), None);
        assert_eq!(
            answer(br#"{"type":"validation.webhook"}"#),
            Some(Err(Rejection::MalformedPayload))
        );
        assert_eq!(
            answer(br#"{"id":7,"type":"validation.webhook"}"#),
            Some(Err(Rejection::MalformedPayload))
        );
    }

    #[test]
    fn the_sample_is_the_handshake() {
        let sample = tebex().sample("abc", None).unwrap();
        let body: serde_json::Value = serde_json::from_slice(&sample.body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"type": "validation.webhook", "id": "abc"})
        );
    }
}
