//! `kind = "zoom-url-validation"`: Zoom sends a signed
//! `{"event":"endpoint.url_validation","payload":{"plainToken":P}}` when
//! the endpoint is registered and every 72 hours, and expects
//! `{"plainToken":P,"encryptedToken":hex(HMAC-SHA256(secret token, P))}`
//! within 3 s
//! (<https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint>).
//! Answered only after the signature verified, with the tenant's first
//! secret (Zoom gives an app one secret token).

use hmac::{Hmac, Mac};
use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoomUrlValidation {}

#[derive(Deserialize)]
struct Probe {
    event: Option<String>,
    payload: Option<Payload>,
}

#[derive(Deserialize)]
struct Payload {
    #[serde(rename = "plainToken")]
    plain_token: Option<String>,
}

impl HandshakeKind for ZoomUrlValidation {
    fn name(&self) -> &'static str {
        "zoom-url-validation"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::json(&serde_json::json!({
            "payload": { "plainToken": challenge },
            "event_ts": 1_654_503_849_680_u64,
            "event": "endpoint.url_validation",
        })))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        let probe: Probe = serde_json::from_slice(&req.body).ok()?;
        if probe.event.as_deref() != Some("endpoint.url_validation") {
            return None;
        }
        let token = match probe.payload.and_then(|p| p.plain_token) {
            Some(t) => t,
            None => return Some(Err(Rejection::MalformedPayload)),
        };
        if let Err(e) = echoable(&token) {
            return Some(Err(e));
        }
        let key = tenant.keys.iter().find_map(|k| k.shared_bytes())?;
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        mac.update(token.as_bytes());
        let encrypted = hex::encode(mac.finalize().into_bytes());
        Some(Ok(HandshakeAnswer::json(&serde_json::json!({
            "plainToken": token,
            "encryptedToken": encrypted,
        }))))
    }
}
