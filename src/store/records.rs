//! [`RecordStore`]: what both backends do the same way, because it is the
//! same SQL on PostgreSQL and SQLite. Every statement here is written
//! once, over `sql::Tables<DB: Dialect>` (`sql/`), and each backend hands
//! out its tables ([`super::IngestStore::records`]). Callers reach them
//! through [`super::Store::with_records`], which bounds every call with
//! `store.timeout` like any other: no per-statement forwarder.
//!
//! The trait is the sum of one part per group of tables, each implemented
//! in the `sql/` file that holds its statements: a new console query is a
//! method here and its statement there, and nothing else.
//!
//! What really differs between the backends (claims, commits, releases,
//! pending records, outcomes, the hand-off, batching) stays in
//! [`super::IngestStore`] and [`super::DeliveryQueue`].

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use secrecy::SecretString;

use super::delivery::{
    AttemptView, DeliveryFilter, DeliveryView, HandlerDepth, LeaseFrom, Leased, QueueDepth,
};
use super::listing::{
    EventFilter, EventListed, EventRecord, VerdictEntry, VerdictFilter, VerdictListed,
};
use super::types::{EventKey, HeldEvent, ProcessedEvent, QuarantinedCopy};
use super::StoreError;
use crate::ids::{HandlerName, ProviderName, TenantName};
use crate::provider::VerifiedWebhook;

/// Every statement both dialects share, reached through one object.
pub trait RecordStore:
    EventRecords
    + HeldEvents
    + VerdictRecords
    + Sessions
    + HandshakeSecrets
    + DeliveryRecords
    + AlertStates
{
}

impl<T> RecordStore for T where
    T: EventRecords
        + HeldEvents
        + VerdictRecords
        + Sessions
        + HandshakeSecrets
        + DeliveryRecords
        + AlertStates
        + ?Sized
{
}

/// Accepted and conflicting events (`processed_event`,
/// `conflict_quarantine`): `sql/ledger.rs`.
#[async_trait]
pub trait EventRecords: Send + Sync + Debug {
    /// The `processed_event` row of one event, if any.
    async fn processed_event(&self, key: &EventKey) -> Result<Option<ProcessedEvent>, StoreError>;

    /// Keep a request that reused an event ID with a different body;
    /// identical copies are counted on one record.
    async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError>;

    /// The quarantined copies of one event, oldest first.
    async fn quarantined(&self, key: &EventKey) -> Result<Vec<QuarantinedCopy>, StoreError>;

    /// Accepted (critical), conflicting or held events matching `filter`,
    /// newest first.
    async fn list_events(
        &self,
        record: EventRecord,
        filter: &EventFilter,
    ) -> Result<Vec<EventListed>, StoreError>;
}

/// Suspected replays held for an operator (`held_event`): `sql/held.rs`.
#[async_trait]
pub trait HeldEvents: Send + Sync + Debug {
    /// Hold a suspected replay (its body accepted under another event ID):
    /// kept until an operator releases it; copies under its ID counted.
    async fn hold(&self, ev: &VerifiedWebhook) -> Result<(), StoreError>;

    /// The held record of one event, if any.
    async fn held(&self, key: &EventKey) -> Result<Option<HeldEvent>, StoreError>;

    /// Mark a held event released once its deliveries are recorded;
    /// whether it was held and not yet released.
    async fn mark_released(&self, key: &EventKey) -> Result<bool, StoreError>;
}

/// The verdict log (`request_verdict`): `sql/verdicts.rs`.
#[async_trait]
pub trait VerdictRecords: Send + Sync + Debug {
    /// Append verified requests' verdicts to the verdict log (a batch).
    async fn log_verdicts(&self, entries: &[VerdictEntry]) -> Result<(), StoreError>;

    /// Verdicts matching `filter`, newest first.
    async fn list_verdicts(&self, filter: &VerdictFilter)
        -> Result<Vec<VerdictListed>, StoreError>;

    /// Drop at most [`super::listing::PRUNE_CHUNK`] verdicts received
    /// before `before_ms`; how many went.
    async fn prune_verdicts(&self, before_ms: i64) -> Result<u64, StoreError>;
}

/// Console sessions (`console_session`): `sql/sessions.rs`.
#[async_trait]
pub trait Sessions: Send + Sync + Debug {
    /// Keep a console session (by its ID's SHA-256) until `expires_ms`.
    async fn open_session(
        &self,
        id_sha256: &[u8],
        csrf: &str,
        expires_ms: i64,
        now_ms: i64,
    ) -> Result<(), StoreError>;

    /// The CSRF token of a session live at `now_ms`.
    async fn find_session(
        &self,
        id_sha256: &[u8],
        now_ms: i64,
    ) -> Result<Option<String>, StoreError>;

    /// End a session.
    async fn close_session(&self, id_sha256: &[u8]) -> Result<(), StoreError>;
}

/// Secrets handed over by handshakes (`handshake_secret`):
/// `sql/handshakes.rs`.
#[async_trait]
pub trait HandshakeSecrets: Send + Sync + Debug {
    /// The secret a handshake handed over for this provider and tenant.
    async fn handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
    ) -> Result<Option<SecretString>, StoreError>;

    /// Store a handed-over secret unless one is stored (first come);
    /// whether it was.
    async fn keep_handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
        secret: &str,
    ) -> Result<bool, StoreError>;

    /// Forget the stored secret (an operator re-arms the tenant); whether
    /// there was one.
    async fn reset_handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
    ) -> Result<bool, StoreError>;
}

/// The delivery queue's shared statements (`delivery`,
/// `delivery_attempt`): leases, listings, requeues and depth;
/// `sql/queue.rs`. Recording outcomes differs ([`super::DeliveryQueue`]).
#[async_trait]
pub trait DeliveryRecords: Send + Sync + Debug {
    /// Lease up to `limit` due deliveries to `owner` for `lease`, of the
    /// handlers `from` names.
    async fn lease(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError>;

    /// Hand a leased delivery back unattempted, due now, if `owner` still
    /// holds it (its handler had no room for it after all).
    async fn give_back(&self, delivery: &Leased, owner: &str) -> Result<(), StoreError>;

    /// Deliveries matching `filter`, oldest first.
    async fn list(&self, filter: &DeliveryFilter) -> Result<Vec<DeliveryView>, StoreError>;

    /// Every attempt of one delivery, in order.
    async fn attempts(&self, delivery_id: i64) -> Result<Vec<AttemptView>, StoreError>;

    /// One delivery with the body it carries, whatever its state (the
    /// console shows the body of an event no `processed_event` row keeps).
    async fn payload(&self, delivery_id: i64) -> Result<Option<Leased>, StoreError>;

    /// Requeue matching deliveries (re-delivery, dead-letter replay), due
    /// now, attempts reset; a delivery a worker holds is left alone.
    async fn requeue(&self, filter: &DeliveryFilter) -> Result<u64, StoreError>;

    /// Pending and dead deliveries.
    async fn depth(&self) -> Result<QueueDepth, StoreError>;

    /// How many deliveries match `filter` (its limit and order ignored).
    async fn count(&self, filter: &DeliveryFilter) -> Result<u64, StoreError>;

    /// Pending and dead deliveries per handler that has any.
    async fn depth_by_handler(&self) -> Result<Vec<HandlerDepth>, StoreError>;
}

/// What the alert rules read and write (`delivery`, `alert_state`):
/// `sql/alerts.rs`.
#[async_trait]
pub trait AlertStates: Send + Sync + Debug {
    /// Per handler with a pending delivery, when its oldest was created
    /// (ms since the epoch).
    async fn oldest_pending(&self) -> Result<Vec<(HandlerName, i64)>, StoreError>;

    /// Mark an alert rule firing for a handler, if it was not and its last
    /// alert was sent at or before `quiet_since_ms`; `true` when the caller
    /// is the one node to send it.
    async fn alert_fire(
        &self,
        rule: &str,
        handler: &HandlerName,
        now_ms: i64,
        quiet_since_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Mark an alert rule resolved for a handler, if it was firing; `true`
    /// when the caller is the one node to send the resolve.
    async fn alert_resolve(&self, rule: &str, handler: &HandlerName) -> Result<bool, StoreError>;
}
