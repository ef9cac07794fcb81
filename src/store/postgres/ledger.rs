//! Recording events in PostgreSQL: the writes go through the group commit,
//! the lookups are the statements shared with SQLite.

use super::batch::{PendingEvent, Recorded};
use super::PgStore;
use crate::provider::VerifiedWebhook;
use crate::store::sql::OtherBody;
use crate::store::types::{EventKey, ProcessedEvent, QuarantinedCopy};
use crate::store::StoreError;

impl PgStore {
    /// Insert a critical event unless its ID is already recorded, with one
    /// pending delivery per handler when the row is new; then say which.
    /// Group-committed with concurrent requests' events.
    pub(crate) async fn record(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<Recorded, StoreError> {
        self.records.submit(PendingEvent::new(ev, handlers)).await
    }

    /// Whether this body is recorded under another event ID within the
    /// provider's window: the durable half of the body key of a provider
    /// with `replay_guard = "body"`, for when Redis has lost the key. (Run
    /// before the insert, not in it: two replays of one body racing while
    /// Redis is empty can both pass; with Redis up, its body key
    /// serialises them.)
    pub(crate) async fn body_recorded_elsewhere(
        &self,
        ev: &VerifiedWebhook,
    ) -> Result<bool, StoreError> {
        sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM processed_event
                            WHERE provider = $1 AND tenant = $2 AND body_sha256 = $3
                              AND event_id <> $4
                              AND received_at > now() - make_interval(secs => $5))",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(&ev.body_sha256()[..])
        .bind(ev.event_id())
        .bind(ev.provider().window.as_secs_f64())
        .fetch_one(&self.tables.pool)
        .await
        .map_err(StoreError::sqlx("commit"))
    }

    /// One pending delivery per handler for an event that gets no new row
    /// (non-critical, or `ack = "handlers"` before the commit), unless the
    /// event is recorded with another body: then that body, and nothing is
    /// written. Group-committed.
    pub(crate) async fn record_deliveries(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<Option<OtherBody>, StoreError> {
        self.deliveries
            .submit(PendingEvent::new(ev, handlers))
            .await
    }

    pub(crate) async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        self.tables.quarantine(ev).await
    }

    /// The shared tables, for statements written once for both dialects.
    pub(crate) fn tables(&self) -> &crate::store::sql::Tables<sqlx::Postgres> {
        &self.tables
    }

    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        self.tables.ping().await
    }

    /// (processed_event rows, quarantined requests).
    pub(crate) async fn counts(&self) -> Result<(u64, u64), StoreError> {
        self.tables.counts().await
    }

    pub(crate) async fn processed_event(
        &self,
        key: &EventKey,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        self.tables.processed_event(key).await
    }

    pub(crate) async fn quarantined(
        &self,
        key: &EventKey,
    ) -> Result<Vec<QuarantinedCopy>, StoreError> {
        self.tables.quarantined(key).await
    }
}
