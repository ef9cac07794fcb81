//! The two things a backend is: where events are claimed and recorded
//! ([`IngestStore`]), and the queue their deliveries wait in
//! ([`DeliveryQueue`]). Every backend passes the same contract suite
//! (`tests/it/store_contract.rs`).
//!
//! Calls are not bounded here: [`super::Store`] bounds every one of them
//! with `store.timeout`.

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use secrecy::SecretString;

use super::delivery::{
    AttemptRecord, AttemptView, DeliveryFilter, DeliveryView, HandlerDepth, LeaseFrom, Leased,
    Next, QueueDepth,
};
use super::handoff::Handoff;
use super::listing::{
    EventFilter, EventListed, EventRecord, VerdictEntry, VerdictFilter, VerdictListed,
};
use super::types::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, HeldEvent, Inventory, OwnerToken,
    ProcessedEvent, QuarantinedCopy, RecordOutcome,
};
use super::StoreError;
use crate::provider::VerifiedWebhook;

/// Dedup claims and the durable record of accepted events.
///
/// The lifecycle of a key: absent -> IN_PROGRESS (owner token, short TTL)
/// -> COMPLETED (the dedup window). A claim is one atomic step; completion
/// and release only succeed for the current owner.
#[async_trait]
pub trait IngestStore: Send + Sync + Debug {
    /// Atomically claim the event's key for `ttl` under `owner`.
    async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError>;

    /// Claim and complete in one step a non-critical event that no handler
    /// wants (its dedup record is all there is to write), answering
    /// [`ClaimOutcome::Recorded`] for a new one; `None` when the backend
    /// has no such step for this event (the caller claims, then commits).
    async fn claim_recorded(
        &self,
        ev: &VerifiedWebhook,
        window: Duration,
    ) -> Result<Option<ClaimOutcome>, StoreError> {
        let _ = (ev, window);
        Ok(None)
    }

    /// Record the event durably (critical events) with one pending
    /// delivery per handler, and mark the key COMPLETED for `window`, if
    /// `owner` still owns it. A body other than the one already recorded
    /// for this event ID (in `processed_event`, or in deliveries the
    /// handlers were given) is a conflict, and nothing of it is recorded.
    async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&str],
    ) -> Result<CommitOutcome, StoreError>;

    /// One pending delivery per handler without completing the key (`ack =
    /// "handlers"` completes it only once they are acknowledged). The
    /// deliveries outlive a released claim, and keep the body's digest: a
    /// later request with another body is a conflict.
    async fn record_pending(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<RecordOutcome, StoreError>;

    /// Give the claim up, if `owner` still owns it (a stale owner must
    /// never free a newer claim or a completed key).
    async fn release(&self, ev: &VerifiedWebhook, owner: &OwnerToken) -> Result<(), StoreError>;

    /// Keep a request that reused an event ID with a different body;
    /// identical copies are counted on one record.
    async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError>;

    /// Hold a suspected replay (its body accepted under another event ID):
    /// kept until an operator releases it; copies under its ID counted.
    async fn hold(&self, ev: &VerifiedWebhook) -> Result<(), StoreError>;

    /// The held record of one event, if any.
    async fn held(&self, key: &EventKey) -> Result<Option<HeldEvent>, StoreError>;

    /// Mark a held event released once its deliveries are recorded;
    /// whether it was held and not yet released.
    async fn mark_released(&self, key: &EventKey) -> Result<bool, StoreError>;

    /// Whether every store behind this one answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Drop expired dedup state where the store does not expire it itself;
    /// how many keys went.
    async fn purge_expired(&self) -> Result<u64, StoreError>;

    /// Counts of what is recorded (walks the keyspace on Redis: for tests
    /// and operators, not the request path).
    async fn inventory(&self) -> Result<Inventory, StoreError>;

    /// The `processed_event` row of one event, if any.
    async fn processed_event(&self, key: &EventKey) -> Result<Option<ProcessedEvent>, StoreError>;

    /// What the dedup record of one event says, and until when it is kept.
    async fn dedup_record(&self, key: &EventKey) -> Result<DedupRecord, StoreError>;

    /// The quarantined copies of one event, oldest first.
    async fn quarantined(&self, key: &EventKey) -> Result<Vec<QuarantinedCopy>, StoreError>;

    /// Accepted (critical) or conflicting events matching `filter`,
    /// newest first.
    async fn list_events(
        &self,
        record: EventRecord,
        filter: &EventFilter,
    ) -> Result<Vec<EventListed>, StoreError>;

    /// Append verified requests' verdicts to the verdict log (a batch).
    async fn log_verdicts(&self, entries: &[VerdictEntry]) -> Result<(), StoreError>;

    /// Verdicts matching `filter`, newest first.
    async fn list_verdicts(&self, filter: &VerdictFilter)
        -> Result<Vec<VerdictListed>, StoreError>;

    /// Drop at most [`super::listing::PRUNE_CHUNK`] verdicts received
    /// before `before_ms`; how many went.
    async fn prune_verdicts(&self, before_ms: i64) -> Result<u64, StoreError>;

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

    /// The secret a handshake handed over for this provider and tenant.
    async fn handshake_secret(
        &self,
        provider: &str,
        tenant: &str,
    ) -> Result<Option<SecretString>, StoreError>;

    /// Store a handed-over secret unless one is stored (first come);
    /// whether it was.
    async fn keep_handshake_secret(
        &self,
        provider: &str,
        tenant: &str,
        secret: &str,
    ) -> Result<bool, StoreError>;

    /// Forget the stored secret (an operator re-arms the tenant); whether
    /// there was one.
    async fn reset_handshake_secret(
        &self,
        provider: &str,
        tenant: &str,
    ) -> Result<bool, StoreError>;
}

/// Deliveries waiting for their handlers, leased by workers.
#[async_trait]
pub trait DeliveryQueue: Send + Sync + Debug {
    /// Where this process's workers are handed the deliveries its
    /// receivers record (`handoff.rs`); `None` when the backend hands none.
    fn handoff(&self) -> Option<&Handoff> {
        None
    }

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

    /// Record an attempt and what follows from it, if `owner` still holds
    /// the lease; `false` when the lease was lost to another worker.
    async fn finish(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError>;

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

    /// Per handler with a pending delivery, when its oldest was created
    /// (ms since the epoch).
    async fn oldest_pending(&self) -> Result<Vec<(String, i64)>, StoreError>;

    /// Mark an alert rule firing for a handler, if it was not and its last
    /// alert was sent at or before `quiet_since_ms`; `true` when the caller
    /// is the one node to send it.
    async fn alert_fire(
        &self,
        rule: &str,
        handler: &str,
        now_ms: i64,
        quiet_since_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Mark an alert rule resolved for a handler, if it was firing; `true`
    /// when the caller is the one node to send the resolve.
    async fn alert_resolve(&self, rule: &str, handler: &str) -> Result<bool, StoreError>;
}
