//! One attempt's own steps, between the worker's lease and its outcome:
//! the message built, transformed, signed and traced, then sent; and what
//! the answer means for the delivery (delivered, retried when, or dead).

use std::time::Duration;

use super::destination::{Destination, Sent};
use super::outgoing::Outgoing;
use super::policy::{within_age, Backoff, Verdict};
use crate::config::{DeliverySettings, Handler};
use crate::store::delivery::{Leased, Next};
use crate::telemetry::TraceHeaders;

/// Attempt `attempt` of `d` to `handler` through `destination`. The one
/// place the message is built: a handler's transform runs first (its
/// failure is a failed attempt), then the signature over what the
/// handler receives, then this attempt's span as `traceparent`.
pub(super) async fn send(
    d: &Leased,
    handler: &Handler,
    destination: &Destination,
    attempt: u32,
) -> Sent {
    let outgoing = Outgoing::new(d, handler, attempt, chrono::Utc::now().timestamp());
    match super::transform::apply(handler, outgoing).await {
        Ok(outgoing) => {
            let outgoing = outgoing
                .signed(handler.signing_key.as_ref())
                .traced(TraceHeaders::of(&tracing::Span::current()));
            destination.send(&outgoing).await
        }
        Err(error) => Sent::retry(error),
    }
}

/// What becomes of a delivery `age` old whose attempt `attempt` to
/// `handler` was answered `outcome`: past `max_attempts` or `max_age` a
/// retry is a dead letter; otherwise the backoff (or the handler's
/// `Retry-After`), brought forward to `max_age`.
pub(super) fn next(
    outcome: &Verdict,
    attempt: u32,
    age: Duration,
    handler: &Handler,
    settings: &DeliverySettings,
) -> Next {
    match *outcome {
        Verdict::Acknowledged => Next::Delivered,
        Verdict::Reject => Next::Dead,
        Verdict::Retry { .. } if attempt >= handler.max_attempts => Next::Dead,
        Verdict::Retry { .. } if handler.max_age.is_some_and(|max| age >= max) => Next::Dead,
        Verdict::Retry { retry_after } => {
            let delay = Backoff::from(settings).delay(attempt, retry_after, rand::random::<f64>());
            Next::RetryIn(within_age(delay, age, handler.max_age))
        }
    }
}

/// The outcome's name in metrics, spans and the console.
pub(super) fn outcome_name(next: Next) -> &'static str {
    match next {
        Next::Delivered => "delivered",
        Next::Dead => "dead",
        Next::RetryIn(_) => "retry",
    }
}

/// The attempt's log line.
pub(super) fn log(next: Next, sent: &Sent) {
    match next {
        Next::Delivered => tracing::info!(status = sent.status, "delivered"),
        Next::Dead => tracing::warn!(
            status = sent.status,
            error = sent.error.as_deref(),
            "dead-lettered"
        ),
        Next::RetryIn(delay) => tracing::info!(
            status = sent.status,
            error = sent.error.as_deref(),
            ?delay,
            "will retry"
        ),
    }
}
