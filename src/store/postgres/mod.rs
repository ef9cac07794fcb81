//! PostgreSQL: the durable truth of the `redis` store. `processed_event`
//! holds every critical event exactly once, ever; `conflict_quarantine`
//! keeps requests that reused an event ID with a different body; `delivery`
//! is the queue the workers lease from.
//!
//! `ledger.rs` records events, `queue.rs` serves the workers, `batch.rs`
//! group-commits the writes of concurrent requests, `sql.rs` holds the
//! PostgreSQL-only statements, `stats.rs` keeps the planner's statistics
//! current; the rest is shared with SQLite (`sql/`).

mod batch;
mod dead;
mod ledger;
mod queue;
mod sql;
mod stats;

use std::str::FromStr;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Executor, Postgres};

use self::batch::{DeliveryBatch, OutcomeBatch, RecordBatch};
use super::batching::GroupCommit;
use super::handoff::Handoff;
use super::sql::Tables;
use super::OpenError;

pub(crate) use self::batch::Recorded;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// What the PostgreSQL half needs from the configuration.
#[derive(Clone)]
pub struct PgOptions {
    /// May carry a password: never shown.
    pub url: Option<SecretString>,
    pub pool_size: u32,
    /// Group-committed receiver statements in flight, per kind of write.
    pub write_concurrency: u32,
    /// Longest wait for a connection (and for the first one at start-up).
    pub timeout: Duration,
    /// Extra trusted roots (`[tls] ca_file`) when the URL names no
    /// `sslrootcert`.
    pub ca_file: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone)]
pub struct PgStore {
    tables: Tables<Postgres>,
    /// Critical events (with their deliveries), group-committed.
    records: GroupCommit<RecordBatch>,
    /// Deliveries recorded without a new row, group-committed.
    deliveries: GroupCommit<DeliveryBatch>,
    /// Delivery outcomes, group-committed.
    outcomes: GroupCommit<OutcomeBatch>,
    /// Deliveries recorded and leased in one statement, for this process's
    /// workers.
    handoff: Handoff,
}

/// Delivery outcome statements in flight at once. A worker holds a slot
/// until its outcome is committed, so one statement at a time caps
/// deliveries at a batch per commit latency (bench/NOTES.md: 780/s and a
/// backlog that did not drain, against 1,212/s and drained in 33 s with
/// four): a quarter of the pool carries them.
fn outcomes_in_flight(opts: &PgOptions) -> usize {
    (opts.pool_size as usize / 4).max(opts.write_concurrency as usize)
}

/// The connection options `url` names, with `[tls] ca_file` as the root
/// bundle when the URL names no `sslrootcert` (`sslmode` and `sslrootcert`
/// in the URL are honoured as libpq does).
fn connect_options(
    url: &SecretString,
    ca_file: Option<&std::path::Path>,
) -> Result<PgConnectOptions, OpenError> {
    // The URL may carry a password: never echo it or the parser's view of
    // it in an error.
    let options = PgConnectOptions::from_str(url.expose_secret())
        .map_err(|_| OpenError::Setting {
            key: "store.database_url",
            reason: "is not a valid PostgreSQL URL",
        })?
        .application_name("hookline");
    Ok(match ca_file {
        Some(ca) if !url.expose_secret().contains("sslrootcert") => options.ssl_root_cert(ca),
        _ => options,
    })
}

/// Every statement of this pool runs a generic plan. The group-committed
/// statements take their rows as arrays, and for those the planner kept
/// choosing a custom plan, so each call was planned afresh: planning cost
/// more than executing (`bench/NOTES.md`, "Planning"). Forced generic,
/// the PostgreSQL time per call of the delivery and outcome statements
/// halved. A generic plan is made again whenever `ANALYZE` changes a
/// table's statistics, which `stats.rs` keeps current as tables grow.
const GENERIC_PLANS: &str = "SET plan_cache_mode = force_generic_plan";

/// Most writes in one group-committed statement.
const MAX_BATCH_ROWS: usize = 128;

impl PgStore {
    /// Open the pool. Establishes one connection, so a wrong URL or a down
    /// server is reported at start-up rather than on the first webhook.
    pub async fn open(opts: &PgOptions) -> Result<Self, OpenError> {
        let url = opts.url.as_ref().ok_or(OpenError::Setting {
            key: "store.database_url",
            reason: "is not set",
        })?;
        let options = connect_options(url, opts.ca_file.as_deref())?;
        let pool = PgPoolOptions::new()
            .max_connections(opts.pool_size)
            // A full pool or a dead server must not hold a request longer
            // than any other store call.
            .acquire_timeout(opts.timeout)
            // No ping before every acquire: it would double the round trips
            // of a critical event. A connection that died with the server
            // fails one statement (a 503 the provider retries) and is dropped.
            .test_before_acquire(false)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    // A server older than PostgreSQL 12 has no such setting
                    // and plans as before.
                    if let Err(e) = conn.execute(GENERIC_PLANS).await {
                        tracing::debug!(error = %e, "plan_cache_mode not set");
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .map_err(OpenError::connect("PostgreSQL database"))?;
        // Receiver statements in flight at once per kind of write. The
        // fewer, the more writes each carries under load (bench/NOTES.md:
        // one at a time gave the most rows per second); a lone write still
        // goes out at once. The rest of the pool serves the workers and the
        // operators' queries.
        let in_flight = opts.write_concurrency as usize;
        Ok(PgStore {
            records: GroupCommit::start(pool.clone(), MAX_BATCH_ROWS, in_flight),
            deliveries: GroupCommit::start(pool.clone(), MAX_BATCH_ROWS, in_flight),
            outcomes: GroupCommit::start(pool.clone(), MAX_BATCH_ROWS, outcomes_in_flight(opts)),
            tables: Tables::new(pool),
            handoff: Handoff::default(),
        })
    }

    fn pool(&self) -> &PgPool {
        &self.tables.pool
    }

    /// Keep the planner's statistics of the hot tables current while they
    /// grow fast (`stats.rs`); for a serving process.
    pub(crate) fn keep_statistics(&self) {
        stats::keep_current(self.pool().clone());
    }

    /// Apply pending migrations (`hookline migrate`); the ones applied
    /// now, as `VERSION description`.
    pub async fn migrate(&self) -> Result<Vec<String>, OpenError> {
        crate::store::sql::migrations::apply(&MIGRATOR, self.pool()).await
    }

    /// Create the database `url` names if it does not exist, through the
    /// server's `postgres` database, when the role may. `Some(name)` when
    /// it was created.
    pub async fn ensure_database(
        url: &SecretString,
        ca_file: Option<&std::path::Path>,
    ) -> Result<Option<String>, OpenError> {
        use sqlx::Connection;
        let options = connect_options(url, ca_file)?;
        let missing = match sqlx::PgConnection::connect_with(&options).await {
            Ok(conn) => {
                let _ = conn.close().await;
                return Ok(None);
            }
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("3D000") => true,
            Err(e) => return Err(OpenError::connect("PostgreSQL database")(e)),
        };
        debug_assert!(missing);
        let name = options.get_database().unwrap_or("postgres").to_owned();
        let mut admin = sqlx::PgConnection::connect_with(&options.clone().database("postgres"))
            .await
            .map_err(OpenError::connect("PostgreSQL server's postgres database"))?;
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        match sqlx::query(&format!("CREATE DATABASE {quoted}"))
            .execute(&mut admin)
            .await
        {
            Ok(_) => Ok(Some(name)),
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42P04") => Ok(None),
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42501") => {
                Err(OpenError::CannotCreate { name })
            }
            Err(e) => Err(OpenError::connect("PostgreSQL server's postgres database")(
                e,
            )),
        }
    }

    /// Refuse a schema that is behind this binary: every embedded migration
    /// must be applied, successfully, with the same checksum. Newer
    /// migrations in the database are tolerated (a rolling upgrade applies
    /// them before the old binaries stop).
    pub async fn check_schema(&self) -> Result<(), OpenError> {
        let check = OpenError::connect("PostgreSQL database for the schema check");
        let table: Option<String> =
            sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations')::text")
                .fetch_one(self.pool())
                .await
                .map_err(check)?;
        let applied: Vec<(i64, Vec<u8>)> = if table.is_some() {
            sqlx::query_as("SELECT version, checksum FROM _sqlx_migrations WHERE success")
                .fetch_all(self.pool())
                .await
                .map_err(OpenError::connect(
                    "PostgreSQL database for the schema check",
                ))?
        } else {
            Vec::new()
        };
        for m in MIGRATOR
            .iter()
            .filter(|m| m.migration_type.is_up_migration())
        {
            match applied.iter().find(|(v, _)| *v == m.version) {
                None => {
                    return Err(OpenError::SchemaBehind(format!(
                        "migration {} ({}) is not applied",
                        m.version, m.description
                    )))
                }
                Some((_, sum)) if sum[..] != m.checksum[..] => {
                    return Err(OpenError::SchemaBehind(format!(
                        "migration {} ({}) was applied with a different checksum",
                        m.version, m.description
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}
