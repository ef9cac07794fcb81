//! Keeps the planner's statistics of the hot tables current while they
//! grow fast.
//!
//! The group-committed statements are prepared once per connection, and
//! PostgreSQL caches a generic plan for each. A plan made while a table was
//! nearly empty (a new database, the first minutes of a deployment, a
//! pruned table) joins it by a sequential scan, and keeps doing so as it
//! grows, until an `ANALYZE` invalidates the plan. Autovacuum looks at most
//! once a minute (its naptime), by which time a table taking hundreds of
//! rows a second is scanned whole for every statement: `bench/NOTES.md`
//! measured the statement that records a critical event at 1.7 ms instead
//! of 0.27 ms after 30 s, and the answer's p99 at 13.5 ms instead of 3.7.
//!
//! So every few seconds the receiver analyzes each hot table that has
//! changed by more rows than it held at its last `ANALYZE` (and by at least
//! `MIN_CHANGES`): a handful of `ANALYZE`s while a table grows from empty,
//! then none once autovacuum's own threshold (10% by default) comes first.

use std::time::Duration;

use sqlx::PgPool;

/// The tables the per-request statements join (owned by hookline's role).
const TABLES: &[&str] = &["processed_event", "delivery", "delivery_attempt"];

/// How often the counters are read.
const EVERY: Duration = Duration::from_secs(2);

/// Changes below this never trigger an `ANALYZE`.
const MIN_CHANGES: i64 = 1000;

/// The hot tables that changed by more rows than they held when last
/// analyzed (`reltuples` is -1 before the first `ANALYZE`).
const STALE: &str = "SELECT s.relname::text
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema() AND s.relname = ANY($1)
       AND s.n_mod_since_analyze > GREATEST($2, c.reltuples::bigint)";

/// Run until the runtime ends. Failures are logged, never fatal: stale
/// statistics cost time, not correctness.
pub(super) fn keep_current(pool: PgPool) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(EVERY).await;
            let stale: Vec<String> = match sqlx::query_scalar(STALE)
                .bind(TABLES)
                .bind(MIN_CHANGES)
                .fetch_all(&pool)
                .await
            {
                Ok(stale) => stale,
                Err(e) => {
                    tracing::debug!(error = %e, "could not read table statistics");
                    continue;
                }
            };
            for table in stale {
                // A name from TABLES, as the catalog spells it.
                let Some(table) = TABLES.iter().find(|t| **t == table) else {
                    continue;
                };
                match sqlx::query(&format!("ANALYZE {table}"))
                    .execute(&pool)
                    .await
                {
                    Ok(_) => tracing::debug!(table, "analyzed a fast-growing table"),
                    Err(e) => tracing::warn!(table, error = %e, "could not analyze"),
                }
            }
        }
    });
}
