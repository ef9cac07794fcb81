//! The embedded store: one SQLite file holds the dedup state and the durable
//! records, so a single node runs with nothing else installed.
//!
//! SQLite has one writer at a time; the pool has one connection so every
//! transition is a short transaction that never waits on a lock upgrade.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;

use super::delivery::{
    attempt_view, delivery_view, leased, push_filter, AttemptRecord, AttemptView, DeliveryFilter,
    DeliveryState, DeliveryView, Leased, Next, QueueDepth, DELIVERY_COLUMNS, LEASED_COLUMNS,
};
use super::{
    ms, now_ms, ClaimOutcome, CommitOutcome, Inventory, OwnerToken, ProcessedEvent, StoreError,
};
use crate::config::StoreSettings;
use crate::provider::VerifiedWebhook;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Open (creating it and its directory if needed) and migrate the file.
    pub async fn open(settings: &StoreSettings) -> Result<Self, StoreError> {
        let path: &Path = &settings.path;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Unavailable {
                op: "open",
                source: format!("cannot create {}: {e}", dir.display()).into(),
            })?;
        }
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(StoreError::unavailable("open"))?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a committed acceptance survives power loss, not only a
            // killed process.
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(settings.timeout)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(settings.timeout)
            .connect_with(options)
            .await
            .map_err(StoreError::unavailable("open"))?;
        MIGRATOR.run(&pool).await?;
        Ok(SqliteStore { pool })
    }

    pub async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        let now = now_ms();
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(StoreError::unavailable("claim"))?;
        // Take the key if it is absent or expired, in one statement.
        let taken = sqlx::query(
            "INSERT INTO dedup_key (provider, tenant, event_id, state, owner, body_sha256, expires_at_ms)
             VALUES (?1, ?2, ?3, 'in_progress', ?4, ?5, ?6)
             ON CONFLICT (provider, tenant, event_id) DO UPDATE SET
                 state = 'in_progress', owner = excluded.owner,
                 body_sha256 = excluded.body_sha256, expires_at_ms = excluded.expires_at_ms
             WHERE dedup_key.expires_at_ms <= ?7",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(&owner.as_bytes()[..])
        .bind(&ev.body_sha256()[..])
        .bind(now + ms(ttl))
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::unavailable("claim"))?
        .rows_affected();
        let outcome = if taken == 1 {
            ClaimOutcome::Owned(owner)
        } else {
            let row = sqlx::query(
                "SELECT state, body_sha256, expires_at_ms FROM dedup_key
                 WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3",
            )
            .bind(ev.provider_name())
            .bind(ev.tenant())
            .bind(ev.event_id())
            .fetch_one(&mut *tx)
            .await
            .map_err(StoreError::unavailable("claim"))?;
            let state: String = row.get(0);
            let sha: Vec<u8> = row.get(1);
            let expires: i64 = row.get(2);
            if sha != ev.body_sha256() {
                ClaimOutcome::Conflict
            } else if state == "completed" {
                ClaimOutcome::Duplicate
            } else {
                ClaimOutcome::InProgress {
                    retry_after: Duration::from_millis((expires - now).max(0) as u64),
                }
            }
        };
        tx.commit()
            .await
            .map_err(StoreError::unavailable("claim"))?;
        Ok(outcome)
    }

    pub async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&str],
    ) -> Result<CommitOutcome, StoreError> {
        let now = now_ms();
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(StoreError::unavailable("commit"))?;
        let owned = sqlx::query(
            "UPDATE dedup_key SET state = 'completed', owner = NULL, expires_at_ms = ?5
             WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3
               AND state = 'in_progress' AND owner = ?4",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(&owner.as_bytes()[..])
        .bind(now + ms(window))
        .execute(&mut *tx)
        .await
        .map_err(StoreError::unavailable("commit"))?
        .rows_affected();
        if owned == 0 {
            // Dropping the transaction rolls it back: nothing was written.
            return Ok(CommitOutcome::NotOwner);
        }
        let mut outcome = CommitOutcome::Accepted;
        if ev.is_critical() {
            let inserted = sqlx::query(
                "INSERT INTO processed_event
                     (provider, tenant, event_id, event_type, body_sha256, body, content_type, received_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (provider, tenant, event_id) DO NOTHING",
            )
            .bind(ev.provider_name())
            .bind(ev.tenant())
            .bind(ev.event_id())
            .bind(ev.event_type())
            .bind(&ev.body_sha256()[..])
            .bind(&ev.body()[..])
            .bind(ev.content_type())
            .bind(chrono::Utc::now().to_rfc3339())
            .execute(&mut *tx)
            .await
            .map_err(StoreError::unavailable("commit"))?
            .rows_affected();
            if inserted == 0 {
                // The row outlived the dedup key: the row is the truth.
                let original: Vec<u8> = sqlx::query_scalar(
                    "SELECT body_sha256 FROM processed_event
                     WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3",
                )
                .bind(ev.provider_name())
                .bind(ev.tenant())
                .bind(ev.event_id())
                .fetch_one(&mut *tx)
                .await
                .map_err(StoreError::unavailable("commit"))?;
                if original == ev.body_sha256() {
                    outcome = CommitOutcome::Duplicate;
                } else {
                    // Key the dedup state to the original body, so later
                    // copies of the original are duplicates and copies of
                    // this body are conflicts.
                    sqlx::query(
                        "UPDATE dedup_key SET body_sha256 = ?4
                         WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3",
                    )
                    .bind(ev.provider_name())
                    .bind(ev.tenant())
                    .bind(ev.event_id())
                    .bind(&original)
                    .execute(&mut *tx)
                    .await
                    .map_err(StoreError::unavailable("commit"))?;
                    outcome = CommitOutcome::Conflict;
                }
            }
        }
        if outcome == CommitOutcome::Accepted {
            // One pending delivery per matching handler, in the same
            // transaction: no 2xx without its deliveries.
            insert_deliveries(&mut tx, ev, handlers, now).await?;
        }
        tx.commit()
            .await
            .map_err(StoreError::unavailable("commit"))?;
        Ok(outcome)
    }

    /// Pending deliveries for an event whose key is still IN_PROGRESS
    /// (`ack = "handlers"` records them before it waits).
    pub async fn record_deliveries(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<(), StoreError> {
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(StoreError::unavailable("commit"))?;
        insert_deliveries(&mut tx, ev, handlers, now_ms()).await?;
        tx.commit().await.map_err(StoreError::unavailable("commit"))
    }

    pub async fn release(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "DELETE FROM dedup_key
             WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3
               AND state = 'in_progress' AND owner = ?4",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(&owner.as_bytes()[..])
        .execute(&self.pool)
        .await
        .map_err(StoreError::unavailable("release"))?;
        Ok(())
    }

    pub async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO conflict_quarantine
                 (provider, tenant, event_id, event_type, body_sha256, body, content_type, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(ev.event_type())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
        .bind(chrono::Utc::now().to_rfc3339())
        .execute(&self.pool)
        .await
        .map_err(StoreError::unavailable("quarantine"))?;
        Ok(())
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map_err(StoreError::unavailable("ping"))?;
        Ok(())
    }

    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("DELETE FROM dedup_key WHERE expires_at_ms <= ?1")
                .bind(now_ms())
                .execute(&self.pool)
                .await
                .map_err(StoreError::unavailable("purge"))?
                .rows_affected(),
        )
    }

    pub async fn inventory(&self) -> Result<Inventory, StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM dedup_key),
                    (SELECT COUNT(*) FROM processed_event),
                    (SELECT COUNT(*) FROM conflict_quarantine)",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("inventory"))?;
        Ok(Inventory {
            dedup_keys: row.get::<i64, _>(0) as u64,
            processed_events: row.get::<i64, _>(1) as u64,
            quarantined: row.get::<i64, _>(2) as u64,
        })
    }

    pub async fn processed_event(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        let row = sqlx::query(
            "SELECT event_type, body_sha256, body FROM processed_event
             WHERE provider = ?1 AND tenant = ?2 AND event_id = ?3",
        )
        .bind(provider)
        .bind(tenant)
        .bind(event_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::unavailable("lookup"))?;
        Ok(row.map(|r| ProcessedEvent {
            provider: provider.to_owned(),
            tenant: tenant.to_owned(),
            event_id: event_id.to_owned(),
            event_type: r.get(0),
            body_sha256: r.get(1),
            body: r.get(2),
        }))
    }
}

/// One pending delivery per handler; an existing one is left as it is (a
/// handler that acknowledged stays acknowledged).
async fn insert_deliveries(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    ev: &VerifiedWebhook,
    handlers: &[&str],
    now: i64,
) -> Result<(), StoreError> {
    for handler in handlers {
        sqlx::query(
            "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type,
                                   body, state, next_attempt_ms, created_ms, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?8, ?8)
             ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(handler)
        .bind(ev.event_type())
        .bind(ev.content_type())
        .bind(&ev.body()[..])
        .bind(now)
        .execute(&mut **tx)
        .await
        .map_err(StoreError::unavailable("commit"))?;
    }
    Ok(())
}

/// The delivery queue.
impl SqliteStore {
    /// Lease up to `limit` due deliveries for `lease`.
    pub async fn lease_deliveries(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
    ) -> Result<Vec<Leased>, StoreError> {
        let now = now_ms();
        // As on PostgreSQL, a leased row's next attempt is at the lease's
        // end: when it is due again if its worker dies.
        let rows = sqlx::query(&format!(
            "UPDATE delivery SET lease_owner = ?1, lease_until_ms = ?2 + ?3,
                                 next_attempt_ms = ?2 + ?3
             WHERE id IN (SELECT id FROM delivery
                          WHERE state = 'pending' AND next_attempt_ms <= ?2
                            AND (lease_until_ms IS NULL OR lease_until_ms <= ?2)
                          ORDER BY next_attempt_ms LIMIT ?4)
             RETURNING {LEASED_COLUMNS}",
        ))
        .bind(owner)
        .bind(now)
        .bind(ms(lease))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("lease"))?;
        Ok(rows.iter().map(|r| leased!(r, i64)).collect())
    }

    /// Record an attempt and its consequence, if `owner` still holds the
    /// lease. Returns whether it did.
    pub async fn finish_delivery(
        &self,
        d: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let (state, next_ms) = match next {
            Next::Delivered => (DeliveryState::Delivered, now),
            Next::Dead => (DeliveryState::Dead, now),
            Next::RetryIn(delay) => (DeliveryState::Pending, now + ms(delay)),
        };
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(StoreError::unavailable("finish"))?;
        let owned = sqlx::query(
            "UPDATE delivery SET state = ?3, attempts = ?4, next_attempt_ms = ?5, lease_owner = NULL,
                                 lease_until_ms = NULL, last_status = ?6, last_error = ?7, updated_ms = ?8
             WHERE id = ?1 AND lease_owner = ?2",
        )
        .bind(d.id)
        .bind(owner)
        .bind(state.as_str())
        .bind(i64::from(attempt.attempt))
        .bind(next_ms)
        .bind(attempt.status.map(i64::from))
        .bind(&attempt.error)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::unavailable("finish"))?
        .rows_affected();
        if owned == 0 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO delivery_attempt (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .bind(d.id)
        .bind(i64::from(attempt.attempt))
        .bind(attempt.started_ms)
        .bind(attempt.status.map(i64::from))
        .bind(ms(attempt.latency))
        .bind(&attempt.response_body)
        .bind(&attempt.error)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::unavailable("finish"))?;
        tx.commit()
            .await
            .map_err(StoreError::unavailable("finish"))?;
        Ok(true)
    }

    pub async fn list_deliveries(
        &self,
        f: &DeliveryFilter,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        let mut q = sqlx::QueryBuilder::new(format!(
            "SELECT {DELIVERY_COLUMNS} FROM delivery WHERE 1 = 1"
        ));
        push_filter!(&mut q, f);
        q.push(" ORDER BY id LIMIT ")
            .push_bind(i64::from(f.limit.unwrap_or(100)));
        let rows = q
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::unavailable("list"))?;
        Ok(rows.iter().map(|r| delivery_view!(r, i64)).collect())
    }

    pub async fn delivery_attempts(
        &self,
        delivery_id: i64,
    ) -> Result<Vec<AttemptView>, StoreError> {
        let rows = sqlx::query(
            "SELECT attempt, started_ms, status, latency_ms, response_body, error
             FROM delivery_attempt WHERE delivery_id = ?1 ORDER BY attempt, id",
        )
        .bind(delivery_id)
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("attempts"))?;
        Ok(rows.iter().map(|r| attempt_view!(r, i64)).collect())
    }

    /// Put matching deliveries back in the queue, due now, with their
    /// attempt count reset. A delivery a worker holds right now is left
    /// alone. Returns how many were requeued.
    pub async fn requeue(&self, f: &DeliveryFilter) -> Result<u64, StoreError> {
        let now = now_ms();
        let mut q = sqlx::QueryBuilder::new(
            "UPDATE delivery SET state = 'pending', attempts = 0, next_attempt_ms = ",
        );
        q.push_bind(now).push(", updated_ms = ").push_bind(now);
        // Pending rows are queued already; a leased one is being attempted.
        q.push(" WHERE NOT (state = 'pending' AND COALESCE(lease_until_ms > ")
            .push_bind(now)
            .push(", FALSE))");
        push_filter!(&mut q, f);
        let n = q
            .build()
            .execute(&self.pool)
            .await
            .map_err(StoreError::unavailable("requeue"))?
            .rows_affected();
        Ok(n)
    }

    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        let row = sqlx::query(
            "SELECT COALESCE(SUM(state = 'pending'), 0), COALESCE(SUM(state = 'dead'), 0) FROM delivery",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("depth"))?;
        Ok(QueueDepth {
            pending: row.get::<i64, _>(0) as u64,
            dead: row.get::<i64, _>(1) as u64,
        })
    }
}
