//! `kind = "smartsheet-verification"`: when a webhook is enabled, and again
//! every 100 callbacks while it lives, Smartsheet POSTs
//! `Smartsheet-Hook-Challenge: C` with the body
//! `{"challenge": C, "webhookId": N}` and expects `200` with `C` echoed in
//! the `Smartsheet-Hook-Response` header or as
//! `{"smartsheetHookResponse": C}`
//! (<https://developers.smartsheet.com/api/smartsheet/guides/webhooks/webhook-verification>).
//! Both are sent, so any Smartsheet client is satisfied.
//!
//! The request carries no proof of origin (no `Smartsheet-Hmac-SHA256`
//! is documented for it), so it is answered before any signature check;
//! what it reveals is the caller's own challenge, at most
//! [`super::MAX_CHALLENGE_LEN`] bytes without control characters.

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// The request header that carries the challenge.
pub(crate) const CHALLENGE_HEADER: &str = "Smartsheet-Hook-Challenge";
/// The answer header that echoes it.
const RESPONSE_HEADER: &str = "Smartsheet-Hook-Response";

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartsheetVerification {}

impl HandshakeKind for SmartsheetVerification {
    fn name(&self) -> &'static str {
        "smartsheet-verification"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let body =
            serde_json::json!({ "challenge": challenge, "webhookId": 2_674_017_481_058_180_u64 });
        Some(SampleRequest::json(&body).with_header(CHALLENGE_HEADER, challenge))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "POST" {
            return None;
        }
        let challenge = req.headers.header(CHALLENGE_HEADER)?;
        Some(echoable(challenge).map(|c| {
            let mut answer =
                HandshakeAnswer::json(&serde_json::json!({ "smartsheetHookResponse": c }));
            answer.headers = vec![(RESPONSE_HEADER.to_owned(), c.to_owned())];
            answer
        }))
    }
}
