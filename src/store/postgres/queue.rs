//! The delivery queue in PostgreSQL: outcomes group-committed, new
//! deliveries handed off. Leases (`FOR UPDATE SKIP LOCKED`, a lease column
//! by the database clock) are shared with SQLite (`sql/queue.rs`).

use async_trait::async_trait;

use super::PgStore;
use crate::store::delivery::{AttemptRecord, Leased, Next, Outcome};
use crate::store::handoff::Handoff;
use crate::store::{DeliveryQueue, StoreError};

#[async_trait]
impl DeliveryQueue for PgStore {
    fn handoff(&self) -> Option<&Handoff> {
        Some(&self.handoff)
    }

    /// Group-committed with other workers' outcomes.
    async fn finish(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        self.outcomes
            .submit(Outcome::new(delivery, owner, attempt, next)?)
            .await
    }
}
