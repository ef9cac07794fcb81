//! Recording a delivery attempt on SQLite, in the write lane's
//! transaction (`writes.rs`) with whatever else was queued.

use rusqlite::Connection;

use super::stmt;
use crate::store::delivery::{DeliveryState, Next, Outcome};
use crate::store::types::{ms, now_ms};

/// Record an attempt and its consequence, if its owner still holds the
/// lease. Returns whether it did.
pub(super) fn record(db: &Connection, o: &Outcome) -> rusqlite::Result<bool> {
    let now = now_ms();
    let (state, next_ms) = match o.next {
        Next::Delivered => (DeliveryState::Delivered, now),
        Next::Dead => (DeliveryState::Dead, now),
        Next::RetryIn(delay) => (DeliveryState::Pending, now + ms(delay)),
    };
    let (response_body, error) = o.attempt.storable();
    let status = o.attempt.status.map(i64::from);
    let attempt = i64::from(o.attempt.attempt);
    let taken = stmt::execute(
        db,
        "UPDATE delivery SET state = $3, attempts = $4, next_attempt_ms = $5, lease_owner = NULL,
                             lease_until_ms = NULL, last_status = $6, last_error = $7,
                             updated_ms = $8
         WHERE id = $1 AND lease_owner = $2",
        &[
            &o.delivery_id,
            &o.owner,
            &state.as_str(),
            &attempt,
            &next_ms,
            &status,
            &error.as_deref(),
            &now,
        ],
    )?;
    if taken == 0 {
        // Another worker holds the lease now: its outcome counts, not ours.
        return Ok(false);
    }
    stmt::execute(
        db,
        "INSERT INTO delivery_attempt
             (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &o.delivery_id,
            &attempt,
            &o.attempt.started_ms,
            &status,
            &ms(o.attempt.latency),
            &response_body,
            &error.as_deref(),
        ],
    )?;
    Ok(true)
}
