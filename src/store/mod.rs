//! Dedup state and durable records, behind one type with one behaviour per
//! backend: `embedded` (SQLite) and `redis` (Redis + PostgreSQL).
//!
//! The lifecycle of a key: absent -> IN_PROGRESS (owner token, short TTL) ->
//! COMPLETED (long TTL, the correctness window). A claim is one atomic step;
//! completion and release only succeed for the current owner.

pub mod delivery;
mod group_commit;
mod postgres;
mod redis;
mod redis_conn;
mod redis_scan;
mod sqlite;

use std::future::Future;
use std::time::Duration;

use crate::config::{StoreKind, StoreSettings};
use crate::provider::VerifiedWebhook;

pub use self::redis::RedisStore;
pub use sqlite::SqliteStore;

/// A random token naming the holder of an IN_PROGRESS claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnerToken([u8; 16]);

impl OwnerToken {
    pub fn new() -> Self {
        OwnerToken(*uuid::Uuid::new_v4().as_bytes())
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
}

/// The answer of completing an owned claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Recorded; the key is COMPLETED.
    Accepted,
    /// The durable record already held this event (e.g. Redis lost the key,
    /// or the dedup window had passed); the key is COMPLETED again.
    Duplicate,
    /// The durable record holds this event ID with a different body.
    Conflict,
    /// The claim expired and someone else owns the key now; nothing was done.
    NotOwner,
}

/// What is recorded, for operators and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inventory {
    pub dedup_keys: u64,
    pub processed_events: u64,
    pub quarantined: u64,
}

/// A processed (critical) event as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessedEvent {
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    pub body_sha256: Vec<u8>,
    pub body: Vec<u8>,
}

/// Store failures. Every one of them is transient from the provider's point
/// of view: the answer is 503 with `Retry-After`, never a 4xx.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{op}: store unavailable: {source}")]
    Unavailable {
        op: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("{op}: no answer from the store within {limit:?}")]
    Timeout { op: &'static str, limit: Duration },
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the database schema is behind: run `hookline migrate` ({0})")]
    SchemaBehind(String),
}

impl StoreError {
    pub(crate) fn unavailable(op: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
        move |e| StoreError::Unavailable {
            op,
            source: Box::new(e),
        }
    }
}

/// The configured backend.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    timeout: Duration,
}

#[derive(Debug, Clone)]
enum Backend {
    Embedded(SqliteStore),
    Redis(RedisStore),
}

impl Store {
    /// Connect to the configured stores. The embedded store creates and
    /// migrates its file; the redis store refuses a PostgreSQL schema that
    /// is behind (`hookline migrate` applies it).
    pub async fn connect(settings: &StoreSettings) -> Result<Self, StoreError> {
        let backend = match settings.kind {
            StoreKind::Embedded => Backend::Embedded(SqliteStore::open(settings).await?),
            StoreKind::Redis => Backend::Redis(RedisStore::open(settings).await?),
        };
        Ok(Store {
            backend,
            timeout: settings.timeout,
        })
    }

    /// Apply pending migrations to the configured stores.
    pub async fn migrate(settings: &StoreSettings) -> Result<(), StoreError> {
        match settings.kind {
            // Opening the file migrates it.
            StoreKind::Embedded => SqliteStore::open(settings).await.map(|_| ()),
            StoreKind::Redis => RedisStore::migrate(settings).await,
        }
    }

    /// Bound every store call: a hung store must never hang a request.
    async fn bounded<T>(
        &self,
        op: &'static str,
        fut: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(self.timeout, fut)
            .await
            .map_err(|_| StoreError::Timeout {
                op,
                limit: self.timeout,
            })?
    }

    /// Atomically claim the event's key for `in_progress_ttl`.
    pub async fn claim(
        &self,
        event: &VerifiedWebhook,
        in_progress_ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        let owner = OwnerToken::new();
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("claim", s.claim(event, owner, in_progress_ttl))
                    .await
            }
            Backend::Redis(s) => {
                let claimed = self
                    .bounded("claim", s.claim(event, owner, in_progress_ttl))
                    .await;
                if claimed.is_err() {
                    // The script may have run although its answer never
                    // came (a slow or frozen Redis runs it when it wakes
                    // up). Give the claim back, best effort, so the
                    // provider's retry is not blocked for in_progress_ttl;
                    // release is owner-checked, so this is always safe.
                    let (s, ev, limit) = (s.clone(), event.clone(), self.timeout);
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(limit, s.release(&ev, &owner)).await;
                    });
                }
                claimed
            }
        }
    }

    /// Record the event durably (critical events) with one pending delivery
    /// per handler in `handlers`, and mark the key COMPLETED for `window`, if
    /// `owner` still owns it.
    pub async fn commit(
        &self,
        event: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&str],
    ) -> Result<CommitOutcome, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("commit", s.commit(event, owner, window, handlers))
                    .await
            }
            Backend::Redis(s) => {
                self.bounded("commit", s.commit(event, owner, window, handlers))
                    .await
            }
        }
    }

    /// Record pending deliveries without completing the key (`ack =
    /// "handlers"`: the key completes only once they are acknowledged).
    pub async fn record_deliveries(
        &self,
        event: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("deliveries", s.record_deliveries(event, handlers))
                    .await
            }
            Backend::Redis(s) => {
                self.bounded("deliveries", s.pg().record_deliveries(event, handlers))
                    .await
            }
        }
    }

    /// Give the claim up (processing failed), if `owner` still owns it.
    pub async fn release(
        &self,
        event: &VerifiedWebhook,
        owner: &OwnerToken,
    ) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("release", s.release(event, owner)).await,
            Backend::Redis(s) => self.bounded("release", s.release(event, owner)).await,
        }
    }

    /// Keep a request that reused an event ID with a different body.
    pub async fn quarantine(&self, event: &VerifiedWebhook) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("quarantine", s.quarantine(event)).await,
            Backend::Redis(s) => self.bounded("quarantine", s.quarantine(event)).await,
        }
    }

    /// Whether every store answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("ping", s.ping()).await,
            Backend::Redis(s) => self.bounded("ping", s.ping()).await,
        }
    }

    /// Drop dedup state that has expired (the embedded store has no TTLs of
    /// its own). Returns how many keys were removed.
    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("purge", s.purge_expired()).await,
            // Redis expires keys itself.
            Backend::Redis(_) => Ok(0),
        }
    }

    /// Counts of what is recorded under this store's prefix.
    pub async fn inventory(&self) -> Result<Inventory, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => s.inventory().await,
            Backend::Redis(s) => s.inventory().await,
        }
    }

    /// The processed_event row for one event, if any.
    pub async fn processed_event(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => s.processed_event(provider, tenant, event_id).await,
            Backend::Redis(s) => s.processed_event(provider, tenant, event_id).await,
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub(crate) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

use delivery::{
    AttemptRecord, AttemptView, DeliveryFilter, DeliveryView, Leased, Next, QueueDepth,
};

/// The delivery queue.
impl Store {
    /// Lease up to `limit` due deliveries to `owner` for `lease`.
    pub async fn lease_deliveries(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
    ) -> Result<Vec<Leased>, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("lease", s.lease_deliveries(owner, limit, lease))
                    .await
            }
            Backend::Redis(s) => {
                self.bounded("lease", s.pg().lease_deliveries(owner, limit, lease))
                    .await
            }
        }
    }

    /// Record an attempt and what follows from it, if `owner` still holds
    /// the lease; `false` when the lease was lost to another worker.
    pub async fn finish_delivery(
        &self,
        d: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("finish", s.finish_delivery(d, owner, attempt, next))
                    .await
            }
            Backend::Redis(s) => {
                self.bounded("finish", s.pg().finish_delivery(d, owner, attempt, next))
                    .await
            }
        }
    }

    pub async fn list_deliveries(
        &self,
        filter: &DeliveryFilter,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("list", s.list_deliveries(filter)).await,
            Backend::Redis(s) => self.bounded("list", s.pg().list_deliveries(filter)).await,
        }
    }

    pub async fn delivery_attempts(
        &self,
        delivery_id: i64,
    ) -> Result<Vec<AttemptView>, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => {
                self.bounded("attempts", s.delivery_attempts(delivery_id))
                    .await
            }
            Backend::Redis(s) => {
                self.bounded("attempts", s.pg().delivery_attempts(delivery_id))
                    .await
            }
        }
    }

    /// Requeue matching deliveries (re-delivery, dead-letter replay).
    pub async fn requeue(&self, filter: &DeliveryFilter) -> Result<u64, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("requeue", s.requeue(filter)).await,
            Backend::Redis(s) => self.bounded("requeue", s.pg().requeue(filter)).await,
        }
    }

    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        match &self.backend {
            Backend::Embedded(s) => self.bounded("depth", s.queue_depth()).await,
            Backend::Redis(s) => self.bounded("depth", s.pg().queue_depth()).await,
        }
    }
}

impl Store {
    /// An event as operators see it: its `processed_event` record (digest and
    /// size, not the body), its deliveries and their attempts. `None` when
    /// nothing is recorded for it. Shared by `/admin` and `hookline events`.
    pub async fn event_report(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let processed = self.processed_event(provider, tenant, event_id).await?;
        let deliveries = self
            .list_deliveries(&DeliveryFilter {
                provider: Some(provider.to_owned()),
                tenant: Some(tenant.to_owned()),
                event_id: Some(event_id.to_owned()),
                ..Default::default()
            })
            .await?;
        if processed.is_none() && deliveries.is_empty() {
            return Ok(None);
        }
        let mut with_attempts = Vec::with_capacity(deliveries.len());
        for d in deliveries {
            let attempts = self.delivery_attempts(d.id).await?;
            with_attempts.push(serde_json::json!({"delivery": d, "attempts": attempts}));
        }
        Ok(Some(serde_json::json!({
            "provider": provider,
            "tenant": tenant,
            "event_id": event_id,
            "processed_event": processed.map(|p| serde_json::json!({
                "event_type": p.event_type,
                "body_sha256": hex::encode(&p.body_sha256),
                "body_bytes": p.body.len(),
            })),
            "deliveries": with_attempts,
        })))
    }
}
