//! PostgreSQL: the durable truth of the `redis` store. `processed_event`
//! holds every critical event exactly once, ever; `conflict_quarantine`
//! keeps requests that reused an event ID with a different body.

use std::str::FromStr;

use secrecy::ExposeSecret;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;

use super::{ProcessedEvent, StoreError};
use crate::config::StoreSettings;
use crate::provider::VerifiedWebhook;

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

    /// Insert a critical event unless its ID is already recorded; then say
    /// which. One round trip when the row is new (the hot path).
    pub async fn record(&self, ev: &VerifiedWebhook) -> Result<Recorded, StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO processed_event
                 (provider, tenant, event_id, event_type, body_sha256, body, content_type)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (provider, tenant, event_id) DO NOTHING",
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
        .map_err(StoreError::unavailable("commit"))?
        .rows_affected();
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
