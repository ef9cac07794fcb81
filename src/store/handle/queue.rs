//! The delivery queue's calls on [`Store`]: leases and outcomes for the
//! workers, listings and requeues for the operators, alert state for the
//! alert rules; each bounded by `store.timeout` like every call.

use std::time::Duration;

use super::Store;
use crate::ids::HandlerName;
use crate::store::delivery::{
    AttemptRecord, AttemptView, DeliveryFilter, DeliveryView, HandlerDepth, LeaseFrom, Leased,
    Next, QueueDepth,
};
use crate::store::StoreError;

impl Store {
    pub async fn lease_deliveries(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        self.bounded("lease", self.records().lease(owner, limit, lease, from))
            .await
    }

    pub async fn give_back_delivery(
        &self,
        delivery: &Leased,
        owner: &str,
    ) -> Result<(), StoreError> {
        self.bounded("lease", self.records().give_back(delivery, owner))
            .await
    }

    pub async fn finish_delivery(
        &self,
        delivery: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        self.bounded("finish", self.queue.finish(delivery, owner, attempt, next))
            .await
    }

    pub async fn list_deliveries(
        &self,
        filter: &DeliveryFilter,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        self.bounded("list", self.records().list(filter)).await
    }

    pub async fn delivery_attempts(
        &self,
        delivery_id: i64,
    ) -> Result<Vec<AttemptView>, StoreError> {
        self.bounded("attempts", self.records().attempts(delivery_id))
            .await
    }

    pub async fn requeue(&self, filter: &DeliveryFilter) -> Result<u64, StoreError> {
        self.bounded("requeue", self.records().requeue(filter))
            .await
    }

    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        self.bounded("depth", self.records().depth()).await
    }

    pub async fn delivery_payload(&self, delivery_id: i64) -> Result<Option<Leased>, StoreError> {
        self.bounded("payload", self.records().payload(delivery_id))
            .await
    }

    pub async fn count_deliveries(&self, filter: &DeliveryFilter) -> Result<u64, StoreError> {
        self.bounded("count", self.records().count(filter)).await
    }

    pub async fn depth_by_handler(&self) -> Result<Vec<HandlerDepth>, StoreError> {
        self.bounded("depth", self.records().depth_by_handler())
            .await
    }

    /// See [`AlertStates::oldest_pending`](crate::store::AlertStates::oldest_pending).
    pub async fn oldest_pending(&self) -> Result<Vec<(HandlerName, i64)>, StoreError> {
        self.bounded("oldest_pending", self.records().oldest_pending())
            .await
    }

    /// See [`AlertStates::alert_fire`](crate::store::AlertStates::alert_fire).
    pub async fn alert_fire(
        &self,
        rule: &str,
        handler: &HandlerName,
        now_ms: i64,
        quiet_since_ms: i64,
    ) -> Result<bool, StoreError> {
        self.bounded(
            "alert_state",
            self.records()
                .alert_fire(rule, handler, now_ms, quiet_since_ms),
        )
        .await
    }

    /// See [`AlertStates::alert_resolve`](crate::store::AlertStates::alert_resolve).
    pub async fn alert_resolve(
        &self,
        rule: &str,
        handler: &HandlerName,
    ) -> Result<bool, StoreError> {
        self.bounded("alert_state", self.records().alert_resolve(rule, handler))
            .await
    }
}
