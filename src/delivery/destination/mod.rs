//! Where a handler's deliveries go. Each kind of destination is a file of
//! its own; this is the one `match` over them. A destination takes one
//! [`Outgoing`] message and answers with a [`Sent`]: delivered, retry (with
//! the reason) or dead (with the reason), the same verdicts an HTTP
//! handler's answers map to, so retries, backoff, dead letters, the
//! circuit breaker and `ack = "handlers"` treat every kind alike.

pub mod http;

use super::outgoing::Outgoing;
use super::policy::Verdict;
use crate::config::{Handler, TlsSettings};

/// One handler's destination, built once when the workers start and
/// reused by every attempt.
#[derive(Debug, Clone)]
pub enum Destination {
    Http(http::Http),
}

impl Destination {
    /// The destination `handler` names. Nothing is connected yet: a broker
    /// that is down must not keep hookline from starting.
    pub fn new(handler: &Handler, tls: &TlsSettings) -> Result<Destination, String> {
        Ok(Destination::Http(http::Http::new(handler, tls)?))
    }

    /// Send one attempt; never fails, the outcome is in the answer.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        match self {
            Destination::Http(d) => d.send(out).await,
        }
    }
}

/// How one attempt went.
#[derive(Debug, Clone)]
pub struct Sent {
    /// Delivered (acknowledged), retry, or dead (a retry cannot succeed).
    pub outcome: Verdict,
    /// The HTTP status, when an HTTP handler answered.
    pub status: Option<u16>,
    /// What the destination answered, kept with the attempt: at most
    /// [`http::MAX_RESPONSE_BYTES`] of an HTTP handler's body, or a
    /// broker's acknowledgement.
    pub response: String,
    /// Why the attempt failed (or what went wrong after the answer).
    pub error: Option<String>,
}

impl Sent {
    /// Stored by the destination; `response` says how it acknowledged.
    pub fn delivered(response: impl Into<String>) -> Sent {
        Sent {
            outcome: Verdict::Acknowledged,
            status: None,
            response: response.into(),
            error: None,
        }
    }

    /// Not stored; a later attempt may succeed.
    pub fn retry(reason: impl Into<String>) -> Sent {
        Sent {
            outcome: Verdict::Retry { retry_after: None },
            status: None,
            response: String::new(),
            error: Some(reason.into()),
        }
    }

    /// Not stored, and no attempt can succeed: dead-letter it.
    pub fn dead(reason: impl Into<String>) -> Sent {
        Sent {
            outcome: Verdict::Reject,
            status: None,
            response: String::new(),
            error: Some(reason.into()),
        }
    }

    /// Whether the attempt counts against the handler's circuit: no
    /// answer, or an answer that asks to retry (an HTTP 4xx is an answer).
    pub fn failed(&self) -> bool {
        matches!(self.outcome, Verdict::Retry { .. })
    }
}
