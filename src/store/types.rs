//! What the stores answer: claims, commits, and the records operators look
//! up. The same types for every backend.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};

use crate::ids::{EventId, ProviderName, TenantName};

/// A random token naming the holder of an IN_PROGRESS claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerToken([u8; 16]);

impl OwnerToken {
    pub fn new() -> Self {
        // From the thread's CSPRNG (reseeded from the OS): a claim costs
        // no `getrandom` system call, as `Uuid::new_v4` did per call.
        OwnerToken(rand::random())
    }
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl Default for OwnerToken {
    fn default() -> Self {
        Self::new()
    }
}

/// The answer of an atomic claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// This request owns the key and must complete or release it.
    Owned(OwnerToken),
    /// Completed earlier with the same body.
    Duplicate,
    /// Another request holds the claim; it expires in `retry_after`.
    InProgress { retry_after: Duration },
    /// The key is held (in progress or completed) for a different body.
    Conflict,
    /// The provider guards bodies (`replay_guard = "body"`) and this body
    /// was accepted under another event ID within the window: a replay
    /// under a fresh, unsigned ID. Nothing was claimed.
    Replay,
}

/// The answer of completing an owned claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Recorded; the key is COMPLETED.
    Accepted,
    /// The durable record already held this event (e.g. Redis lost the key,
    /// or the dedup window had passed); the key is COMPLETED again.
    Duplicate,
    /// The durable record (the `processed_event` row, or the deliveries the
    /// handlers were given) holds this event ID with a different body; the
    /// key is COMPLETED with the original's digest.
    Conflict,
    /// The claim expired and someone else owns the key now; nothing was done.
    NotOwner,
    /// The durable record holds this body under another event ID within
    /// the window (`replay_guard = "body"`, Redis lost the body key):
    /// nothing was recorded and the claim was given up.
    Replay,
}

/// The answer of claiming and committing in one step
/// ([`crate::store::IngestStore::claim_committed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneStep {
    /// The key was not taken: the claim's answer (never `Owned`).
    Claim(ClaimOutcome),
    /// The key was taken and the event committed with it: the commit's
    /// answer (never `NotOwner`).
    Commit(CommitOutcome),
}

/// The answer of recording pending deliveries before the key completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordOutcome {
    /// One pending delivery per handler exists for this body (some may have
    /// been recorded, and acknowledged, by an earlier request).
    Recorded,
    /// The event's deliveries or its row carry another body: nothing was
    /// recorded.
    Conflict,
}

/// What is recorded, for operators and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inventory {
    pub dedup_keys: u64,
    pub processed_events: u64,
    /// Conflicting requests kept, counting identical copies one by one.
    pub quarantined: u64,
}

/// One event: how the stores, the console and the operator's commands name
/// it (an operator's text becomes one through `EventKey::parse`, in
/// `lookup.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventKey {
    pub provider: ProviderName,
    pub tenant: TenantName,
    pub event_id: EventId,
}

impl EventKey {
    pub fn new(provider: ProviderName, tenant: TenantName, event_id: EventId) -> Self {
        EventKey {
            provider,
            tenant,
            event_id,
        }
    }

    /// The key of a verified request's event.
    pub fn of(ev: &crate::provider::VerifiedWebhook) -> Self {
        EventKey {
            provider: (*ev.provider().name).clone(),
            tenant: ev.tenant().clone(),
            event_id: ev.event_id().clone(),
        }
    }
}

/// `provider/tenant/event_id`, as the console and the CLI show it.
impl std::fmt::Display for EventKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.provider, self.tenant, self.event_id)
    }
}

/// A processed (critical) event as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ProcessedEvent {
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    pub body_sha256: Vec<u8>,
    pub body: Vec<u8>,
    pub content_type: Option<String>,
    pub received_at: DateTime<Utc>,
}

/// What the dedup record of an event says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum DedupRecord {
    /// No key: never seen, released, or expired (the window passed).
    Absent,
    /// Claimed by a request that has not finished; the claim lapses then.
    InProgress { kept_until: DateTime<Utc> },
    /// Completed; copies are duplicates until then.
    Completed { kept_until: DateTime<Utc> },
}

/// Conflicting requests for one event ID with one body: kept, never applied,
/// identical retries counted on one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct QuarantinedCopy {
    pub event_type: String,
    #[serde(serialize_with = "hex_bytes")]
    pub body_sha256: Vec<u8>,
    /// The body is kept; reports show its size.
    #[serde(rename = "body_bytes", serialize_with = "byte_count")]
    pub body: Vec<u8>,
    pub content_type: Option<String>,
    /// How many requests carried this body.
    pub copies: i64,
    pub first_seen_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
}

/// An event held as a suspected replay (`replay_guard = "body"`): its
/// body was accepted under another event ID within the replay window. Kept
/// whole, never delivered until an operator releases it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct HeldEvent {
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    /// Why it is held: `suspected_replay`.
    pub reason: String,
    #[serde(serialize_with = "hex_bytes")]
    pub body_sha256: Vec<u8>,
    #[serde(rename = "body_bytes", serialize_with = "byte_count")]
    pub body: Vec<u8>,
    pub content_type: Option<String>,
    /// The forwarded headers, as the deliveries keep them (JSON).
    #[serde(skip)]
    pub forwarded: Option<String>,
    /// The request's query string (migration 0011), as deliveries keep it.
    #[serde(skip)]
    pub query: Option<String>,
    /// How many requests carried it.
    pub copies: i64,
    pub first_seen_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    /// When an operator released it to the handlers.
    pub released_at: Option<DateTime<Utc>>,
}

pub(crate) fn hex_bytes<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(bytes))
}

fn byte_count<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(bytes.len() as u64)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A duration in whole milliseconds, saturated.
pub(crate) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A time in milliseconds since the epoch, as a date.
pub(crate) fn at_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
