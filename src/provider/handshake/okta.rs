//! `kind = "okta-verification"`: when an event hook is verified, Okta sends
//! a `GET` with `X-Okta-Verification-Challenge: C` (and the configured
//! authorization header) and expects `{"verification": C}` as JSON
//! (<https://developer.okta.com/docs/concepts/event-hooks/#one-time-verification-request>).
//! The authorization header is Okta's proof, so the request is answered
//! only once it verified.

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OktaVerification {}

impl HandshakeKind for OktaVerification {
    fn name(&self) -> &'static str {
        "okta-verification"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn methods(&self) -> &'static [&'static str] {
        &["GET"]
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(
            SampleRequest::bare("GET", &[]).with_header("X-Okta-Verification-Challenge", challenge),
        )
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "GET" {
            return None;
        }
        let challenge = req.headers.header("X-Okta-Verification-Challenge")?;
        Some(
            echoable(challenge)
                .map(|c| HandshakeAnswer::json(&serde_json::json!({ "verification": c }))),
        )
    }
}
