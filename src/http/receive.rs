//! A verified event (or batch) POSTed to `/webhooks/{provider}[/{tenant}]`:
//! decided by [`crate::ingest`], captured once it is decided, and answered
//! `200` only once it is recorded (`accepted`, `held`, or `duplicate` with
//! `Webhook-Duplicate: true`). What ingest refuses maps to 409, 422 or 503
//! here.

use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;

use super::problem::ApiError;
use super::AppState;
use crate::ingest::{BatchOutcome, Decided, Refusal, ReleaseError, Status};
use crate::provider::VerifiedWebhook;
use crate::telemetry::TraceHeaders;

/// What a verified request became.
pub(super) enum Received {
    One(Decided),
    Batch {
        provider: String,
        tenant: String,
        status: Status,
        outcome: BatchOutcome,
    },
}

#[derive(Serialize)]
struct OneBody<'a> {
    status: &'a str,
    provider: &'a str,
    tenant: &'a str,
    event_id: &'a str,
}

#[derive(Serialize)]
struct BatchBody<'a> {
    status: &'a str,
    provider: &'a str,
    tenant: &'a str,
    events: Vec<BatchItem<'a>>,
}

#[derive(Serialize)]
struct BatchItem<'a> {
    event_id: &'a str,
    status: &'a str,
}

impl Received {
    /// The answer's `status`, and the requests metric's `outcome`.
    pub fn status(&self) -> Status {
        match self {
            Received::One(d) => d.status,
            Received::Batch { status, .. } => *status,
        }
    }

    /// The `200`: the JSON status body, or the provider's `ack_body` as
    /// `text/plain` (Alipay resends unless the body is exactly `success`).
    pub fn response(&self, ack_body: Option<&str>) -> HttpResponse {
        let status = self.status();
        let mut res = HttpResponse::Ok();
        if status == Status::Duplicate {
            res.insert_header(("Webhook-Duplicate", "true"));
        }
        if let Some(ack) = ack_body {
            return res
                .content_type("text/plain; charset=utf-8")
                .body(ack.to_owned());
        }
        match self {
            Received::One(d) => res.json(OneBody {
                status: status.as_str(),
                provider: d.ev.provider_name(),
                tenant: d.ev.tenant(),
                event_id: d.ev.event_id(),
            }),
            Received::Batch {
                provider,
                tenant,
                outcome,
                ..
            } => res.json(BatchBody {
                status: status.as_str(),
                provider,
                tenant,
                events: outcome
                    .items
                    .iter()
                    .map(|i| BatchItem {
                        event_id: &i.event_id,
                        status: i.result.as_ref().map_or("refused", |s| s.as_str()),
                    })
                    .collect(),
            }),
        }
    }
}

/// Decide one event, then capture the request if it was decided.
pub(super) async fn one(
    req: &HttpRequest,
    state: &AppState,
    ev: VerifiedWebhook,
) -> Result<Received, ApiError> {
    // Known now, whatever the answer: its log line and span name them.
    let span = tracing::Span::current();
    span.record("event_id", ev.event_id().as_str());
    span.record("event_type", ev.event_type().as_str());
    span.record("body_bytes", ev.body().len());
    let ev = ev.with_trace_parent(TraceHeaders::of(&span).map(|h| h.traceparent));
    let body = ev.body().clone();
    let capture = state.capture.as_ref().map(|_| ev.clone());
    let result = state.ingest.event(ev).await;
    if let (Some(capture), Some(ev)) = (&state.capture, capture) {
        match capturing(result.as_ref().map(|d| d.status)) {
            Capturing::Always => capture.write(req, &ev, &body).await,
            Capturing::First => capture.write_first(req, &ev, &body).await,
            Capturing::Never => {}
        }
    }
    result.map(Received::One).map_err(ApiError::from)
}

/// Decide every item of a batch, then capture the request once if any
/// item was decided.
pub(super) async fn batch(
    req: &HttpRequest,
    state: &AppState,
    provider: &str,
    tenant: &str,
    body: &[u8],
    events: Vec<VerifiedWebhook>,
) -> Result<Received, ApiError> {
    let span = tracing::Span::current();
    span.record("event_id", format!("batch of {}", events.len()));
    span.record("body_bytes", body.len());
    let traceparent = TraceHeaders::of(&span).map(|h| h.traceparent);
    let events: Vec<_> = events
        .into_iter()
        .map(|ev| ev.with_trace_parent(traceparent.clone()))
        .collect();
    let first = state.capture.as_ref().and_then(|_| events.first().cloned());
    let outcome = state.ingest.batch(events).await;
    if let (Some(capture), Some(first)) = (&state.capture, first) {
        let decided = outcome
            .items
            .iter()
            .map(|i| capturing(i.result.as_ref().map(|s| *s)))
            .max();
        match decided {
            Some(Capturing::Always) => capture.write(req, &first, body).await,
            Some(Capturing::First) => capture.write_first(req, &first, body).await,
            Some(Capturing::Never) | None => {}
        }
    }
    let (status, outcome) = outcome.into_answer()?;
    Ok(Received::Batch {
        provider: provider.to_owned(),
        tenant: tenant.to_owned(),
        status,
        outcome,
    })
}

/// Whether a request is written to `capture.dir`, in the order a batch's
/// items decide it: a request replayed forever writes one file, not one
/// per copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Capturing {
    /// A duplicate is a copy of a request captured already, and one
    /// refused for a retry (in progress, a store failure) is captured when
    /// the retry is decided.
    Never,
    /// Held, or refused as a conflict: the provider resends what it was
    /// answered, for days, and each copy is kept on one record; so is its
    /// capture, written unless one of the event with its body is there.
    First,
    /// Recorded: an event is accepted once.
    Always,
}

fn capturing(result: Result<Status, &Refusal>) -> Capturing {
    match result {
        Ok(Status::Accepted) => Capturing::Always,
        Ok(Status::Held) | Err(Refusal::Conflict) => Capturing::First,
        _ => Capturing::Never,
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::InProgress { retry_after } => ApiError::InProgress { retry_after },
            Refusal::Conflict => ApiError::Conflict,
            Refusal::NotAcknowledged => ApiError::NotAcknowledged,
            Refusal::DeadLettered { handler } => ApiError::DeadLettered { handler },
            Refusal::Store(e) => e.into(),
        }
    }
}

/// An operator's release of a held event (admin API, console).
impl From<ReleaseError> for ApiError {
    fn from(e: ReleaseError) -> Self {
        match e {
            ReleaseError::Refused(r) => r.into(),
            ReleaseError::NotHeld(_) => ApiError::NotFound(e.to_string()),
            ReleaseError::AlreadyReleased { .. } => ApiError::AlreadyDone(e.to_string()),
            ReleaseError::UnknownProvider(_) | ReleaseError::Unreadable(_) => {
                ApiError::invalid("event", e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_captured_when_decided_and_a_resent_one_once() {
        let retry = Refusal::InProgress {
            retry_after: std::time::Duration::from_secs(1),
        };
        assert_eq!(capturing(Ok(Status::Accepted)), Capturing::Always);
        assert_eq!(capturing(Ok(Status::Held)), Capturing::First);
        assert_eq!(capturing(Err(&Refusal::Conflict)), Capturing::First);
        assert_eq!(capturing(Ok(Status::Duplicate)), Capturing::Never);
        assert_eq!(capturing(Err(&retry)), Capturing::Never);
        // A batch is captured as its most demanding item asks.
        assert!(Capturing::Always > Capturing::First && Capturing::First > Capturing::Never);
    }
}
