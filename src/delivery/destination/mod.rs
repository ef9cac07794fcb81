//! Where a handler's deliveries go. Each kind of destination is a file of
//! its own; this is the one `match` over them. A destination takes one
//! [`Outgoing`] message and answers with a [`Sent`]: delivered, retry (with
//! the reason) or dead (with the reason), the same verdicts an HTTP
//! handler's answers map to, so retries, backoff, dead letters, the
//! circuit breaker and `ack = "handlers"` treat every kind alike.

pub mod http;
pub mod mqtt;
pub mod nats;
pub mod rabbitmq;
mod reconnect;
pub mod redis_stream;
mod tls;

use super::outgoing::Outgoing;
use super::policy::Verdict;
use crate::config::{Handler, HandlerKind, TlsSettings};
use crate::telemetry::TraceHeaders;

/// One handler's destination, built once when the workers start and
/// reused by every attempt.
#[derive(Debug, Clone)]
pub enum Destination {
    Http(http::Http),
    Nats(nats::Nats),
    Rabbitmq(rabbitmq::Rabbitmq),
    RedisStream(redis_stream::RedisStream),
    Mqtt(mqtt::Mqtt),
}

impl Destination {
    /// The destination `handler` names. Nothing is connected yet: a broker
    /// that is down must not keep hookline from starting.
    pub fn new(handler: &Handler, tls: &TlsSettings) -> Result<Destination, String> {
        Ok(match handler.kind {
            HandlerKind::Http => Destination::Http(http::Http::new(handler, tls)?),
            HandlerKind::Nats => Destination::Nats(nats::Nats::new(handler, tls)?),
            HandlerKind::Rabbitmq => Destination::Rabbitmq(rabbitmq::Rabbitmq::new(handler, tls)?),
            HandlerKind::RedisStream => {
                Destination::RedisStream(redis_stream::RedisStream::new(handler, tls)?)
            }
            HandlerKind::Mqtt => Destination::Mqtt(mqtt::Mqtt::new(handler, tls)?),
        })
    }

    /// Send one attempt; never fails, the outcome is in the answer.
    ///
    /// The brokers' futures are boxed: an async fn's future is as large
    /// as its largest branch, and every attempt's future (HTTP or not)
    /// would otherwise carry room for the largest broker client's, moved
    /// in memory at each step of its making (bench/NOTES.md, "Kept:
    /// futures that carry only the common path").
    pub async fn send(&self, out: &Outgoing) -> Sent {
        match self {
            Destination::Http(d) => d.send(out).await,
            Destination::Nats(d) => Box::pin(d.send(out)).await,
            Destination::Rabbitmq(d) => Box::pin(d.send(out)).await,
            Destination::RedisStream(d) => Box::pin(d.send(out)).await,
            Destination::Mqtt(d) => Box::pin(d.send(out)).await,
        }
    }
}

/// The headers a broker message carries, in every broker's form of
/// headers (NATS headers, AMQP headers, Redis Stream fields, MQTT 5 user
/// properties): Standard Webhooks' `webhook-id`, `webhook-timestamp` and
/// (with a `signing_secret`) `webhook-signature`; `content-type`;
/// `hookline-provider`, `-tenant`, `-event-id`, `-event-type` and
/// `-attempt`; W3C `traceparent` and `tracestate` when the attempt is
/// traced; then the provider's forwarded headers.
pub fn headers(out: &Outgoing) -> Vec<(String, String)> {
    let mut headers = vec![
        ("webhook-id".to_owned(), out.webhook_id.clone()),
        ("webhook-timestamp".to_owned(), out.timestamp.to_string()),
    ];
    if let Some(signature) = &out.signature {
        headers.push(("webhook-signature".to_owned(), signature.clone()));
    }
    headers.extend([
        ("content-type".to_owned(), out.content_type.clone()),
        ("hookline-provider".to_owned(), out.provider.clone()),
        ("hookline-tenant".to_owned(), out.tenant.clone()),
        ("hookline-event-id".to_owned(), out.event_id.clone()),
        ("hookline-event-type".to_owned(), out.event_type.clone()),
        ("hookline-attempt".to_owned(), out.attempt.to_string()),
    ]);
    headers.extend(out.trace.iter().flat_map(TraceHeaders::pairs));
    headers.extend(out.forwarded.iter().cloned());
    headers
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
