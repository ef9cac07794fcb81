//! Recording a delivery attempt on SQLite, in the write lane's
//! transaction (`writes.rs`) with whatever else was queued: two statements
//! sent as one.

use sqlx::SqliteConnection;

use crate::store::delivery::{DeliveryState, Next, Outcome};
use crate::store::types::{ms, now_ms};

/// Record an attempt and its consequence, if its owner still holds the
/// lease. Returns whether it did.
pub(super) async fn record(tx: &mut SqliteConnection, o: &Outcome) -> Result<bool, sqlx::Error> {
    let now = now_ms();
    let (state, next_ms) = match o.next {
        Next::Delivered => (DeliveryState::Delivered, now),
        Next::Dead => (DeliveryState::Dead, now),
        Next::RetryIn(delay) => (DeliveryState::Pending, now + ms(delay)),
    };
    let (response_body, error) = o.attempt.storable();
    // One call to SQLite's thread for both statements: the attempt row is
    // written only if the UPDATE took the row (`changes()`).
    let written = sqlx::query(
        "UPDATE delivery SET state = $3, attempts = $4, next_attempt_ms = $5, lease_owner = NULL,
                             lease_until_ms = NULL, last_status = $6, last_error = $7,
                             updated_ms = $8
         WHERE id = $1 AND lease_owner = $2;
         INSERT INTO delivery_attempt
             (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
         SELECT $1, $4, $9, $6, $10, $11, $7 WHERE changes() = 1",
    )
    .bind(o.delivery_id)
    .bind(&o.owner)
    .bind(state.as_str())
    .bind(i64::from(o.attempt.attempt))
    .bind(next_ms)
    .bind(o.attempt.status.map(i64::from))
    .bind(error.as_deref())
    .bind(now)
    .bind(o.attempt.started_ms)
    .bind(ms(o.attempt.latency))
    .bind(&response_body)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    // 2 when both were written; 0 when another worker holds the lease now
    // (its outcome counts, not ours).
    Ok(written == 2)
}
