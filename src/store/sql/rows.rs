//! The `delivery` and `delivery_attempt` rows as both SQL dialects select
//! them, and what they become in the store API (`queue.rs` runs the
//! statements).

use crate::ids::{EventId, EventType, HandlerName, ProviderName, TenantName};
use crate::store::delivery::{
    rfc3339_ms, AttemptView, DeliveryState, DeliveryView, HandlerDepth, Leased, Place, QueueDepth,
};

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
