//! `kind = "slack-url-verification"`: Slack's Events API sends
//! `{"type":"url_verification","challenge":"..."}` to the URL being
//! registered, signed like every event, and expects the challenge back
//! (<https://api.slack.com/events/url_verification>). It is answered only
//! after the signature verified, so nobody else can make hookline echo.

use std::borrow::Cow;

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlackUrlVerification {}

/// The two members that matter; the others are skipped unread.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    challenge: Option<Cow<'a, str>>,
}

impl HandshakeKind for SlackUrlVerification {
    fn name(&self) -> &'static str {
        "slack-url-verification"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::json(&serde_json::json!({
            "token": "Jhj5dZrVaK7ZwHHjRyZWjbDl",
            "challenge": challenge,
            "type": "url_verification",
        })))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        // Slash commands and interactions are form bodies, and events are
        // JSON of other types: neither is this handshake.
        let probe: Probe<'_> = serde_json::from_slice(&req.body).ok()?;
        if probe.kind.as_deref() != Some("url_verification") {
            return None;
        }
        Some(match probe.challenge.as_deref() {
            Some(c) => echoable(c).map(HandshakeAnswer::echo),
            None => Err(Rejection::MalformedPayload),
        })
    }
}
