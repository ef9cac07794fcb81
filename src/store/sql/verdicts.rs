//! The verdict log (`request_verdict`), in both dialects: written in
//! batches by [`crate::store::VerdictLog`], listed newest first by keyset,
//! pruned by age.

use async_trait::async_trait;
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::filter::{self, bind, Param};
use super::{Dialect, Tables};
use crate::store::listing::{VerdictEntry, VerdictFilter, VerdictListed, PRUNE_CHUNK};
use crate::store::records::VerdictRecords;
use crate::store::StoreError;

/// Columns an entry binds.
const COLUMNS: usize = 8;

#[async_trait]
impl<DB> VerdictRecords for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    VerdictListed: for<'r> FromRow<'r, DB::Row>,
{
    /// One multi-row insert for the whole batch.
    async fn log_verdicts(&self, entries: &[VerdictEntry]) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        let rows = (0..entries.len())
            .map(|r| {
                let cols = (1..=COLUMNS)
                    .map(|c| format!("${}", r * COLUMNS + c))
                    .collect::<Vec<_>>();
                format!("({})", cols.join(", "))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let statement = format!(
            "INSERT INTO request_verdict (provider, tenant, event_id, event_type, verdict,
                 body_sha256, body_bytes, received_ms) VALUES {rows}"
        );
        let mut query = sqlx::query::<DB>(&statement);
        for e in entries {
            query = query
                .bind(e.provider.as_str())
                .bind(e.tenant.as_str())
                .bind(e.event_id.as_str())
                .bind(e.event_type.as_str())
                .bind(e.verdict.as_str())
                .bind(&e.body_sha256[..])
                .bind(e.body_bytes)
                .bind(e.received_ms);
        }
        query
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("verdict log"))?;
        Ok(())
    }

    /// Verdicts newest first: each page a range scan of the primary key
    /// from the cursor.
    async fn list_verdicts(&self, f: &VerdictFilter) -> Result<Vec<VerdictListed>, StoreError> {
        let (conditions, params) = filter::verdicts(f);
        let statement = format!(
            "SELECT id, provider, tenant, event_id, event_type, verdict, body_sha256,
                    body_bytes, received_ms
             FROM request_verdict WHERE TRUE{conditions} ORDER BY id DESC LIMIT ${}",
            params.len() + 1
        );
        bind!(sqlx::query_as::<DB, VerdictListed>(&statement), params)
            .bind(i64::from(f.event.limit.unwrap_or(100)))
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::sqlx("list"))
    }

    /// Drop at most [`PRUNE_CHUNK`] entries received before `before_ms`
    /// (one short statement: a long prune never holds the embedded
    /// store's single writer for long); how many went.
    async fn prune_verdicts(&self, before_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query::<DB>(
            "DELETE FROM request_verdict WHERE id IN
                 (SELECT id FROM request_verdict WHERE received_ms < $1 LIMIT $2)",
        )
        .bind(before_ms)
        .bind(PRUNE_CHUNK as i64)
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("verdict prune"))?;
        Ok(DB::rows_affected(&done))
    }
}
