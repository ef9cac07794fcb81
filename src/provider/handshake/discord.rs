//! `kind = "discord-ping"`: Discord checks an endpoint with a signed PING
//! before it sends anything else, and again from time to time, with
//! deliberately bad signatures among them (which must get 401). Answered
//! only after the signature verified.
//!
//! - Webhook events URL: `{"type":0}` is the PING, answered `204` with no
//!   body (<https://discord.com/developers/docs/events/webhook-events#setting-up-an-endpoint>).
//!   Events are `{"type":1,"event":{...}}`.
//! - Interactions endpoint URL: `{"type":1}` with no `event` is the PING,
//!   answered `{"type":1}` as JSON
//!   (<https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-acknowledging-ping-requests>).

use bytes::Bytes;
use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscordPing {}

/// The members that tell a PING from an event; the others are skipped.
#[derive(Deserialize)]
struct Probe {
    #[serde(rename = "type")]
    kind: Option<u64>,
    #[serde(default)]
    event: Option<serde::de::IgnoredAny>,
}

impl HandshakeKind for DiscordPing {
    fn name(&self) -> &'static str {
        "discord-ping"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn sample(&self, _challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::json(&serde_json::json!({ "type": 1 })))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        let probe: Probe = serde_json::from_slice(&req.body).ok()?;
        let (status, content_type, body) = match (probe.kind, probe.event.is_some()) {
            (Some(0), _) => (204, None, Bytes::new()),
            (Some(1), false) => (
                200,
                Some("application/json"),
                Bytes::from_static(br#"{"type":1}"#),
            ),
            _ => return None,
        };
        Some(Ok(HandshakeAnswer {
            status,
            content_type,
            body,
            headers: Vec::new(),
            store_secret: None,
            confirm: None,
        }))
    }
}
