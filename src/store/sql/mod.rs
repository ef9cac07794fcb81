//! What PostgreSQL and SQLite share: the tables (`processed_event`,
//! `conflict_quarantine`, `held_event`, `delivery`, `delivery_attempt`) and every
//! statement both dialects can run as written. Each backend keeps apart
//! only what its dialect forces: SQLite's dedup table and one-transaction
//! writes (`embedded/`), PostgreSQL's group-committed `unnest` batches
//! (`postgres/`).
//!
//! Statements use `$N` placeholders, which both drivers bind by number.

mod alerts;
mod filter;
mod handshakes;
mod held;
mod ledger;
pub(crate) mod migrations;
mod queue;
mod rows;
mod sessions;
mod verdicts;

pub(crate) use ledger::{other_body, OtherBody, OtherBodyRow, OTHER_BODY};

use sqlx::{Database, Pool, Postgres, Sqlite};

/// What differs between the dialects inside otherwise shared statements.
pub(crate) trait Dialect: Database {
    /// Milliseconds since the Unix epoch, read when evaluated. PostgreSQL's
    /// clock is the database's, so workers on different hosts agree on
    /// leases; SQLite's is the host's (there is one host).
    const NOW_MS: &'static str;
    /// The same clock read once for the whole statement, so an index can
    /// use it as a bound.
    const STATEMENT_MS: &'static str;
    /// Row locking for a lease: concurrent workers take different rows
    /// without waiting on one another. SQLite has one writer at a time.
    const SKIP_LOCKED: &'static str;
    /// The current time as the dialect stores a timestamp column.
    const NOW_TIMESTAMP: &'static str;
    /// `id IN (...)` over a subquery of row IDs, `{}` standing for it.
    /// PostgreSQL's is an array, whose members it looks up by the primary
    /// key whatever the table's size: its generic plan of `IN (...)` was a
    /// hash join over the whole table while the table looked small.
    const ID_IN: &'static str;

    /// Rows a statement changed (sqlx has no trait for it).
    fn rows_affected(result: &Self::QueryResult) -> u64;
}

impl Dialect for Postgres {
    const NOW_MS: &'static str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    const STATEMENT_MS: &'static str = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";
    const SKIP_LOCKED: &'static str = "FOR UPDATE SKIP LOCKED";
    const NOW_TIMESTAMP: &'static str = "now()";
    const ID_IN: &'static str = "id = ANY(ARRAY({}))";

    fn rows_affected(result: &Self::QueryResult) -> u64 {
        result.rows_affected()
    }
}

impl Dialect for Sqlite {
    // 'now' is fixed for the duration of one statement in SQLite.
    const NOW_MS: &'static str = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
    const STATEMENT_MS: &'static str = Self::NOW_MS;
    const SKIP_LOCKED: &'static str = "";
    const NOW_TIMESTAMP: &'static str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
    const ID_IN: &'static str = "id IN ({})";

    fn rows_affected(result: &Self::QueryResult) -> u64 {
        result.rows_affected()
    }
}

/// The shared tables of one database: the [`crate::store::RecordStore`],
/// its statements in this module's files, written once for both dialects.
#[derive(Debug)]
pub(crate) struct Tables<DB: Database> {
    pub(crate) pool: Pool<DB>,
}

impl<DB: Database> Tables<DB> {
    pub(crate) fn new(pool: Pool<DB>) -> Self {
        Tables { pool }
    }
}

// By hand: a derive would ask `DB: Clone`, which the marker types are not.
impl<DB: Database> Clone for Tables<DB> {
    fn clone(&self) -> Self {
        Tables {
            pool: self.pool.clone(),
        }
    }
}
