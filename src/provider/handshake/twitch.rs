//! `kind = "twitch-callback-verification"`: Twitch EventSub sends a signed
//! POST with `Twitch-Eventsub-Message-Type: webhook_callback_verification`
//! and `{"challenge":C,...}`, and expects the raw `C` as `text/plain`
//! (<https://dev.twitch.tv/docs/eventsub/handling-webhook-events/#responding-to-a-challenge-request>).
//! Answered only after the signature verified.

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwitchCallbackVerification {}

#[derive(Deserialize)]
struct Probe {
    challenge: Option<String>,
}

impl HandshakeKind for TwitchCallbackVerification {
    fn name(&self) -> &'static str {
        "twitch-callback-verification"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let req = SampleRequest::json(&serde_json::json!({
            "challenge": challenge,
            "subscription": { "type": "channel.follow", "version": "2", "status": "webhook_callback_verification_pending" },
        }));
        Some(req.with_header(
            "Twitch-Eventsub-Message-Type",
            "webhook_callback_verification",
        ))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        let kind = req.headers.header("Twitch-Eventsub-Message-Type")?;
        if kind != "webhook_callback_verification" {
            return None;
        }
        let probe: Option<Probe> = serde_json::from_slice(&req.body).ok();
        Some(match probe.and_then(|p| p.challenge) {
            Some(c) => echoable(&c).map(HandshakeAnswer::echo),
            None => Err(Rejection::MalformedPayload),
        })
    }
}
