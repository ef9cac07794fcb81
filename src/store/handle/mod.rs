//! [`Store`]: the handle the receiver, the workers and the operators' tools
//! use. It holds the configured backend behind the two traits, and its
//! shared statements ([`RecordStore`]), and bounds every call with
//! `store.timeout`: a hung store must never hang a request. What differs
//! between the backends has a method here each; the shared statements are
//! called through [`Store::with_records`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

mod streams;

use super::delivery::{AttemptRecord, Leased, Next, Place};
use super::streams::StreamQueue;
use super::types::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, Inventory, OneStep, OwnerToken,
    RecordOutcome,
};
use super::{DeliveryQueue, IngestStore, RecordStore, StoreError};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

/// The configured backend. Cheap to clone: clones share it.
#[derive(Clone)]
pub struct Store {
    ingest: Arc<dyn IngestStore>,
    queue: Arc<dyn DeliveryQueue>,
    timeout: Duration,
    /// What a log line calls the SQL database (`SQLite`, `PostgreSQL`).
    database: &'static str,
    /// Non-critical deliveries in Redis Streams, when configured.
    streams: Option<StreamQueue>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The backends' own Debug never shows a URL.
        f.debug_struct("Store")
            .field("ingest", &self.ingest)
            .field("queue", &self.queue)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Store {
    /// A handle over `ingest` and `queue` (often one value behind both).
    pub fn new(
        ingest: Arc<dyn IngestStore>,
        queue: Arc<dyn DeliveryQueue>,
        timeout: Duration,
    ) -> Self {
        Store {
            ingest,
            queue,
            timeout,
            database: "the database",
            streams: None,
        }
    }

    /// The handle, its SQL database called `name` in log lines.
    pub fn with_database(mut self, name: &'static str) -> Self {
        self.database = name;
        self
    }

    /// Which store `e` came from, for its log line: Redis, the SQL
    /// database, or (a timeout over a step that uses both) either.
    pub fn failed(&self, e: &StoreError) -> &'static str {
        match e {
            _ if e.from_redis() => "Redis",
            StoreError::Timeout { .. } if self.database == "PostgreSQL" => "Redis or PostgreSQL",
            _ => self.database,
        }
    }

    /// The backend's ingest side, unbounded (the contract suite drives it).
    pub fn ingest(&self) -> &dyn IngestStore {
        &*self.ingest
    }

    /// Where this process's workers are handed the deliveries its
    /// receivers record, if the backend hands any off.
    pub fn handoff(&self) -> Option<&super::handoff::Handoff> {
        self.queue.handoff()
    }

    /// The backend's queue, unbounded.
    pub fn queue(&self) -> &dyn DeliveryQueue {
        &*self.queue
    }

    /// The statements both backends share, unbounded (the contract suite
    /// drives them).
    pub fn records(&self) -> &dyn RecordStore {
        self.ingest.records()
    }

    /// One of the statements both backends share ([`RecordStore`]: lookups,
    /// lists, counts, leases, sessions, the verdict log, handshake secrets,
    /// alert state), bounded by `store.timeout` like every call; `op` names
    /// it in a timeout's error. A new shared statement is a method of
    /// `RecordStore` and its SQL in `sql/`, called through this.
    pub async fn with_records<'s, T, F>(
        &'s self,
        op: &'static str,
        call: impl FnOnce(&'s dyn RecordStore) -> F,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>>,
    {
        self.bounded(op, call(self.records())).await
    }

    /// `fut`, failed with [`StoreError::Timeout`] after `store.timeout`.
    /// A combinator, not an `async fn`: an async fn's future keeps room
    /// for its argument beside the timeout holding it, so each call
    /// doubled the size of the store call's future (bench/NOTES.md,
    /// "Kept: futures that carry only the common path").
    fn bounded<T>(
        &self,
        op: &'static str,
        fut: impl Future<Output = Result<T, StoreError>>,
    ) -> impl Future<Output = Result<T, StoreError>> {
        let limit = self.timeout;
        tokio::time::timeout(limit, fut)
            .map(move |r| r.unwrap_or(Err(StoreError::Timeout { op, limit })))
    }

    /// Atomically claim the event's key for `in_progress_ttl`.
    pub async fn claim(
        &self,
        ev: &VerifiedWebhook,
        in_progress_ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        let owner = OwnerToken::new();
        let claimed = self
            .bounded("claim", self.ingest.claim(ev, owner, in_progress_ttl))
            .await;
        if claimed.is_err() {
            // The claim may have taken effect although its answer never
            // came (a slow or frozen Redis runs the script when it wakes
            // up). Give it back, best effort, so the provider's retry is
            // not blocked for in_progress_ttl; release is owner-checked, so
            // this is always safe.
            let (ingest, ev, limit) = (self.ingest.clone(), ev.clone(), self.timeout);
            tokio::spawn(async move {
                let _ = tokio::time::timeout(limit, ingest.release(&ev, &owner)).await;
            });
        }
        claimed
    }

    /// See [`IngestStore::claim_committed`]. A failure is answered as a
    /// claim's is: nothing owned is left (the key is written completed,
    /// with the event, or not at all).
    pub async fn claim_committed(
        &self,
        ev: &VerifiedWebhook,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<Option<OneStep>, StoreError> {
        self.bounded("claim", self.ingest.claim_committed(ev, window, handlers))
            .await
    }

    /// See [`IngestStore::commit`].
    pub async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<CommitOutcome, StoreError> {
        self.bounded("commit", self.ingest.commit(ev, owner, window, handlers))
            .await
    }

    /// See [`IngestStore::record_pending`].
    pub async fn record_pending(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<RecordOutcome, StoreError> {
        self.bounded("deliveries", self.ingest.record_pending(ev, handlers))
            .await
    }

    pub async fn release(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
    ) -> Result<(), StoreError> {
        self.bounded("release", self.ingest.release(ev, owner))
            .await
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.bounded("ping", self.ingest.ping()).await
    }

    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        self.bounded("purge", self.ingest.purge_expired()).await
    }

    pub async fn inventory(&self) -> Result<Inventory, StoreError> {
        self.bounded("inventory", self.ingest.inventory()).await
    }

    /// Record a delivery attempt's outcome, if `owner` still holds its
    /// lease ([`DeliveryQueue::finish`], or the stream's).
    pub async fn finish_delivery(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        match (&self.streams, &delivery.place) {
            (Some(s), Place::Stream(_)) => {
                self.bounded("finish", s.finish(delivery, owner, attempt, next))
                    .await
            }
            _ => {
                self.bounded("finish", self.queue.finish(delivery, owner, attempt, next))
                    .await
            }
        }
    }

    /// Give a leased delivery back unattempted, due again at once.
    pub async fn give_back(&self, delivery: &Leased, owner: &str) -> Result<(), StoreError> {
        match (&self.streams, &delivery.place) {
            (Some(s), Place::Stream(_)) => {
                self.bounded("lease", s.give_back(delivery, owner)).await
            }
            _ => {
                self.with_records("lease", |r| r.give_back(delivery, owner))
                    .await
            }
        }
    }

    pub async fn dedup_record(&self, key: &EventKey) -> Result<DedupRecord, StoreError> {
        self.bounded("lookup", self.ingest.dedup_record(key)).await
    }
}
