//! The delivery queue in PostgreSQL: leased with `FOR UPDATE SKIP LOCKED`
//! and a lease column by the database clock, outcomes group-committed.

use std::time::Duration;

use async_trait::async_trait;

use super::PgStore;
use crate::store::delivery::{
    AttemptRecord, AttemptView, DeliveryFilter, DeliveryView, HandlerDepth, LeaseFrom, Leased,
    Next, Outcome, QueueDepth,
};
use crate::store::handoff::Handoff;
use crate::store::{DeliveryQueue, StoreError};

#[async_trait]
impl DeliveryQueue for PgStore {
    fn handoff(&self) -> Option<&Handoff> {
        Some(&self.handoff)
    }

    async fn lease(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        self.tables.lease(owner, limit, lease, from).await
    }

    async fn give_back(&self, delivery: &Leased, owner: &str) -> Result<(), StoreError> {
        self.tables.give_back(delivery, owner).await
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
            .submit(Outcome::new(delivery, owner, attempt, next))
            .await
    }

    async fn list(&self, filter: &DeliveryFilter) -> Result<Vec<DeliveryView>, StoreError> {
        self.tables.list(filter).await
    }

    async fn attempts(&self, delivery_id: i64) -> Result<Vec<AttemptView>, StoreError> {
        self.tables.attempts(delivery_id).await
    }

    async fn payload(&self, delivery_id: i64) -> Result<Option<Leased>, StoreError> {
        self.tables.payload(delivery_id).await
    }

    async fn requeue(&self, filter: &DeliveryFilter) -> Result<u64, StoreError> {
        self.tables.requeue(filter).await
    }

    async fn depth(&self) -> Result<QueueDepth, StoreError> {
        self.tables.depth().await
    }

    async fn count(&self, filter: &DeliveryFilter) -> Result<u64, StoreError> {
        self.tables.count(filter).await
    }

    async fn depth_by_handler(&self) -> Result<Vec<HandlerDepth>, StoreError> {
        self.tables.depth_by_handler().await
    }

    async fn oldest_pending(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.tables.oldest_pending().await
    }

    async fn alert_fire(
        &self,
        rule: &str,
        handler: &str,
        now_ms: i64,
        quiet_since_ms: i64,
    ) -> Result<bool, StoreError> {
        self.tables
            .alert_fire(rule, handler, now_ms, quiet_since_ms)
            .await
    }

    async fn alert_resolve(&self, rule: &str, handler: &str) -> Result<bool, StoreError> {
        self.tables.alert_resolve(rule, handler).await
    }
}
