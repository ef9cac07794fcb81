//! The `redis` store: dedup keys in Redis (one Lua script per transition,
//! see `lua/`), critical events in PostgreSQL.
//!
//! Round trips per request on the hot path: a non-critical event costs two
//! Redis scripts (claim, complete); a critical one adds one PostgreSQL
//! insert between them, so the row exists before the provider gets its 2xx.

use std::time::Duration;

use redis::Script;

use super::postgres::{PgStore, Recorded};
use super::redis_conn::{unavailable, Conn, RedisConn};
use super::{ms, ClaimOutcome, CommitOutcome, Inventory, OwnerToken, ProcessedEvent, StoreError};
use crate::config::StoreSettings;
use crate::provider::VerifiedWebhook;

/// Bytes of the body's SHA-256 kept in a dedup key: enough to tell bodies
/// apart (2^-64 birthday bound per ID, and only authenticated senders can
/// try), half the memory of the full digest for every key in the window.
const DIGEST_LEN: usize = 16;

/// The scripts, each loaded by SHA on first use (`invoke_async` runs
/// EVALSHA and loads the script on NOSCRIPT, e.g. after a Redis restart).
#[derive(Debug)]
struct Scripts {
    claim: Script,
    complete: Script,
    release: Script,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            claim: Script::new(include_str!("../../lua/claim.lua")),
            complete: Script::new(include_str!("../../lua/complete.lua")),
            release: Script::new(include_str!("../../lua/release.lua")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RedisStore {
    redis: RedisConn,
    pg: PgStore,
    prefix: String,
    scripts: std::sync::Arc<Scripts>,
}

fn digest(sha256: &[u8]) -> Result<&[u8], StoreError> {
    sha256
        .get(..DIGEST_LEN)
        .ok_or_else(|| StoreError::Unavailable {
            op: "commit",
            source: "a stored body_sha256 is shorter than 16 bytes".into(),
        })
}

impl RedisStore {
    /// Open PostgreSQL (refusing a schema that is behind) and prepare the
    /// Redis client. Redis is tried once; if it does not answer the receiver
    /// still starts, answers 503 and reconnects on later requests.
    pub async fn open(settings: &StoreSettings) -> Result<Self, StoreError> {
        let pg = PgStore::open(settings).await?;
        pg.check_schema().await?;
        let store = Self::with_pg(settings, pg)?;
        match tokio::time::timeout(settings.timeout, store.redis.get()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "Redis unreachable at start; will retry"),
            Err(_) => tracing::warn!("Redis did not answer at start; will retry"),
        }
        Ok(store)
    }

    /// The PostgreSQL half: durable rows and the delivery queue.
    pub fn pg(&self) -> &PgStore {
        &self.pg
    }

    /// Apply the PostgreSQL migrations (Redis has no schema).
    pub async fn migrate(settings: &StoreSettings) -> Result<(), StoreError> {
        PgStore::open(settings).await?.migrate().await
    }

    fn with_pg(settings: &StoreSettings, pg: PgStore) -> Result<Self, StoreError> {
        Ok(RedisStore {
            redis: RedisConn::new(settings)?,
            pg,
            prefix: settings.key_prefix.clone(),
            scripts: std::sync::Arc::new(Scripts::new()),
        })
    }

    /// `{prefix}:dedup:{provider:tenant}:{event_id}`. The braces are a
    /// Redis Cluster hash tag: every key of a provider+tenant hashes to one
    /// slot. Prefix, provider and tenant are validated plain names (no
    /// braces), so the first `{...}` is always ours whatever the event ID.
    fn key(&self, ev: &VerifiedWebhook) -> String {
        format!(
            "{}:dedup:{{{}:{}}}:{}",
            self.prefix,
            ev.provider_name(),
            ev.tenant(),
            ev.event_id()
        )
    }

    async fn conn(&self) -> Result<Conn, StoreError> {
        self.redis.get().await
    }

    pub async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        let mut conn = self.conn().await?;
        let reply: Vec<i64> = self
            .scripts
            .claim
            .key(self.key(ev))
            .arg(&ev.body_sha256()[..DIGEST_LEN])
            .arg(&owner.as_bytes()[..])
            // PX must be positive.
            .arg(ms(ttl).max(1))
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable("claim"))?;
        match reply[..] {
            [0] => Ok(ClaimOutcome::Owned(owner)),
            [1] => Ok(ClaimOutcome::Duplicate),
            [2, pttl] => Ok(ClaimOutcome::InProgress {
                retry_after: Duration::from_millis(pttl.max(0) as u64),
            }),
            [3] => Ok(ClaimOutcome::Conflict),
            _ => Err(StoreError::Unavailable {
                op: "claim",
                source: format!("unexpected reply from claim.lua: {reply:?}").into(),
            }),
        }
    }

    /// Run complete.lua: true if `owner` still owned the key and it is now
    /// COMPLETED with `digest` for `window`.
    async fn complete(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        digest: &[u8],
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let done: i64 = self
            .scripts
            .complete
            .key(self.key(ev))
            .arg(&owner.as_bytes()[..])
            .arg(ms(window).max(1))
            .arg(digest)
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable("commit"))?;
        Ok(done == 1)
    }

    pub async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&str],
    ) -> Result<CommitOutcome, StoreError> {
        let own_digest = &ev.body_sha256()[..DIGEST_LEN];
        if !ev.is_critical() {
            // Deliveries are durable in PostgreSQL before the 2xx (Redis
            // keeps nothing on disk). The unique (event, handler) row makes
            // a second owner's insert a no-op.
            if !handlers.is_empty() {
                self.pg.record_deliveries(ev, handlers).await?;
            }
            // Redis only: the key is the whole record.
            return Ok(if self.complete(ev, owner, window, own_digest).await? {
                CommitOutcome::Accepted
            } else {
                CommitOutcome::NotOwner
            });
        }
        // The row first: once it exists the event is recorded for good,
        // whatever happens to Redis afterwards.
        match self.pg.record(ev, handlers).await? {
            Recorded::Inserted => {
                if !self.complete(ev, owner, window, own_digest).await? {
                    // Our claim expired meanwhile. The row is the durable
                    // truth: the next owner's insert finds it and answers
                    // duplicate, so this request is the acceptance.
                    tracing::warn!("claim expired before completion; the row stands");
                }
                Ok(CommitOutcome::Accepted)
            }
            Recorded::Existing { body_sha256 } => {
                // Redis lost the key (restarted empty, evicted, window
                // passed): repair it to COMPLETED with the ORIGINAL digest,
                // so later copies of the original are duplicates. If we no
                // longer own the key, its new owner repairs it the same way.
                self.complete(ev, owner, window, digest(&body_sha256)?)
                    .await?;
                Ok(if body_sha256[..] == ev.body_sha256()[..] {
                    CommitOutcome::Duplicate
                } else {
                    CommitOutcome::Conflict
                })
            }
        }
    }

    pub async fn release(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        // 0 means someone else owns the key now: nothing to give back.
        let _released: i64 = self
            .scripts
            .release
            .key(self.key(ev))
            .arg(&owner.as_bytes()[..])
            .invoke_async(&mut conn)
            .await
            .map_err(unavailable("release"))?;
        Ok(())
    }

    pub async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        self.pg.quarantine(ev).await
    }

    /// Both stores must answer: a critical event needs both.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .map_err(unavailable("ping"))?;
        self.pg.ping().await
    }

    /// Dedup keys under the prefix (SCAN: for tests and operators, not the
    /// request path), and the PostgreSQL counts.
    pub async fn inventory(&self) -> Result<Inventory, StoreError> {
        let conn = self.conn().await?;
        let pattern = format!("{}:dedup:*", self.prefix);
        let dedup_keys = super::redis_scan::count_keys(conn, &pattern).await?;
        let (processed_events, quarantined) = self.pg.counts().await?;
        Ok(Inventory {
            dedup_keys,
            processed_events,
            quarantined,
        })
    }

    pub async fn processed_event(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        self.pg.processed_event(provider, tenant, event_id).await
    }
}
