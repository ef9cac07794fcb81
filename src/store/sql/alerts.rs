//! What the alert rules read and write, the same in both dialects: each
//! handler's oldest pending delivery, and the `alert_state` row that makes
//! one node of many send an alert (and its resolve) once.

use async_trait::async_trait;
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::{Dialect, Tables};
use crate::ids::HandlerName;
use crate::store::records::AlertStates;
use crate::store::StoreError;

#[async_trait]
impl<DB> AlertStates for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    (HandlerName, i64): for<'r> FromRow<'r, DB::Row>,
{
    /// Per handler with a pending delivery, when its oldest was created
    /// (ms since the epoch).
    async fn oldest_pending(&self) -> Result<Vec<(HandlerName, i64)>, StoreError> {
        sqlx::query_as(
            "SELECT handler, MIN(created_ms) FROM delivery WHERE state = 'pending'
             GROUP BY handler ORDER BY handler",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::sqlx("oldest_pending"))
    }

    /// Mark `rule` for `handler` firing at `now_ms`, if it was not firing
    /// and its last alert was sent at or before `quiet_since_ms`: `true`
    /// when this caller is the one to send the alert.
    async fn alert_fire(
        &self,
        rule: &str,
        handler: &HandlerName,
        now_ms: i64,
        quiet_since_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query::<DB>(
            "INSERT INTO alert_state (rule, handler, firing, sent_ms) VALUES ($1, $2, 1, $3)
             ON CONFLICT (rule, handler) DO UPDATE SET firing = 1, sent_ms = $3
             WHERE alert_state.firing = 0 AND alert_state.sent_ms <= $4",
        )
        .bind(rule)
        .bind(handler.as_str())
        .bind(now_ms)
        .bind(quiet_since_ms)
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("alert_state"))?;
        Ok(DB::rows_affected(&done) == 1)
    }

    /// Mark `rule` for `handler` resolved, if it was firing: `true` when
    /// this caller is the one to send the resolve.
    async fn alert_resolve(&self, rule: &str, handler: &HandlerName) -> Result<bool, StoreError> {
        let done = sqlx::query::<DB>(
            "UPDATE alert_state SET firing = 0 WHERE rule = $1 AND handler = $2 AND firing = 1",
        )
        .bind(rule)
        .bind(handler.as_str())
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("alert_state"))?;
        Ok(DB::rows_affected(&done) == 1)
    }
}
