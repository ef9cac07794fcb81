//! The `redis` store: dedup keys in Redis, the durable record in PostgreSQL.
//!
//! Round trips per request on the hot path: a non-critical event no handler
//! wants costs one Redis script (claimed and completed at once), and so
//! does one whose deliveries go to Redis Streams (`non_critical_deliveries
//! = "redis"`: the same script appends them); one that a handler wants
//! otherwise costs two (claim, complete) plus one group-committed
//! PostgreSQL statement; a critical one adds its row (and deliveries) in
//! one PostgreSQL statement between them, so the row exists before the
//! provider gets its 2xx.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::Notify;

use super::postgres::{PgStore, Recorded};
use super::redis::{short_digest, RedisDedup, DIGEST_LEN};
use super::types::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, Inventory, OneStep, OwnerToken,
    RecordOutcome,
};
use super::{IngestStore, RecordStore, StoreError};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

#[derive(Debug, Clone)]
pub struct RedisPg {
    redis: RedisDedup,
    pg: PgStore,
    /// Non-critical deliveries go to Redis Streams (`streams.rs`), not
    /// PostgreSQL; this wakes the streams' lease loop of this process.
    streams: Option<Arc<Notify>>,
}

impl RedisPg {
    pub fn new(redis: RedisDedup, pg: PgStore) -> Self {
        RedisPg {
            redis,
            pg,
            streams: None,
        }
    }

    /// A non-critical event's deliveries appended to their handlers'
    /// streams by the script that claims and completes its key, `wake`
    /// woken then.
    pub fn streaming(mut self, wake: Option<Arc<Notify>>) -> Self {
        self.streams = wake;
        self
    }

    /// Complete the key with the digest of the body the event is recorded
    /// with. If Redis lost the key (restarted empty, evicted, window
    /// passed), this repairs it, so later copies of the original are
    /// duplicates and copies of another body conflicts. If we no longer own
    /// the key, its new owner repairs it the same way.
    async fn repair(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        recorded: &[u8],
    ) -> Result<CommitOutcome, StoreError> {
        self.redis
            .complete(ev, owner, window, short_digest(recorded)?)
            .await?;
        Ok(if recorded[..] == ev.body_sha256()[..] {
            CommitOutcome::Duplicate
        } else {
            CommitOutcome::Conflict
        })
    }
}

#[async_trait]
impl IngestStore for RedisPg {
    /// PostgreSQL's: Redis keeps only the dedup keys.
    fn records(&self) -> &dyn RecordStore {
        self.pg.tables()
    }

    async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        self.redis.claim(ev, owner, ttl, None).await
    }

    /// One script (claim.lua with the window) instead of claim and
    /// complete, for a non-critical event when nothing lies between them:
    /// no handler wants it (its key is its whole record), or its deliveries
    /// go to Redis Streams (appended by the same script). The caller asks
    /// only when `ack = "handlers"` does not wait for its handlers.
    async fn claim_committed(
        &self,
        ev: &VerifiedWebhook,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<Option<OneStep>, StoreError> {
        let waits = ev.provider().ack == crate::config::AckMode::Handlers;
        if ev.is_critical() || (!handlers.is_empty() && (self.streams.is_none() || waits)) {
            return Ok(None);
        }
        // The owner token is never stored: the key is written COMPLETED.
        let outcome = self
            .redis
            .claim(ev, OwnerToken::new(), window, Some((window, handlers)))
            .await?;
        Ok(Some(match outcome {
            ClaimOutcome::Owned(_) => {
                if let (Some(wake), false) = (&self.streams, handlers.is_empty()) {
                    // This process's lease loop takes them at once.
                    wake.notify_one();
                }
                OneStep::Commit(CommitOutcome::Accepted)
            }
            other => OneStep::Claim(other),
        }))
    }

    async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<CommitOutcome, StoreError> {
        let own_digest = &ev.body_sha256()[..DIGEST_LEN];
        if !ev.is_critical() {
            // Deliveries in streams were appended with the claim
            // (`claim_committed`); here they are durable in PostgreSQL
            // before the 2xx. The unique (event, handler) row makes a
            // second owner's insert a no-op; under `ack = "handlers"` they
            // were recorded while the handlers were waited for.
            if !handlers.is_empty() {
                if let Some(other) = self.pg.record_deliveries(ev, handlers).await? {
                    // The handlers were given another body under this ID.
                    return self.repair(ev, owner, window, &other.digest).await;
                }
                crash_point!("after_delivery_record");
            }
            if !self.redis.complete(ev, owner, window, own_digest).await? {
                return Ok(CommitOutcome::NotOwner);
            }
            return Ok(CommitOutcome::Accepted);
        }
        // The row first: once it exists the event is recorded for good,
        // whatever happens to Redis afterwards.
        match self.pg.record(ev, handlers).await? {
            Recorded::Inserted => {
                crash_point!("after_durable_insert");
                if !self.redis.complete(ev, owner, window, own_digest).await? {
                    // Our claim expired meanwhile. The row is the durable
                    // truth: the next owner's insert finds it and answers
                    // duplicate, so this request is the acceptance.
                    tracing::warn!("claim expired before completion; the row stands");
                }
                Ok(CommitOutcome::Accepted)
            }
            Recorded::Existing { body_sha256 } => {
                self.repair(ev, owner, window, &body_sha256).await
            }
            Recorded::Replay => {
                // Redis lost the body key; the rows still knew the body.
                self.redis.release(ev, owner).await?;
                Ok(CommitOutcome::Replay)
            }
            Recorded::Refused => {
                // The original is not complete: leave its key free for its
                // own retry (owner-checked, so never someone else's claim).
                self.redis.release(ev, owner).await?;
                Ok(CommitOutcome::Conflict)
            }
        }
    }

    async fn record_pending(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<RecordOutcome, StoreError> {
        Ok(match self.pg.record_deliveries(ev, handlers).await? {
            None => RecordOutcome::Recorded,
            Some(_) => RecordOutcome::Conflict,
        })
    }

    async fn release(&self, ev: &VerifiedWebhook, owner: &OwnerToken) -> Result<(), StoreError> {
        self.redis.release(ev, owner).await
    }

    /// Both must answer: a critical event needs both.
    async fn ping(&self) -> Result<(), StoreError> {
        self.redis.ping().await?;
        self.pg.ping().await
    }

    /// Redis expires keys itself.
    async fn purge_expired(&self) -> Result<u64, StoreError> {
        Ok(0)
    }

    async fn inventory(&self) -> Result<Inventory, StoreError> {
        let dedup_keys = self.redis.count_keys().await?;
        let (processed_events, quarantined) = self.pg.counts().await?;
        Ok(Inventory {
            dedup_keys,
            processed_events,
            quarantined,
        })
    }

    async fn dedup_record(&self, key: &EventKey) -> Result<DedupRecord, StoreError> {
        self.redis.record(key).await
    }
}
