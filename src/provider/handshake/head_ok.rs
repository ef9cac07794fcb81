//! `kind = "head-ok"`: the provider checks the URL with a `HEAD` before it
//! creates the webhook and needs a 200 (Trello:
//! <https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/#creating-a-webhook>).
//! The request carries nothing, and the answer reveals nothing.

use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadOk {}

impl HandshakeKind for HeadOk {
    fn name(&self) -> &'static str {
        "head-ok"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn methods(&self) -> &'static [&'static str] {
        &["HEAD"]
    }

    fn sample(&self, _challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::bare("HEAD", &[]))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        (req.method == "HEAD").then(|| Ok(HandshakeAnswer::empty()))
    }
}
