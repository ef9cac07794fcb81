//! Dead letters of the deliveries that wait in Redis Streams
//! (`store.non_critical_deliveries = "redis"`): once one has run out of
//! attempts it is written here, a `dead` row of the `delivery` table with
//! its last attempt, so operators find, inspect and requeue it as any
//! other dead letter (the console, `hookline dead-letters`, the
//! `dead_letters` alert). A requeued one is then delivered from this table.

use sha2::{Digest, Sha256};

use super::PgStore;
use crate::store::delivery::{AttemptRecord, Leased};
use crate::store::types::{ms, now_ms};
use crate::store::StoreError;

/// The row and its attempt in one statement; nothing if the handler already
/// has a row for this event (it was recorded in PostgreSQL before).
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
    SELECT id, $10, $17, $13, $18, $19, $14 FROM d
    RETURNING delivery_id";

impl PgStore {
    /// Keep the stream delivery `d` as a dead letter after its last
    /// `attempt`; false when the handler had a row for the event already
    /// (which then stands for it).
    pub(crate) async fn record_dead_letter(
        &self,
        d: &Leased,
        attempt: &AttemptRecord,
    ) -> Result<bool, StoreError> {
        let (response, error) = attempt.storable();
        let forwarded = (!d.forward_headers.is_empty())
            .then(|| serde_json::to_string(&d.forward_headers).expect("strings serialize"));
        let query = (!d.query.is_empty()).then_some(d.query.as_str());
        let inserted: Option<i64> = sqlx::query_scalar(RECORD_DEAD_LETTER)
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
            .fetch_optional(&self.tables.pool)
            .await
            .map_err(StoreError::sqlx("dead letter"))?;
        Ok(inserted.is_some())
    }
}
