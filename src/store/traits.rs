//! What a backend does its own way: claiming and recording events
//! ([`IngestStore`]), and recording delivery outcomes ([`DeliveryQueue`]).
//! Everything else is the same SQL on both backends, written once
//! ([`super::RecordStore`]), and each backend hands out its tables
//! ([`IngestStore::records`]). Every backend passes the same contract
//! suite (`tests/it/store_contract.rs`).
//!
//! Calls are not bounded here: [`super::Store`] bounds every one of them
//! with `store.timeout`.

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;

use super::delivery::{AttemptRecord, Leased, Next};
use super::handoff::Handoff;
use super::records::RecordStore;
use super::types::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, Inventory, OneStep, OwnerToken,
    RecordOutcome,
};
use super::StoreError;
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

/// Dedup claims and the durable record of accepted events.
///
/// The lifecycle of a key: absent -> IN_PROGRESS (owner token, short TTL)
/// -> COMPLETED (the dedup window). A claim is one atomic step; completion
/// and release only succeed for the current owner.
#[async_trait]
pub trait IngestStore: Send + Sync + Debug {
    /// The statements both backends share (lookups, lists, counts,
    /// leases, sessions, the verdict log, handshake secrets, alert state),
    /// over this backend's SQL database.
    fn records(&self) -> &dyn RecordStore;

    /// Atomically claim the event's key for `ttl` under `owner`.
    async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError>;

    /// Claim the event's key and commit the event in one step, where the
    /// backend can: the key goes from absent to COMPLETED with the event's
    /// record and deliveries, and no claim is ever left IN_PROGRESS. The
    /// receiver asks for it unless something waits between the two (`ack
    /// = "handlers"` with handlers to wait for). `None` when the backend
    /// has no such step for this event: the caller claims, then commits.
    async fn claim_committed(
        &self,
        ev: &VerifiedWebhook,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<Option<OneStep>, StoreError> {
        let _ = (ev, window, handlers);
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
        handlers: &[&HandlerName],
    ) -> Result<CommitOutcome, StoreError>;

    /// One pending delivery per handler without completing the key (`ack =
    /// "handlers"` completes it only once they are acknowledged). The
    /// deliveries outlive a released claim, and keep the body's digest: a
    /// later request with another body is a conflict.
    async fn record_pending(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<RecordOutcome, StoreError>;

    /// Give the claim up, if `owner` still owns it (a stale owner must
    /// never free a newer claim or a completed key).
    async fn release(&self, ev: &VerifiedWebhook, owner: &OwnerToken) -> Result<(), StoreError>;

    /// Whether every store behind this one answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Drop expired dedup state where the store does not expire it itself;
    /// how many keys went.
    async fn purge_expired(&self) -> Result<u64, StoreError>;

    /// Counts of what is recorded (walks the keyspace on Redis: for tests
    /// and operators, not the request path).
    async fn inventory(&self) -> Result<Inventory, StoreError>;

    /// What the dedup record of one event says, and until when it is kept.
    async fn dedup_record(&self, key: &EventKey) -> Result<DedupRecord, StoreError>;
}

/// Deliveries waiting for their handlers: how an outcome is recorded, and
/// where new deliveries are handed to this process's workers (their
/// leases are shared statements, [`super::records::DeliveryRecords`]).
#[async_trait]
pub trait DeliveryQueue: Send + Sync + Debug {
    /// Where this process's workers are handed the deliveries its
    /// receivers record (`handoff.rs`); `None` when the backend hands none.
    fn handoff(&self) -> Option<&Handoff> {
        None
    }

    /// Record an attempt and what follows from it, if `owner` still holds
    /// the lease; `false` when the lease was lost to another worker.
    async fn finish(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError>;
}
