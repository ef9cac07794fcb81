//! The embedded store: one SQLite file holds the dedup state and the durable
//! records, so a single node runs with nothing else installed.
//!
//! SQLite has one writer at a time; the pool has one connection so every
//! transition is a short transaction that never waits on a lock upgrade.

mod checkpoint;
mod dedup;
mod deliveries;
pub mod owner;
mod queue;
mod replay;
mod stmt;
mod writes;

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Sqlite;

use self::writes::{Lane, Shared, Write, Written};
use super::delivery::{AttemptRecord, Leased, Next, Outcome};
use super::handoff::Handoff;
use super::sql::Tables;
use super::types::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, Inventory, OneStep, OwnerToken,
    RecordOutcome,
};
use super::{DeliveryQueue, IngestStore, OpenError, RecordStore, StoreError};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// What the embedded store needs from the configuration.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// The SQLite file; created with its directory.
    pub path: PathBuf,
    /// How long a statement waits for the file's lock, and for the pool.
    pub timeout: Duration,
}

#[derive(Debug, Clone)]
pub struct EmbeddedStore {
    tables: Tables<Sqlite>,
    /// Deliveries recorded and leased in one transaction, for this
    /// process's workers.
    handoff: Handoff,
    /// Claims, commits and outcomes, group-committed (`writes.rs`,
    /// `batching/lane.rs`).
    lane: Lane,
    /// Keeps the background WAL checkpoints going (`checkpoint.rs`).
    _checkpoints: std::sync::Arc<checkpoint::Alive>,
    /// The migrations opening the file applied, as `VERSION description`.
    migrated: Vec<String>,
}

impl EmbeddedStore {
    /// The migrations [`open`](Self::open) applied, as `VERSION
    /// description`; none when the file was up to date.
    pub fn migrated(&self) -> &[String] {
        &self.migrated
    }

    /// Open (creating it and its directory if needed) and migrate the file.
    pub async fn open(opts: &EmbeddedOptions) -> Result<Self, OpenError> {
        if let Some(dir) = opts.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| OpenError::Connect {
                what: "embedded store's directory",
                source: Box::new(e),
            })?;
        }
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(OpenError::connect("embedded store"))?
            .filename(&opts.path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a committed acceptance survives power loss, not only a
            // killed process.
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(opts.timeout)
            .foreign_keys(true)
            // Checkpoints are taken off the one connection (`checkpoint.rs`).
            .pragma("wal_autocheckpoint", "0")
            .pragma("journal_size_limit", checkpoint::KEEP_BYTES.to_string());
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(opts.timeout)
            .connect_with(options.clone())
            .await
            .map_err(OpenError::connect("embedded store"))?;
        let migrated = crate::store::sql::migrations::apply(&MIGRATOR, &pool).await?;
        let handoff = Handoff::default();
        let checkpoints = checkpoint::start(options);
        Ok(EmbeddedStore {
            lane: Lane::start(
                pool.clone(),
                Shared {
                    handoff: handoff.clone(),
                    restart: checkpoints.restart.clone(),
                },
            )
            .map_err(|e| OpenError::Connect {
                what: "embedded store's write lane",
                source: Box::new(e),
            })?,
            tables: Tables::new(pool),
            handoff,
            _checkpoints: checkpoints.alive,
            migrated,
        })
    }

    fn pool(&self) -> &SqlitePool {
        &self.tables.pool
    }
}

/// The lane answers each write with its own kind; anything else is a bug.
fn mismatched(op: &'static str, answer: Written) -> StoreError {
    StoreError::internal(op, format!("the write lane answered {answer:?}"))
}

#[async_trait]
impl IngestStore for EmbeddedStore {
    fn records(&self) -> &dyn RecordStore {
        &self.tables
    }

    async fn claim(
        &self,
        ev: &VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    ) -> Result<ClaimOutcome, StoreError> {
        match self
            .lane
            .write(Write::Claim {
                ev: ev.clone(),
                owner,
                ttl,
            })
            .await?
        {
            Written::Claim(outcome) => Ok(outcome),
            other => Err(mismatched("claim", other)),
        }
    }

    /// One write of the lane: the claim, and the commit if it took the key.
    async fn claim_committed(
        &self,
        ev: &VerifiedWebhook,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<Option<OneStep>, StoreError> {
        match self
            .lane
            .write(Write::ClaimCommit {
                ev: ev.clone(),
                window,
                handlers: handlers.iter().map(|h| (*h).clone()).collect(),
            })
            .await?
        {
            Written::Claim(outcome) => Ok(Some(OneStep::Claim(outcome))),
            Written::Commit(outcome) => Ok(Some(OneStep::Commit(outcome))),
            other => Err(mismatched("claim", other)),
        }
    }

    async fn commit(
        &self,
        ev: &VerifiedWebhook,
        owner: &OwnerToken,
        window: Duration,
        handlers: &[&HandlerName],
    ) -> Result<CommitOutcome, StoreError> {
        match self
            .lane
            .write(Write::Commit {
                ev: ev.clone(),
                owner: *owner,
                window,
                handlers: handlers.iter().map(|h| (*h).clone()).collect(),
            })
            .await?
        {
            Written::Commit(outcome) => Ok(outcome),
            other => Err(mismatched("commit", other)),
        }
    }

    async fn record_pending(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<RecordOutcome, StoreError> {
        match self
            .lane
            .write(Write::Record {
                ev: ev.clone(),
                handlers: handlers.iter().map(|h| (*h).clone()).collect(),
            })
            .await?
        {
            Written::Record(outcome) => Ok(outcome),
            other => Err(mismatched("deliveries", other)),
        }
    }

    async fn release(&self, ev: &VerifiedWebhook, owner: &OwnerToken) -> Result<(), StoreError> {
        dedup::release(self.pool(), ev, owner).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.tables.ping().await
    }

    async fn purge_expired(&self) -> Result<u64, StoreError> {
        dedup::purge_expired(self.pool()).await
    }

    async fn inventory(&self) -> Result<Inventory, StoreError> {
        let (processed_events, quarantined) = self.tables.counts().await?;
        Ok(Inventory {
            dedup_keys: dedup::count(self.pool()).await?,
            processed_events,
            quarantined,
        })
    }

    async fn dedup_record(&self, key: &EventKey) -> Result<DedupRecord, StoreError> {
        dedup::record(self.pool(), key).await
    }
}

#[async_trait]
impl DeliveryQueue for EmbeddedStore {
    fn handoff(&self) -> Option<&Handoff> {
        Some(&self.handoff)
    }

    async fn finish(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        match self
            .lane
            .write(Write::Outcome(Outcome::new(
                delivery, owner, attempt, next,
            )?))
            .await?
        {
            Written::Outcome(owned) => Ok(owned),
            other => Err(mismatched("finish", other)),
        }
    }
}
