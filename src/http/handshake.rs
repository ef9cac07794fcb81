//! Handshakes on `/webhooks/{provider}[/{tenant}]`: the answers
//! [`verify_request`](crate::provider::verify_request) decides on (a `GET`
//! or `HEAD` challenge, a signed `POST` such as Slack's
//! `url_verification`), sent as the provider expects them, and the `405`
//! with `Allow` for a method no handshake of the definition answers.
//!
//! A handshake is never an event: it reaches neither the store nor a
//! handler.

use actix_web::http::StatusCode;
use actix_web::HttpResponse;

use super::problem::ApiError;
use crate::provider::{HandshakeAnswer, ProviderDef};

/// The HTTP answer to a handshake.
/// A secret it hands over was stored before (`webhook::serve`).
pub(super) fn respond(answer: HandshakeAnswer) -> Result<HttpResponse, ApiError> {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut res = HttpResponse::build(status);
    if let Some(content_type) = answer.content_type {
        res.content_type(content_type);
    }
    for (name, value) in answer.headers {
        res.insert_header((name, value));
    }
    Ok(res.body(answer.body))
}

/// `405` listing `POST` and the methods the definition's handshake answers.
pub(super) fn method_not_allowed(def: &ProviderDef) -> ApiError {
    ApiError::MethodNotAllowed {
        allow: def.methods(),
    }
}
