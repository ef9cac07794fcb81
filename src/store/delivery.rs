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
    pub body: Vec<u8>,
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
