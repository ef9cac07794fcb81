//! Accepted and conflicting events as operators list them (the console's
//! event list): newest first, a page at a time by keyset.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::ids::{EventId, EventType, ProviderName, TenantName};

/// Which record a listing reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRecord {
    /// `processed_event`: the critical events accepted.
    Accepted,
    /// `conflict_quarantine`: requests that reused an event ID with
    /// another body, identical copies on one record.
    Conflict,
    /// `held_event`: suspected replays (a body already accepted under
    /// another event ID), held until an operator releases them.
    Held,
}

/// Which events; each filter optional.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub provider: Option<ProviderName>,
    pub tenant: Option<TenantName>,
    pub event_id: Option<EventId>,
    pub event_type: Option<EventType>,
    /// Keyset cursor: only records with a smaller ID.
    pub before_id: Option<i64>,
    /// At most this many (default 100).
    pub limit: Option<u32>,
}

/// One listed record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct EventListed {
    /// The record's own ID (the cursor).
    pub id: i64,
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    pub body_bytes: i64,
    /// Requests this record stands for (1 for an accepted event).
    pub copies: i64,
    /// When it was received (a conflict: last seen).
    pub at: DateTime<Utc>,
}

/// Verdicts one prune call removes at most.
pub const PRUNE_CHUNK: u64 = 5_000;

/// What a verified request was answered, as the verdict log keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestVerdict {
    /// Recorded: the first copy of its event.
    Accepted,
    /// A copy of an event already accepted (`200`, `Webhook-Duplicate`).
    Duplicate,
    /// The event ID reused with another body (`422`, quarantined).
    Conflict,
    /// A body already accepted under another event ID: held as a
    /// suspected replay (`held_event`), not delivered until released.
    Replay,
}

impl RequestVerdict {
    pub const ALL: [RequestVerdict; 4] = [
        RequestVerdict::Accepted,
        RequestVerdict::Duplicate,
        RequestVerdict::Conflict,
        RequestVerdict::Replay,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RequestVerdict::Accepted => "accepted",
            RequestVerdict::Duplicate => "duplicate",
            RequestVerdict::Conflict => "conflict",
            RequestVerdict::Replay => "replay",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// One verified request, as the receiver hands it to the verdict log:
/// names, digest and size, never the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictEntry {
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    pub verdict: RequestVerdict,
    pub body_sha256: Vec<u8>,
    pub body_bytes: i64,
    pub received_ms: i64,
}

/// Which verdicts; each filter optional.
#[derive(Debug, Clone, Default)]
pub struct VerdictFilter {
    pub event: EventFilter,
    pub verdict: Option<RequestVerdict>,
    /// Received at or after (ms since the epoch).
    pub since_ms: Option<i64>,
    /// Received before.
    pub until_ms: Option<i64>,
}

/// One listed verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct VerdictListed {
    /// The log entry's own ID (the cursor).
    pub id: i64,
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    pub verdict: String,
    pub body_sha256: Vec<u8>,
    pub body_bytes: i64,
    pub received_ms: i64,
}
