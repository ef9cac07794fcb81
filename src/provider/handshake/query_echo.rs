//! `kind = "query-echo"`: the provider proves nothing and asks for a query
//! parameter back, as `text/plain` with `nosniff` so that no browser reads
//! the reflected text as a page.
//!
//! - Dropbox: `GET ?challenge=C`
//!   (<https://www.dropbox.com/developers/reference/webhooks>).
//! - Microsoft Graph: `POST ?validationToken=C`, answered with the
//!   URL-decoded token within 10 s
//!   (<https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#notificationurl-validation>).
//!
//! Nothing is signed, so an echo is all anyone can get: at most
//! [`super::MAX_CHALLENGE_LEN`] bytes, no control characters.

use serde::Deserialize;

use super::{
    echoable, query_param, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage,
};
use crate::provider::request::{Rejection, UntrustedRequest};

/// Which request carries the parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryEcho {
    /// `GET` (Dropbox) or `POST` (Microsoft Graph).
    pub method: EchoMethod,
    /// The query parameter to echo (`challenge`, `validationToken`).
    pub param: String,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub enum EchoMethod {
    Get,
    Post,
}

impl HandshakeKind for QueryEcho {
    fn name(&self) -> &'static str {
        "query-echo"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn methods(&self) -> &'static [&'static str] {
        match self.method {
            EchoMethod::Get => &["GET"],
            EchoMethod::Post => &[],
        }
    }

    fn check(&self) -> Result<(), String> {
        if self.param.is_empty() {
            return Err("param: must not be empty".into());
        }
        Ok(())
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let method = match self.method {
            EchoMethod::Get => "GET",
            EchoMethod::Post => "POST",
        };
        Some(SampleRequest::bare(method, &[(&self.param, challenge)]))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        let method = match self.method {
            EchoMethod::Get => "GET",
            EchoMethod::Post => "POST",
        };
        if req.method != method {
            return None;
        }
        let challenge = query_param(req.query, &self.param)?;
        Some(echoable(&challenge).map(HandshakeAnswer::echo))
    }
}
