//! Events held as suspected replays (`held_event`), in both dialects: a
//! body its provider signs without the event ID, accepted under one ID and
//! seen again under another within the replay window. Held, counted,
//! listed, and released to the handlers by an operator; never dropped.

use async_trait::async_trait;
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::{Dialect, Tables};
use crate::provider::VerifiedWebhook;
use crate::store::records::HeldEvents;
use crate::store::types::{EventKey, HeldEvent};
use crate::store::StoreError;

/// Why an event is held.
pub(crate) const SUSPECTED_REPLAY: &str = "suspected_replay";

#[async_trait]
impl<DB> HeldEvents for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    HeldEvent: for<'r> FromRow<'r, DB::Row>,
{
    /// Hold `ev`: a new record, or one more copy of one already held under
    /// its event ID (the provider retrying what it was answered).
    async fn hold(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO held_event (provider, tenant, event_id, event_type, reason, body_sha256,
                                     body, content_type, forwarded, query)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (provider, tenant, event_id) DO UPDATE
                 SET copies = held_event.copies + 1,
                     last_seen_at = excluded.last_seen_at",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant().as_str())
        .bind(ev.event_id().as_str())
        .bind(ev.event_type().as_str())
        .bind(SUSPECTED_REPLAY)
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
        .bind(ev.forwarded_json())
        .bind(ev.stored_query())
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("hold"))?;
        Ok(())
    }

    /// The held record of one event, released or not.
    async fn held(&self, key: &EventKey) -> Result<Option<HeldEvent>, StoreError> {
        sqlx::query_as(
            "SELECT provider, tenant, event_id, event_type, reason, body_sha256, body,
                    content_type, forwarded, query, copies, first_seen_at, last_seen_at, released_at
             FROM held_event WHERE provider = $1 AND tenant = $2 AND event_id = $3",
        )
        .bind(key.provider.as_str())
        .bind(key.tenant.as_str())
        .bind(key.event_id.as_str())
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::sqlx("lookup"))
    }

    /// Mark a held event released (its deliveries are recorded); whether
    /// it was held and not released before.
    async fn mark_released(&self, key: &EventKey) -> Result<bool, StoreError> {
        let done = sqlx::query(&format!(
            "UPDATE held_event SET released_at = {now}
             WHERE provider = $1 AND tenant = $2 AND event_id = $3 AND released_at IS NULL",
            now = DB::NOW_TIMESTAMP
        ))
        .bind(key.provider.as_str())
        .bind(key.tenant.as_str())
        .bind(key.event_id.as_str())
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("release"))?;
        Ok(DB::rows_affected(&done) == 1)
    }
}
