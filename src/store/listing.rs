//! Accepted and conflicting events as operators list them (the console's
//! event list): newest first, a page at a time by keyset.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// Which record a listing reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRecord {
    /// `processed_event`: the critical events accepted.
    Accepted,
    /// `conflict_quarantine`: requests that reused an event ID with
    /// another body, identical copies on one record.
    Conflict,
}

/// Which events; each filter optional.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub provider: Option<String>,
    pub tenant: Option<String>,
    pub event_id: Option<String>,
    pub event_type: Option<String>,
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
