//! [`ApiError`]: every answer other than success, on every route, and the
//! one place it becomes HTTP: an RFC 9457 `application/problem+json`
//! document whose `title` is the status line's reason phrase, plus
//! `Retry-After` when a retry can succeed, `Allow` for a 405 and
//! `WWW-Authenticate` for a 401.
//!
//! The rule the variants encode: 2xx only once the event is recorded,
//! 409/429/503 with `Retry-After` when a retry can succeed, another 4xx only
//! when it never can (providers treat a 4xx as final).

use std::time::Duration;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

use crate::provider::Rejection;
use crate::store::StoreError;

/// How long a provider is told to wait when a store is unavailable.
const STORE_RETRY_AFTER: Duration = Duration::from_secs(5);

/// Every answer other than success, with its status and `code`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no provider named {0:?} is configured")]
    UnknownProvider(String),
    #[error("provider {provider:?} has no tenant named {tenant:?}")]
    UnknownTenant { provider: String, tenant: String },
    /// No such route, record or delivery.
    #[error("{0}")]
    NotFound(String),
    /// An operator asked for what is done already (a held event released
    /// twice).
    #[error("{0}")]
    AlreadyDone(String),
    /// The route exists, the method does not; `allow` lists those that do.
    #[error("this route accepts {}", allow.join(", "))]
    MethodNotAllowed { allow: Vec<&'static str> },
    #[error("a valid bearer token is required")]
    Unauthorized,
    /// Over the provider+tenant's `rate_limit`; answered before the body is
    /// read.
    #[error("too many requests for this provider and tenant; retry later")]
    RateLimited { retry_after: Duration },
    #[error("the body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// The body did not arrive within `server.body_timeout`; the
    /// connection is closed.
    #[error("the body was not received within {0:?}")]
    BodyTimeout(Duration),
    /// Bodies held across all requests reached `server.max_buffered_bytes`;
    /// answered before this request's body is read.
    #[error("the receiver holds as many request bodies as it may; retry later")]
    BufferFull { retry_after: Duration },
    #[error("the request body could not be read")]
    BodyRead,
    #[error("{0}")]
    Rejected(Rejection),
    /// An operator's input (admin API) that no record can match: a control
    /// character, an overlong value, a malformed number or query.
    #[error("{field}: {reason}")]
    InvalidInput { field: String, reason: String },
    #[error("this event is being processed by another request")]
    InProgress { retry_after: Duration },
    #[error("this event ID was already received with a different body")]
    Conflict,
    #[error("a store is unavailable; retry later")]
    StoreUnavailable(#[source] StoreError),
    /// The store cannot hold the request's data (PostgreSQL refuses a NUL
    /// character in text): a retry sends the same bytes, so it is final.
    #[error("the event holds data that cannot be stored (such as a NUL character)")]
    Unstorable(#[source] StoreError),
    #[error("not every handler acknowledged the event in time; retry later")]
    NotAcknowledged,
    /// `ack = "handlers"`: a handler's delivery is in the dead letters, so
    /// waiting could not help; answered at once, the same on every retry
    /// until an operator replays it.
    #[error("the delivery to handler {handler:?} is in the dead letters; retry once an operator has replayed it")]
    DeadLettered { handler: String },
    /// A URL the request named (a signing certificate, SNS's
    /// `SubscribeURL`) could not be fetched; the log says why. The
    /// provider retries.
    #[error("a certificate or confirmation URL could not be fetched; retry later")]
    FetchFailed,
}

impl ApiError {
    /// The problem `code`, also the `outcome` label of the request metrics.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::UnknownProvider(_) => "unknown_provider",
            ApiError::UnknownTenant { .. } => "unknown_tenant",
            ApiError::NotFound(_) => "not_found",
            ApiError::AlreadyDone(_) => "already_done",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Unauthorized => "unauthorized",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::BodyTimeout(_) => "body_timeout",
            ApiError::BufferFull { .. } => "buffer_full",
            ApiError::BodyRead | ApiError::Unstorable(_) => "malformed_payload",
            ApiError::Rejected(r) => r.code(),
            ApiError::InvalidInput { .. } => "invalid_input",
            ApiError::InProgress { .. } => "in_progress",
            ApiError::Conflict => "event_id_conflict",
            ApiError::StoreUnavailable(_) => "store_unavailable",
            ApiError::NotAcknowledged => "not_acknowledged",
            ApiError::DeadLettered { .. } => "dead_lettered",
            ApiError::FetchFailed => "fetch_failed",
        }
    }

    /// An operator's input refused before any store sees it.
    pub fn invalid(field: impl Into<String>, reason: impl ToString) -> Self {
        ApiError::InvalidInput {
            field: field.into(),
            reason: reason.to_string(),
        }
    }

    /// A store error on an operator's lookup: input the store refuses is
    /// the caller's (400), anything else an outage (503).
    pub fn lookup(e: StoreError) -> Self {
        if e.is_input() {
            ApiError::invalid("request", "holds a value no record can have")
        } else {
            ApiError::StoreUnavailable(e)
        }
    }

    /// The store failure to log and count, if this answer is one. Input
    /// errors never are.
    pub fn store_failure(&self) -> Option<&StoreError> {
        match self {
            ApiError::StoreUnavailable(e) => Some(e),
            _ => None,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::InProgress { retry_after }
            | ApiError::RateLimited { retry_after }
            | ApiError::BufferFull { retry_after } => Some(*retry_after),
            ApiError::StoreUnavailable(_)
            | ApiError::NotAcknowledged
            | ApiError::DeadLettered { .. }
            | ApiError::FetchFailed => Some(STORE_RETRY_AFTER),
            _ => None,
        }
    }
}

impl From<Rejection> for ApiError {
    fn from(r: Rejection) -> Self {
        ApiError::Rejected(r)
    }
}

/// Input the store refuses is the request's fault (400, final); anything
/// else is the store's (503, retried). Logged once, where the request is
/// answered.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        if e.is_input() {
            ApiError::Unstorable(e)
        } else {
            ApiError::StoreUnavailable(e)
        }
    }
}

/// The reason phrase of `status` as RFC 9110 names it, used both on the
/// status line and as the problem's `title`, so that the two always agree
/// (the `http` crate still says "Unprocessable Entity" and "Payload Too
/// Large", the names RFC 9110 replaced).
pub fn reason_phrase(status: StatusCode) -> &'static str {
    match status.as_u16() {
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        _ => status.canonical_reason().unwrap_or("Error"),
    }
}

/// An RFC 9457 problem document.
#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'a str,
    status: u16,
    code: &'a str,
    detail: String,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::UnknownProvider(_)
            | ApiError::UnknownTenant { .. }
            | ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::BodyRead | ApiError::Unstorable(_) | ApiError::InvalidInput { .. } => {
                StatusCode::BAD_REQUEST
            }
            ApiError::Rejected(r) => {
                StatusCode::from_u16(r.status()).unwrap_or(StatusCode::BAD_REQUEST)
            }
            ApiError::InProgress { .. } | ApiError::AlreadyDone(_) => StatusCode::CONFLICT,
            ApiError::Conflict => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::BufferFull { .. }
            | ApiError::StoreUnavailable(_)
            | ApiError::NotAcknowledged
            | ApiError::DeadLettered { .. }
            | ApiError::FetchFailed => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let title = reason_phrase(status);
        let mut res = HttpResponse::build(status);
        res.reason(title).content_type("application/problem+json");
        if let Some(after) = self.retry_after() {
            // Whole seconds, rounded up, at least one.
            let secs = after.as_millis().div_ceil(1000).max(1);
            res.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        match self {
            ApiError::MethodNotAllowed { allow } => {
                res.insert_header((header::ALLOW, allow.join(", ")));
            }
            ApiError::Unauthorized => {
                res.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            // The body never came whole: whatever the client still sends
            // must not be read as a next request, and the connection must
            // not stay pinned. Past the buffer cap likewise, since the body
            // was left unread.
            ApiError::BodyTimeout(_) | ApiError::BufferFull { .. } => {
                res.force_close();
            }
            _ => {}
        }
        res.json(Problem {
            kind: format!("urn:hookline:problem:{}", self.code()),
            title,
            status: status.as_u16(),
            code: self.code(),
            detail: self.to_string(),
        })
    }
}
