//! Dedup keys in Redis, single server or cluster: one Lua script per state
//! transition (`lua/`), run by SHA. Redis keeps nothing durable here; the
//! `redis` store pairs these keys with PostgreSQL (`super::redis_pg`).

mod conn;
mod finish;
mod keys;
mod scan;
mod streams;

use std::time::Duration;

use redis::Script;
use secrecy::SecretString;

use self::conn::{Conn, RedisConn};
use super::types::{ms, ClaimOutcome, DedupRecord, EventKey, OwnerToken};
use super::{OpenError, StoreError};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

pub(crate) use self::finish::{start as start_finishes, Finish, FinishBatch, Release};
pub use self::keys::dedup_key;
pub(crate) use self::keys::DIGEST_LEN;

/// What the Redis half needs from the configuration.
#[derive(Clone)]
pub struct RedisOptions {
    /// `redis://` (or `redis+cluster://`) URL; may carry a password.
    pub url: Option<SecretString>,
    /// Cluster seed nodes; selects the cluster client when not empty.
    pub cluster: Vec<SecretString>,
    pub key_prefix: String,
    /// Connect and response timeout.
    pub timeout: Duration,
    /// Extra trusted roots for `rediss://` (`[tls] ca_file`).
    pub ca_file: Option<std::path::PathBuf>,
}

/// The scripts, each loaded by SHA on first use (`invoke_async` runs
/// EVALSHA and loads the script on NOSCRIPT, e.g. after a Redis restart).
#[derive(Debug)]
struct Scripts {
    claim: Script,
    complete: Script,
    release: Script,
    lookup: Script,
    stream_lease: Script,
    stream_finish: Script,
    stream_oldest: Script,
    stream_find: Script,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            claim: Script::new(include_str!("../../../lua/claim.lua")),
            complete: Script::new(include_str!("../../../lua/complete.lua")),
            release: Script::new(include_str!("../../../lua/release.lua")),
            lookup: Script::new(include_str!("../../../lua/lookup.lua")),
            stream_lease: Script::new(include_str!("../../../lua/stream_lease.lua")),
            stream_finish: Script::new(include_str!("../../../lua/stream_finish.lua")),
            stream_oldest: Script::new(include_str!("../../../lua/stream_oldest.lua")),
            stream_find: Script::new(include_str!("../../../lua/stream_find.lua")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RedisDedup {
    redis: RedisConn,
    prefix: String,
    scripts: std::sync::Arc<Scripts>,
}

/// The digest a dedup key holds for a full SHA-256.
pub(crate) fn short_digest(sha256: &[u8]) -> Result<&[u8], StoreError> {
    sha256
        .get(..DIGEST_LEN)
        .ok_or_else(|| StoreError::internal("commit", "a stored body digest is too short"))
}

impl RedisDedup {
    /// Prepare the client; does not connect (see [`RedisDedup::try_connect`]).
    pub fn new(opts: &RedisOptions) -> Result<Self, OpenError> {
        Ok(RedisDedup {
            redis: RedisConn::new(opts)?,
            prefix: opts.key_prefix.clone(),
            scripts: std::sync::Arc::new(Scripts::new()),
        })
    }

    /// Try Redis once. If it does not answer, the receiver still starts,
    /// answers 503 and reconnects on later requests.
    pub async fn try_connect(&self, limit: Duration) {
        match tokio::time::timeout(limit, self.redis.get()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                tracing::warn!(error = %e.chain(), "Redis unreachable at start; will retry")
            }
            Err(_) => tracing::warn!("Redis did not answer at start; will retry"),
        }
    }

    fn key(&self, provider: &str, tenant: &str, event_id: &str) -> Vec<u8> {
        dedup_key(&self.prefix, provider, tenant, event_id)
    }

    fn key_of(&self, ev: &VerifiedWebhook) -> Vec<u8> {
        self.key(ev.provider_name(), ev.tenant(), ev.event_id())
    }

    fn body_key_of(&self, ev: &VerifiedWebhook) -> Option<Vec<u8>> {
        ev.guards_body().then(|| {
            keys::body_key(
                &self.prefix,
                ev.provider_name(),
                ev.tenant(),
                &ev.body_sha256()[..],
            )
        })
    }

    async fn conn(&self) -> Result<Conn, StoreError> {
        self.redis.get().await
    }

    /// Run claim.lua. With `complete_for` (the dedup window and the
    /// handlers whose streams get the delivery), a new event is claimed,
    /// COMPLETED and its deliveries appended in the same script: `Owned`
    /// then means recorded.
    pub async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
        complete_for: Option<(Duration, &[&HandlerName])>,
    ) -> Result<ClaimOutcome, StoreError> {
        let mut conn = self.conn().await?;
        let mut script = self.scripts.claim.key(self.key_of(ev));
        script
            .arg(keys::completed_value(&ev.body_sha256()[..]))
            .arg(&owner.as_bytes()[..])
            // PX must be positive.
            .arg(ms(ttl).max(1))
            .arg(ev.event_id().as_str());
        if let Some((window, streams)) = complete_for {
            let n = self.enqueue(&mut script, ev, streams);
            script
                .arg(ms(window).max(1))
                .arg(ms(ev.provider().replay_window).max(1))
                .arg(n);
            if n > 0 {
                Self::entry_args(&mut script, ev);
            }
        }
        // After the streams, if any.
        if let Some(body_key) = self.body_key_of(ev) {
            script.key(body_key);
        }
        let reply: Vec<i64> = script
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("claim"))?;
        match reply[..] {
            [0] => Ok(ClaimOutcome::Owned(owner)),
            [1] => Ok(ClaimOutcome::Duplicate),
            [2, pttl] => Ok(ClaimOutcome::InProgress {
                retry_after: Duration::from_millis(pttl.max(0) as u64),
            }),
            [3] => Ok(ClaimOutcome::Conflict),
            [4] => Ok(ClaimOutcome::Replay),
            _ => Err(StoreError::internal(
                "claim",
                format!("unexpected reply from claim.lua: {reply:?}"),
            )),
        }
    }

    /// Run complete.lua: true if `owner` still owned the key and it is now
    /// COMPLETED with `digest` (16 bytes: the body's, or the recorded
    /// original's) for `window`.
    pub async fn complete(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        digest: &[u8],
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let mut script = self.scripts.complete.key(self.key_of(ev));
        script
            .arg(&owner.as_bytes()[..])
            .arg(ms(window).max(1))
            .arg(keys::completed_value(digest));
        if let Some(body_key) = self.body_key_of(ev) {
            // The body key names this event only if it is recorded with
            // this body; otherwise it goes.
            let own = digest == &ev.body_sha256()[..DIGEST_LEN];
            script
                .key(body_key)
                .arg(if own { ev.event_id().as_str() } else { "" })
                .arg(ms(ev.provider().replay_window).max(1));
        }
        let done: i64 = script
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("commit"))?;
        Ok(done == 1)
    }

    pub async fn release(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        // 0 means someone else owns the key now: nothing to give back.
        let mut script = self.scripts.release.key(self.key_of(ev));
        script.arg(&owner.as_bytes()[..]);
        if let Some(body_key) = self.body_key_of(ev) {
            script.key(body_key);
        }
        let _released: i64 = script
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("release"))?;
        Ok(())
    }

    /// What the key says, and until when (now + its PTTL) it is kept.
    pub async fn record(&self, key: &EventKey) -> Result<DedupRecord, StoreError> {
        let mut conn = self.conn().await?;
        let reply: Vec<i64> = self
            .scripts
            .lookup
            .key(self.key(&key.provider, &key.tenant, &key.event_id))
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("lookup"))?;
        let until = |pttl: i64| chrono::Utc::now() + chrono::Duration::milliseconds(pttl.max(0));
        match reply[..] {
            [0] => Ok(DedupRecord::Absent),
            [1, pttl] => Ok(DedupRecord::InProgress {
                kept_until: until(pttl),
            }),
            [2, pttl] => Ok(DedupRecord::Completed {
                kept_until: until(pttl),
            }),
            _ => Err(StoreError::internal(
                "lookup",
                format!("unexpected reply from lookup.lua: {reply:?}"),
            )),
        }
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .map_err(StoreError::redis("ping"))?;
        Ok(())
    }

    /// Dedup keys under the prefix (SCAN over every master: for tests and
    /// operators, not the request path).
    pub async fn count_keys(&self) -> Result<u64, StoreError> {
        let conn = self.conn().await?;
        scan::count_keys(conn, &keys::dedup_pattern(&self.prefix)).await
    }
}
