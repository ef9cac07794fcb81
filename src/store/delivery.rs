//! The delivery queue's types, shared by the backends (the SQL rows they
//! are read from are in `sql/rows.rs`).

use std::time::Duration;

use serde::Serialize;

use super::stream_entry::{KeptAttempt, StreamEntry};
use super::StoreError;
use crate::ids::{EventId, EventType, HandlerName, ProviderName, TenantName};

/// A waiting batch of delivery outcomes (PostgreSQL's statement, the
/// streams' finish call) goes out once it holds this many, whatever is left
/// of its wait for company. The workers keep room for at least two such
/// batches, so one fills while the other is written.
pub const OUTCOME_BATCH_ROWS: usize = 32;

/// Where a delivery is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryState {
    Pending,
    Delivered,
    Dead,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Dead => "dead",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(DeliveryState::Pending),
            "delivered" => Some(DeliveryState::Delivered),
            "dead" => Some(DeliveryState::Dead),
            _ => None,
        }
    }
}

/// Where a leased delivery lives, and so which store ends the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A row of the `delivery` table, by its ID.
    Row(i64),
    /// An entry of a Redis Stream, with the attempts it kept (non-critical,
    /// with `store.non_critical_deliveries = "redis"`).
    Stream(StreamEntry),
}

/// A delivery a worker holds a lease on.
#[derive(Debug, Clone)]
pub struct Leased {
    pub place: Place,
    pub provider: ProviderName,
    pub tenant: TenantName,
    pub event_id: EventId,
    pub handler: HandlerName,
    pub event_type: EventType,
    pub content_type: Option<String>,
    /// Shared, so each attempt sends it without a copy.
    pub body: bytes::Bytes,
    /// Attempts made before this one.
    pub attempts: u32,
    pub created_ms: i64,
    /// The provider's headers kept for the handlers that forward them
    /// (each attempt sends only its own handler's `forward_headers`).
    pub forward_headers: Vec<(String, String)>,
    /// The W3C `traceparent` of the request that recorded it, when there
    /// was one.
    pub trace_parent: Option<String>,
    /// The query string of the request that recorded it (empty when there
    /// was none): filters and transforms see it as `query`.
    pub query: String,
    /// Whether it was handed to the workers by the request that recorded
    /// it (its attempt continues that request's trace) rather than leased.
    pub handed: bool,
}

impl Leased {
    /// How log lines name it: its row ID, or its stream entry.
    pub fn name(&self) -> String {
        match &self.place {
            Place::Row(id) => id.to_string(),
            Place::Stream(entry) => format!("stream entry {}", entry.id),
        }
    }

    /// Its row's ID, for the `delivery` table's statements (`op`); an
    /// entry of a stream has none.
    pub(crate) fn row_id(&self, op: &'static str) -> Result<i64, StoreError> {
        match &self.place {
            Place::Row(id) => Ok(*id),
            Place::Stream(_) => Err(StoreError::internal(op, "a stream delivery has no row")),
        }
    }

    /// Its stream entry's ID, for the stream scripts (`op`); a row has none.
    pub(crate) fn entry_id(&self, op: &'static str) -> Result<&str, StoreError> {
        match &self.place {
            Place::Stream(entry) => Ok(&entry.id),
            Place::Row(_) => Err(StoreError::internal(op, "not a stream delivery")),
        }
    }
}

/// One handler's deliveries of one provider+tenant when they live in a
/// Redis Stream (`store.non_critical_deliveries = "redis"`): what a worker
/// leases from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamLane {
    pub provider: ProviderName,
    pub tenant: TenantName,
    pub handler: HandlerName,
}

/// Whose due deliveries a lease may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseFrom<'a> {
    /// Every handler's, in due order; those of a handler no longer
    /// configured too (the attempt dead-letters them).
    Every,
    /// Only these handlers' (the others are full, or their circuit is
    /// open), each read from its own range of the due index, so the
    /// skipped handlers' backlog costs the lease nothing.
    Only(&'a [&'a HandlerName]),
}

/// What an attempt decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Delivered,
    RetryIn(Duration),
    Dead,
}

/// One recorded attempt.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub attempt: u32,
    pub started_ms: i64,
    pub status: Option<u16>,
    pub latency: Duration,
    pub response_body: String,
    pub error: Option<String>,
}

/// `text` with NUL shown as U+FFFD (see [`AttemptRecord::storable`]).
fn storable(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}

impl AttemptRecord {
    /// The texts of the attempt as a store can hold them: PostgreSQL
    /// refuses a NUL character in text, and a handler's answer may carry
    /// one. Refusing would lose the outcome and call the handler again, so
    /// NUL is kept visible as U+FFFD instead, on every backend alike.
    pub(crate) fn storable(&self) -> (String, Option<String>) {
        (storable(&self.response_body), self.storable_error())
    }

    /// The error alone, as [`Self::storable`] writes it.
    fn storable_error(&self) -> Option<String> {
        self.error.as_deref().map(storable)
    }

    /// What a stream entry keeps of it.
    pub(crate) fn kept(&self) -> KeptAttempt {
        KeptAttempt {
            attempt: self.attempt,
            started_ms: self.started_ms,
            status: self.status,
            latency_ms: super::types::ms(self.latency),
            // The response body is not kept: no copy of it is made.
            error: self.storable_error(),
        }
    }
}

/// A delivery attempt's outcome, to record while the lease is held (the
/// backends group-commit them).
pub(crate) struct Outcome {
    pub(crate) delivery_id: i64,
    pub(crate) owner: String,
    pub(crate) attempt: AttemptRecord,
    pub(crate) next: Next,
}

impl Outcome {
    pub(crate) fn new(
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<Self, StoreError> {
        Ok(Outcome {
            delivery_id: delivery.row_id("finish")?,
            owner: owner.to_owned(),
            attempt: attempt.clone(),
            next,
        })
    }
}

/// A delivery as operators see it.
#[derive(Debug, Clone, Serialize)]
pub struct DeliveryView {
    pub id: i64,
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub handler: String,
    pub event_type: String,
    pub state: DeliveryState,
    pub attempts: u32,
    pub next_attempt_at: Option<String>,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// An attempt as operators see it.
#[derive(Debug, Clone, Serialize)]
pub struct AttemptView {
    pub attempt: u32,
    pub started_at: String,
    pub status: Option<u16>,
    pub latency_ms: u64,
    pub response_body: Option<String>,
    pub error: Option<String>,
}

/// Which dead letters (or deliveries) an operator means.
#[derive(Debug, Clone, Default)]
pub struct DeliveryFilter {
    pub id: Option<i64>,
    pub state: Option<DeliveryState>,
    pub provider: Option<ProviderName>,
    pub tenant: Option<TenantName>,
    pub handler: Option<HandlerName>,
    pub event_id: Option<EventId>,
    pub event_type: Option<EventType>,
    /// Created at or after this time (milliseconds since the epoch).
    pub since_ms: Option<i64>,
    /// Created before this time (milliseconds since the epoch).
    pub until_ms: Option<i64>,
    /// Keyset pagination: only deliveries with a smaller ID.
    pub before_id: Option<i64>,
    /// List newest first (by ID) instead of oldest first.
    pub newest_first: bool,
    pub limit: Option<u32>,
}

/// Counts for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDepth {
    pub pending: u64,
    pub dead: u64,
}

/// Pending and dead deliveries of one handler (the console's backlog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerDepth {
    pub handler: HandlerName,
    pub depth: QueueDepth,
}

pub(crate) fn rfc3339_ms(ms: i64) -> String {
    super::types::at_ms(ms).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
