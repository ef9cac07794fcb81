//! The delivery queue's types, shared by the SQL backends.

use std::time::Duration;

use serde::Serialize;

use super::stream_entry::{KeptAttempt, StreamEntry};
use super::StoreError;
use crate::ids::{EventId, EventType, HandlerName, ProviderName, TenantName};

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

/// Columns every delivery listing selects (both SQL dialects).
pub(crate) const DELIVERY_COLUMNS: &str =
    "id, provider, tenant, event_id, handler, event_type, state, attempts,
     next_attempt_ms, last_status, last_error, created_ms, updated_ms";

/// Columns a lease returns (both SQL dialects).
/// A delivery recorded with its event's `processed_event` row keeps no body
/// of its own (migration 0010): the row's is read. The digest is matched
/// too: without it, PostgreSQL may walk `processed_event_body` over every
/// event of the tenant, filtering on the ID.
pub(crate) const LEASED_COLUMNS: &str =
    "id, provider, tenant, event_id, handler, event_type, content_type,
     COALESCE(body, (SELECT p.body FROM processed_event p
                     WHERE p.provider = delivery.provider AND p.tenant = delivery.tenant
                       AND p.body_sha256 = delivery.body_sha256
                       AND p.event_id = delivery.event_id)) AS body,
     attempts, created_ms, forward_headers, trace_parent, query";

/// A `delivery` row as listed. Integer columns are read as `i32`, which
/// both PostgreSQL's INTEGER and SQLite's 64-bit integers decode to.
#[derive(sqlx::FromRow)]
pub(crate) struct DeliveryRow {
    id: i64,
    provider: String,
    tenant: String,
    event_id: String,
    handler: String,
    event_type: String,
    state: String,
    attempts: i32,
    next_attempt_ms: i64,
    last_status: Option<i32>,
    last_error: Option<String>,
    created_ms: i64,
    updated_ms: i64,
}

impl From<DeliveryRow> for DeliveryView {
    fn from(r: DeliveryRow) -> Self {
        // The CHECK constraint allows only the three states.
        let state = DeliveryState::parse(&r.state).unwrap_or(DeliveryState::Pending);
        DeliveryView {
            id: r.id,
            provider: r.provider,
            tenant: r.tenant,
            event_id: r.event_id,
            handler: r.handler,
            event_type: r.event_type,
            state,
            attempts: r.attempts as u32,
            // Only a pending delivery has a next attempt.
            next_attempt_at: (state == DeliveryState::Pending)
                .then(|| rfc3339_ms(r.next_attempt_ms)),
            last_status: r.last_status.map(|s| s as u16),
            last_error: r.last_error,
            created_at: rfc3339_ms(r.created_ms),
            updated_at: rfc3339_ms(r.updated_ms),
        }
    }
}

/// A `delivery` row as leased.
#[derive(sqlx::FromRow)]
pub(crate) struct LeasedRow {
    id: i64,
    provider: ProviderName,
    tenant: TenantName,
    event_id: EventId,
    handler: HandlerName,
    event_type: EventType,
    content_type: Option<String>,
    body: Vec<u8>,
    attempts: i32,
    created_ms: i64,
    forward_headers: Option<String>,
    trace_parent: Option<String>,
    query: Option<String>,
}

impl From<LeasedRow> for Leased {
    fn from(r: LeasedRow) -> Self {
        Leased {
            place: Place::Row(r.id),
            provider: r.provider,
            tenant: r.tenant,
            event_id: r.event_id,
            handler: r.handler,
            event_type: r.event_type,
            content_type: r.content_type,
            body: bytes::Bytes::from(r.body),
            attempts: r.attempts as u32,
            created_ms: r.created_ms,
            // Written by us as JSON pairs; anything else forwards nothing.
            forward_headers: r
                .forward_headers
                .and_then(|j| serde_json::from_str(&j).ok())
                .unwrap_or_default(),
            trace_parent: r.trace_parent,
            query: r.query.unwrap_or_default(),
            handed: false,
        }
    }
}

/// Per-handler counts, as `depth_by_handler` selects them.
#[derive(sqlx::FromRow)]
pub(crate) struct HandlerCounts {
    handler: HandlerName,
    pending: i64,
    dead: i64,
}

impl From<HandlerCounts> for HandlerDepth {
    fn from(r: HandlerCounts) -> Self {
        HandlerDepth {
            handler: r.handler,
            depth: QueueDepth {
                pending: r.pending.max(0) as u64,
                dead: r.dead.max(0) as u64,
            },
        }
    }
}

/// A `delivery_attempt` row.
#[derive(sqlx::FromRow)]
pub(crate) struct AttemptRow {
    attempt: i32,
    started_ms: i64,
    status: Option<i32>,
    latency_ms: i64,
    response_body: Option<String>,
    error: Option<String>,
}

impl From<AttemptRow> for AttemptView {
    fn from(r: AttemptRow) -> Self {
        AttemptView {
            attempt: r.attempt as u32,
            started_at: rfc3339_ms(r.started_ms),
            status: r.status.map(|s| s as u16),
            latency_ms: r.latency_ms.max(0) as u64,
            response_body: r.response_body,
            error: r.error,
        }
    }
}

impl AttemptRecord {
    /// The texts of the attempt as a store can hold them: PostgreSQL
    /// refuses a NUL character in text, and a handler's answer may carry
    /// one. Refusing would lose the outcome and call the handler again, so
    /// NUL is kept visible as U+FFFD instead, on every backend alike.
    pub(crate) fn storable(&self) -> (String, Option<String>) {
        let clean = |s: &str| s.replace('\0', "\u{FFFD}");
        (clean(&self.response_body), self.error.as_deref().map(clean))
    }

    /// What a stream entry keeps of it.
    pub(crate) fn kept(&self) -> KeptAttempt {
        KeptAttempt {
            attempt: self.attempt,
            started_ms: self.started_ms,
            status: self.status,
            latency_ms: super::types::ms(self.latency),
            error: self.storable().1,
        }
    }
}
