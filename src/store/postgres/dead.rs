//! Dead letters of the deliveries that wait in Redis Streams
//! (`store.non_critical_deliveries = "redis"`): once one has run out of
//! attempts it is written here, a `dead` row of the `delivery` table with
//! the attempts its entry kept and its last, so operators find, inspect
//! and requeue it as any other dead letter (the console, `hookline
//! dead-letters`, the `dead_letters` alert). A requeued one is then
//! delivered from this table.

use sha2::{Digest, Sha256};

use super::PgStore;
use crate::store::delivery::{AttemptRecord, Leased, Place};
use crate::store::types::{ms, now_ms};
use crate::store::StoreError;

/// The row and its attempts in one statement (those its entry kept, `$20`
/// as a JSON array, then the last); nothing if the handler already has a
/// row for this event (it was recorded in PostgreSQL before).
const RECORD_DEAD_LETTER: &str = "
    WITH d AS (
        INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type,
                              body, body_sha256, forward_headers, state, attempts,
                              next_attempt_ms, created_ms, updated_ms, last_status, last_error,
                              trace_parent, query)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'dead', $10, $11, $12, $11, $13, $14,
                $15, $16)
        ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING
        RETURNING id
    )
    INSERT INTO delivery_attempt
        (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
    SELECT d.id, k.attempt, k.started_ms, k.status, k.latency_ms, NULL, k.error
    FROM d, jsonb_to_recordset($20::jsonb)
        AS k(attempt INTEGER, started_ms BIGINT, status INTEGER, latency_ms BIGINT, error TEXT)
    UNION ALL
    SELECT id, $10, $17, $13, $18, $19, $14 FROM d
    RETURNING delivery_id";

impl PgStore {
    /// Keep the stream delivery `d` as a dead letter, with the attempts
    /// its entry kept and its last, `attempt`; false when the handler had
    /// a row for the event already (which then stands for it).
    pub(crate) async fn record_dead_letter(
        &self,
        d: &Leased,
        attempt: &AttemptRecord,
    ) -> Result<bool, StoreError> {
        let (response, error) = attempt.storable();
        let forwarded = (!d.forward_headers.is_empty())
            .then(|| serde_json::to_string(&d.forward_headers).expect("strings serialize"));
        let query = (!d.query.is_empty()).then_some(d.query.as_str());
        let kept = match &d.place {
            Place::Stream(entry) => &entry.attempts[..],
            Place::Row(_) => &[],
        };
        let kept = serde_json::to_string(kept).expect("attempts serialize");
        let inserted: Vec<i64> = sqlx::query_scalar(RECORD_DEAD_LETTER)
            .bind(d.provider.as_str())
            .bind(d.tenant.as_str())
            .bind(d.event_id.as_str())
            .bind(d.handler.as_str())
            .bind(d.event_type.as_str())
            .bind(d.content_type.as_deref())
            .bind(&d.body[..])
            .bind(&Sha256::digest(&d.body)[..])
            .bind(forwarded)
            .bind(attempt.attempt as i32)
            .bind(now_ms())
            .bind(d.created_ms)
            .bind(attempt.status.map(i32::from))
            .bind(error)
            .bind(d.trace_parent.as_deref())
            .bind(query)
            .bind(attempt.started_ms)
            .bind(ms(attempt.latency))
            .bind(response)
            .bind(kept)
            .fetch_all(&self.tables.pool)
            .await
            .map_err(StoreError::sqlx("dead letter"))?;
        Ok(!inserted.is_empty())
    }
}
