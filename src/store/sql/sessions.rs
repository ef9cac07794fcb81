//! Console sessions (`console_session`), in both dialects: in the shared
//! store, so every node knows a session whichever node opened it.

use async_trait::async_trait;
use sqlx::{Encode, Executor, IntoArguments, Type};

use super::{Dialect, Tables};
use crate::store::records::Sessions;
use crate::store::StoreError;

/// Sessions kept at most; opening one past it drops the soonest to expire
/// (only token holders open sessions: this bounds a careless script).
const MAX_SESSIONS: i64 = 1000;

#[async_trait]
impl<DB> Sessions for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    /// Keep a session (expired ones, and the excess, go first).
    async fn open_session(
        &self,
        id_sha256: &[u8],
        csrf: &str,
        expires_ms: i64,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query::<DB>("DELETE FROM console_session WHERE expires_ms <= $1")
            .bind(now_ms)
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("session"))?;
        sqlx::query::<DB>(
            "DELETE FROM console_session WHERE id_sha256 NOT IN
                 (SELECT id_sha256 FROM console_session ORDER BY expires_ms DESC LIMIT $1)",
        )
        .bind(MAX_SESSIONS - 1)
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("session"))?;
        sqlx::query::<DB>(
            "INSERT INTO console_session (id_sha256, csrf, expires_ms) VALUES ($1, $2, $3)",
        )
        .bind(id_sha256)
        .bind(csrf)
        .bind(expires_ms)
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("session"))?;
        Ok(())
    }

    /// The CSRF token of a live session.
    async fn find_session(
        &self,
        id_sha256: &[u8],
        now_ms: i64,
    ) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT csrf FROM console_session WHERE id_sha256 = $1 AND expires_ms > $2",
        )
        .bind(id_sha256)
        .bind(now_ms)
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::sqlx("session"))?;
        Ok(row.map(|(csrf,)| csrf))
    }

    async fn close_session(&self, id_sha256: &[u8]) -> Result<(), StoreError> {
        sqlx::query::<DB>("DELETE FROM console_session WHERE id_sha256 = $1")
            .bind(id_sha256)
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("session"))?;
        Ok(())
    }
}
