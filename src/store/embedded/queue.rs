//! Recording a delivery attempt on SQLite: one transaction per outcome
//! (SQLite has no data-modifying CTEs to batch them as PostgreSQL does).

use sqlx::SqlitePool;

use crate::store::delivery::{AttemptRecord, DeliveryState, Leased, Next};
use crate::store::types::{ms, now_ms};
use crate::store::StoreError;

/// Record an attempt and its consequence, if `owner` still holds the
/// lease. Returns whether it did.
pub(super) async fn finish(
    pool: &SqlitePool,
    d: &Leased,
    owner: &str,
    attempt: &AttemptRecord,
    next: Next,
) -> Result<bool, StoreError> {
    let op = "finish";
    let now = now_ms();
    let (state, next_ms) = match next {
        Next::Delivered => (DeliveryState::Delivered, now),
        Next::Dead => (DeliveryState::Dead, now),
        Next::RetryIn(delay) => (DeliveryState::Pending, now + ms(delay)),
    };
    let (response_body, error) = attempt.storable();
    let mut tx = pool
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(StoreError::sqlx(op))?;
    let owned = sqlx::query(
        "UPDATE delivery SET state = $3, attempts = $4, next_attempt_ms = $5, lease_owner = NULL,
                             lease_until_ms = NULL, last_status = $6, last_error = $7,
                             updated_ms = $8
         WHERE id = $1 AND lease_owner = $2",
    )
    .bind(d.id)
    .bind(owner)
    .bind(state.as_str())
    .bind(i64::from(attempt.attempt))
    .bind(next_ms)
    .bind(attempt.status.map(i64::from))
    .bind(error.as_deref())
    .bind(now)
    .execute(&mut *tx)
    .await
    .map_err(StoreError::sqlx(op))?
    .rows_affected();
    if owned == 0 {
        // Another worker holds it now: its outcome counts, not ours.
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO delivery_attempt
             (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(d.id)
    .bind(i64::from(attempt.attempt))
    .bind(attempt.started_ms)
    .bind(attempt.status.map(i64::from))
    .bind(ms(attempt.latency))
    .bind(&response_body)
    .bind(error.as_deref())
    .execute(&mut *tx)
    .await
    .map_err(StoreError::sqlx(op))?;
    tx.commit().await.map_err(StoreError::sqlx(op))?;
    Ok(true)
}
