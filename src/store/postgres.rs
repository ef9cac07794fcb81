//! PostgreSQL: the durable truth of the `redis` store. `processed_event`
//! holds every critical event exactly once, ever; `conflict_quarantine`
//! keeps requests that reused an event ID with a different body.

use std::str::FromStr;

use secrecy::ExposeSecret;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;

use std::time::Duration;

use super::delivery::{
    attempt_view, delivery_view, leased, push_filter, AttemptRecord, AttemptView, DeliveryFilter,
    DeliveryState, DeliveryView, Leased, Next, QueueDepth, DELIVERY_COLUMNS, LEASED_COLUMNS,
};
use super::{ms, ProcessedEvent, StoreError};
use crate::config::StoreSettings;
use crate::provider::VerifiedWebhook;

/// Milliseconds since the epoch by the database's clock: every worker,
/// whatever host it runs on, agrees on leases and due times.
///
/// A macro as well as a constant, so that the statements run per webhook
/// and per delivery are assembled once, at compile time, with `concat!`
/// rather than by a `format!` (an allocation and a formatting pass) on
/// every call.
macro_rules! now_ms {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    };
}
const NOW_MS: &str = now_ms!();

pub(crate) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// What inserting a critical event found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The row is new.
    Inserted,
    /// A row already held this event ID; its body digest (full SHA-256).
    Existing { body_sha256: Vec<u8> },
}

#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    /// Open the pool. Establishes one connection, so a wrong URL or a down
    /// server is reported at start-up rather than on the first webhook.
    pub async fn open(settings: &StoreSettings) -> Result<Self, StoreError> {
        let url = settings
            .database_url
            .as_ref()
            .ok_or_else(|| StoreError::Unavailable {
                op: "open",
                source: "store.database_url is not set".into(),
            })?;
        // The URL may carry a password: never echo it or the parser's view
        // of it in an error.
        let options = PgConnectOptions::from_str(url.expose_secret())
            .map_err(|_| StoreError::Unavailable {
                op: "open",
                source: "store.database_url is not a valid PostgreSQL URL".into(),
            })?
            .application_name("hookline");
        let pool = PgPoolOptions::new()
            .max_connections(settings.pool_size)
            // A full pool or a dead server must not hold a request longer
            // than any other store call.
            .acquire_timeout(settings.timeout)
            // No ping before every acquire: it would double the round trips
            // of a critical event. A connection that died with the server
            // fails one statement (a 503 the provider retries) and is dropped.
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .map_err(StoreError::unavailable("open"))?;
        Ok(PgStore { pool })
    }

    /// Apply pending migrations (`hookline migrate`).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        MIGRATOR.run(&self.pool).await?;
        Ok(())
    }

    /// Refuse a schema that is behind this binary: every embedded migration
    /// must be applied, successfully, with the same checksum. Newer
    /// migrations in the database are tolerated (a rolling upgrade applies
    /// them before the old binaries stop).
    pub async fn check_schema(&self) -> Result<(), StoreError> {
        let table: Option<String> =
            sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations')::text")
                .fetch_one(&self.pool)
                .await
                .map_err(StoreError::unavailable("schema check"))?;
        let applied: Vec<(i64, Vec<u8>)> = if table.is_some() {
            sqlx::query("SELECT version, checksum FROM _sqlx_migrations WHERE success")
                .fetch_all(&self.pool)
                .await
                .map_err(StoreError::unavailable("schema check"))?
                .into_iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect()
        } else {
            Vec::new()
        };
        for m in MIGRATOR
            .iter()
            .filter(|m| m.migration_type.is_up_migration())
        {
            match applied.iter().find(|(v, _)| *v == m.version) {
                None => {
                    return Err(StoreError::SchemaBehind(format!(
                        "migration {} ({}) is not applied",
                        m.version, m.description
                    )))
                }
                Some((_, sum)) if sum[..] != m.checksum[..] => {
                    return Err(StoreError::SchemaBehind(format!(
                        "migration {} ({}) was applied with a different checksum",
                        m.version, m.description
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Insert a critical event unless its ID is already recorded, with one
    /// pending delivery per handler when the row is new; then say which.
    /// One statement (atomic on its own), so one round trip when the row is
    /// new (the hot path).
    pub async fn record(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<Recorded, StoreError> {
        let inserted: i64 = sqlx::query_scalar(concat!(
            "WITH ins AS (
                 INSERT INTO processed_event
                     (provider, tenant, event_id, event_type, body_sha256, body, content_type)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (provider, tenant, event_id) DO NOTHING
                 RETURNING id
             ), deliveries AS (
                 INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type, body,
                                       state, next_attempt_ms, created_ms, updated_ms)
                 SELECT $1, $2, $3, h, $4, $7, $6, 'pending', ",
            now_ms!(),
            ", ",
            now_ms!(),
            ", ",
            now_ms!(),
            "
                 FROM unnest($8::text[]) AS h
                 WHERE EXISTS (SELECT 1 FROM ins)
                 ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING
             )
             SELECT COUNT(*) FROM ins"
        ))
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(ev.event_type())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
        .bind(handlers)
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("commit"))?;
        if inserted == 1 {
            return Ok(Recorded::Inserted);
        }
        // A separate statement: its snapshot sees the row even if it was
        // committed by a concurrent insert the INSERT above waited for.
        let body_sha256: Vec<u8> = sqlx::query_scalar(
            "SELECT body_sha256 FROM processed_event
             WHERE provider = $1 AND tenant = $2 AND event_id = $3",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("commit"))?;
        Ok(Recorded::Existing { body_sha256 })
    }

    pub async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO conflict_quarantine
                 (provider, tenant, event_id, event_type, body_sha256, body, content_type)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(ev.event_type())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
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

    /// (processed_event rows, quarantined rows).
    pub async fn counts(&self) -> Result<(u64, u64), StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM processed_event),
                    (SELECT COUNT(*) FROM conflict_quarantine)",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("inventory"))?;
        Ok((row.get::<i64, _>(0) as u64, row.get::<i64, _>(1) as u64))
    }

    pub async fn processed_event(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        let row = sqlx::query(
            "SELECT event_type, body_sha256, body FROM processed_event
             WHERE provider = $1 AND tenant = $2 AND event_id = $3",
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

/// The delivery queue.
impl PgStore {
    /// One pending delivery per handler for a non-critical event (critical
    /// events get theirs with their row in [`PgStore::record`]).
    pub async fn record_deliveries(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<(), StoreError> {
        sqlx::query(concat!(
            "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type, body,
                                   state, next_attempt_ms, created_ms, updated_ms)
             SELECT $1, $2, $3, h, $4, $5, $6, 'pending', ",
            now_ms!(),
            ", ",
            now_ms!(),
            ", ",
            now_ms!(),
            "
             FROM unnest($7::text[]) AS h
             ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING"
        ))
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(ev.event_type())
        .bind(ev.content_type())
        .bind(&ev.body()[..])
        .bind(handlers)
        .execute(&self.pool)
        .await
        .map_err(StoreError::unavailable("commit"))?;
        Ok(())
    }

    pub async fn lease_deliveries(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
    ) -> Result<Vec<Leased>, StoreError> {
        // SKIP LOCKED: concurrent workers each take different rows without
        // waiting on one another.
        let rows = sqlx::query(&format!(
            "UPDATE delivery SET lease_owner = $1, lease_until_ms = {NOW_MS} + $2
             WHERE id IN (SELECT id FROM delivery
                          WHERE state = 'pending' AND next_attempt_ms <= {NOW_MS}
                            AND (lease_until_ms IS NULL OR lease_until_ms <= {NOW_MS})
                          ORDER BY next_attempt_ms LIMIT $3
                          FOR UPDATE SKIP LOCKED)
             RETURNING {LEASED_COLUMNS}"
        ))
        .bind(owner)
        .bind(ms(lease))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("lease"))?;
        Ok(rows.iter().map(|r| leased!(r, i32)).collect())
    }

    pub async fn finish_delivery(
        &self,
        d: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        let (state, delay) = match next {
            Next::Delivered => (DeliveryState::Delivered, Duration::ZERO),
            Next::Dead => (DeliveryState::Dead, Duration::ZERO),
            Next::RetryIn(delay) => (DeliveryState::Pending, delay),
        };
        // One statement: the outcome and the attempt row land together, and
        // only while the lease is still ours.
        let owned: i64 = sqlx::query_scalar(concat!(
            "WITH upd AS (
                 UPDATE delivery SET state = $3, attempts = $4, next_attempt_ms = ",
            now_ms!(),
            " + $5,
                                     lease_owner = NULL, lease_until_ms = NULL, last_status = $6,
                                     last_error = $7, updated_ms = ",
            now_ms!(),
            "
                 WHERE id = $1 AND lease_owner = $2
                 RETURNING id
             ), att AS (
                 INSERT INTO delivery_attempt
                     (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
                 SELECT id, $4, $8, $6, $9, $10, $7 FROM upd
             )
             SELECT COUNT(*) FROM upd"
        ))
        .bind(d.id)
        .bind(owner)
        .bind(state.as_str())
        .bind(attempt.attempt as i32)
        .bind(ms(delay))
        .bind(attempt.status.map(i32::from))
        .bind(&attempt.error)
        .bind(attempt.started_ms)
        .bind(ms(attempt.latency))
        .bind(&attempt.response_body)
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("finish"))?;
        Ok(owned == 1)
    }

    pub async fn list_deliveries(
        &self,
        f: &DeliveryFilter,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        let mut q = sqlx::QueryBuilder::new(format!(
            "SELECT {DELIVERY_COLUMNS} FROM delivery WHERE TRUE"
        ));
        push_filter!(&mut q, f);
        q.push(" ORDER BY id LIMIT ")
            .push_bind(i64::from(f.limit.unwrap_or(100)));
        let rows = q
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::unavailable("list"))?;
        Ok(rows.iter().map(|r| delivery_view!(r, i32)).collect())
    }

    pub async fn delivery_attempts(
        &self,
        delivery_id: i64,
    ) -> Result<Vec<AttemptView>, StoreError> {
        let rows = sqlx::query(
            "SELECT attempt, started_ms, status, latency_ms, response_body, error
             FROM delivery_attempt WHERE delivery_id = $1 ORDER BY attempt, id",
        )
        .bind(delivery_id)
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("attempts"))?;
        Ok(rows.iter().map(|r| attempt_view!(r, i32)).collect())
    }

    /// Requeue matching deliveries, due now, attempts reset; rows a worker
    /// is holding right now are left alone.
    pub async fn requeue(&self, f: &DeliveryFilter) -> Result<u64, StoreError> {
        let mut q = sqlx::QueryBuilder::new(format!(
            "UPDATE delivery SET state = 'pending', attempts = 0, next_attempt_ms = {NOW_MS},
                                 updated_ms = {NOW_MS}
             WHERE NOT (state = 'pending' AND COALESCE(lease_until_ms > {NOW_MS}, FALSE))"
        ));
        push_filter!(&mut q, f);
        Ok(q.build()
            .execute(&self.pool)
            .await
            .map_err(StoreError::unavailable("requeue"))?
            .rows_affected())
    }

    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FILTER (WHERE state = 'pending'), COUNT(*) FILTER (WHERE state = 'dead')
             FROM delivery",
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
