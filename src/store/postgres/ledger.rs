//! Recording events in PostgreSQL: the writes go through the group commit,
//! the lookups are the statements shared with SQLite.

use super::batch::{PendingEvent, Recorded};
use super::PgStore;
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::sql::OtherBody;
use crate::store::StoreError;

impl PgStore {
    /// Insert a critical event unless its ID is already recorded, with one
    /// pending delivery per handler when the row is new; then say which.
    /// Group-committed with concurrent requests' events.
    pub(crate) async fn record(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<Recorded, StoreError> {
        self.records
            .submit(PendingEvent::new(ev, handlers, &self.handoff))
            .await
    }

    /// One pending delivery per handler for an event that gets no new row
    /// (non-critical, or `ack = "handlers"` before the commit), unless the
    /// event is recorded with another body: then that body, and nothing is
    /// written. Group-committed.
    pub(crate) async fn record_deliveries(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> Result<Option<OtherBody>, StoreError> {
        self.deliveries
            .submit(PendingEvent::new(ev, handlers, &self.handoff))
            .await
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
}
