//! The delivery queue's types, shared by the SQL backends.

use std::time::Duration;

use serde::Serialize;

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

/// A delivery a worker holds a lease on.
#[derive(Debug, Clone)]
pub struct Leased {
    pub id: i64,
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub handler: String,
    pub event_type: String,
    pub content_type: Option<String>,
    /// Shared, so each attempt sends it without a copy.
    pub body: bytes::Bytes,
    /// Attempts made before this one.
    pub attempts: u32,
    pub created_ms: i64,
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
    pub provider: Option<String>,
    pub tenant: Option<String>,
    pub handler: Option<String>,
    pub event_id: Option<String>,
    pub limit: Option<u32>,
}

/// Counts for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDepth {
    pub pending: u64,
    pub dead: u64,
}

pub(crate) fn rfc3339_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// Columns every delivery listing selects (both SQL dialects).
pub(crate) const DELIVERY_COLUMNS: &str =
    "id, provider, tenant, event_id, handler, event_type, state, attempts,
     next_attempt_ms, last_status, last_error, created_ms, updated_ms";

/// Columns a lease returns.
pub(crate) const LEASED_COLUMNS: &str =
    "id, provider, tenant, event_id, handler, event_type, content_type, body, attempts, created_ms";

/// Row mappings shared by the SQLite and PostgreSQL queues (integer columns
/// are read as the widest type each database returns).
macro_rules! delivery_view {
    ($r:expr, $int:ty) => {{
        use sqlx::Row as _;
        let r = $r;
        let state = $crate::store::delivery::DeliveryState::parse(r.get::<&str, _>("state"))
            .unwrap_or($crate::store::delivery::DeliveryState::Pending);
        $crate::store::delivery::DeliveryView {
            id: r.get("id"),
            provider: r.get("provider"),
            tenant: r.get("tenant"),
            event_id: r.get("event_id"),
            handler: r.get("handler"),
            event_type: r.get("event_type"),
            state,
            attempts: r.get::<$int, _>("attempts") as u32,
            next_attempt_at: (state == $crate::store::delivery::DeliveryState::Pending)
                .then(|| $crate::store::delivery::rfc3339_ms(r.get("next_attempt_ms"))),
            last_status: r.get::<Option<$int>, _>("last_status").map(|s| s as u16),
            last_error: r.get("last_error"),
            created_at: $crate::store::delivery::rfc3339_ms(r.get("created_ms")),
            updated_at: $crate::store::delivery::rfc3339_ms(r.get("updated_ms")),
        }
    }};
}

macro_rules! leased {
    ($r:expr, $int:ty) => {{
        use sqlx::Row as _;
        let r = $r;
        $crate::store::delivery::Leased {
            id: r.get("id"),
            provider: r.get("provider"),
            tenant: r.get("tenant"),
            event_id: r.get("event_id"),
            handler: r.get("handler"),
            event_type: r.get("event_type"),
            content_type: r.get("content_type"),
            body: bytes::Bytes::from(r.get::<Vec<u8>, _>("body")),
            attempts: r.get::<$int, _>("attempts") as u32,
            created_ms: r.get("created_ms"),
        }
    }};
}

macro_rules! attempt_view {
    ($r:expr, $int:ty) => {{
        use sqlx::Row as _;
        let r = $r;
        $crate::store::delivery::AttemptView {
            attempt: r.get::<$int, _>("attempt") as u32,
            started_at: $crate::store::delivery::rfc3339_ms(r.get("started_ms")),
            status: r.get::<Option<$int>, _>("status").map(|s| s as u16),
            latency_ms: r.get::<i64, _>("latency_ms") as u64,
            response_body: r.get("response_body"),
            error: r.get("error"),
        }
    }};
}

/// Append the filter's conditions (`AND col = ?`) to a query.
macro_rules! push_filter {
    ($q:expr, $f:expr) => {{
        let (q, f) = ($q, $f);
        if let Some(id) = f.id {
            q.push(" AND id = ").push_bind(id);
        }
        if let Some(s) = f.state {
            q.push(" AND state = ").push_bind(s.as_str());
        }
        for (col, v) in [
            ("provider", &f.provider),
            ("tenant", &f.tenant),
            ("handler", &f.handler),
            ("event_id", &f.event_id),
        ] {
            if let Some(v) = v {
                q.push(format!(" AND {col} = ")).push_bind(v.as_str());
            }
        }
    }};
}

pub(crate) use {attempt_view, delivery_view, leased, push_filter};
