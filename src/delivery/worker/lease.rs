//! The lease loops: one per queue deliveries wait in (the `delivery`
//! table; Redis Streams when non-critical deliveries live there), each
//! leasing for the free worker slots and starting an attempt per delivery.
//! They share the slots and the handlers' gates; each waits on its own
//! queue's wake-ups, so a queue with nothing in it costs one lease per
//! `delivery.poll_interval`, not one per lease of the other.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::Workers;
use crate::store::delivery::{LeaseFrom, Leased};
use crate::store::StoreError;

/// Longest wait for more free slots before leasing for fewer.
const LEASE_GATHER: Duration = Duration::from_millis(5);

/// Where deliveries wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Queue {
    /// The `delivery` table.
    Table,
    /// Redis Streams (`store.non_critical_deliveries = "redis"`).
    Streams,
}

impl Workers {
    /// Lease from `queue` and start the attempts, until `shutdown`.
    pub(super) async fn lease_loop(
        &self,
        queue: Queue,
        slots: &Arc<Semaphore>,
        shutdown: &CancellationToken,
    ) {
        let wake = match queue {
            Queue::Table => self.wake.clone(),
            Queue::Streams => self.stream_wake.clone(),
        };
        // Under load, slots free up one at a time; leasing for each alone
        // would cost a statement per delivery. So while deliveries are in
        // flight, wait (briefly) for a quarter of the slots to be free and
        // lease for them together.
        let gather = (self.settings.concurrency / 4).max(1);
        while !shutdown.is_cancelled() {
            let free = slots.available_permits() as u32;
            if free < gather {
                // None free: wait for one. Some: wait a moment for more.
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    p = slots.acquire_many(if free == 0 { 1 } else { gather }) => drop(p),
                    _ = tokio::time::sleep(LEASE_GATHER), if free > 0 => {}
                }
                if free == 0 {
                    continue;
                }
            }
            // No more than the handlers have room for: what a lease takes
            // beyond that goes back to the queue, a round trip each.
            let mut free = slots.available_permits() as u32;
            if let Some(room) = self.gates.room() {
                free = free.min(room);
            }
            if free == 0 {
                // Every handler is full or open: wait for an attempt to end
                // (or a cool-down to pass).
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = self.gates.freed() => {}
                    _ = tokio::time::sleep(self.settings.poll_interval) => {}
                }
                continue;
            }
            let only = self.gates.lease_only();
            let from = only.as_deref().map_or(LeaseFrom::Every, LeaseFrom::Only);
            let leased = self.lease(queue, free, from).await;
            if let (Queue::Table, Ok(batch)) = (queue, &leased) {
                self.backlog
                    .store(batch.len() as u32 >= free, Ordering::Relaxed);
            }
            match leased {
                Ok(batch) if !batch.is_empty() => {
                    for d in batch {
                        // A lease can hold more for one handler than it
                        // has room for: those go back to the queue.
                        let Some(pass) = self.gates.enter(&d.handler) else {
                            if let Err(e) = self.store.give_back(&d, &self.owner).await {
                                tracing::warn!(error = %e.chain(), "could not hand a delivery back; it is due again after its lease");
                            }
                            continue;
                        };
                        let permit = slots.clone().acquire_owned().await.expect("never closed");
                        let me = self.clone();
                        tokio::spawn(async move { me.deliver(d, pass, permit).await });
                    }
                }
                Ok(_) => {
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep(self.settings.poll_interval) => {}
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e.chain(), store = self.store.failed(&e), "could not lease deliveries");
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = tokio::time::sleep(self.settings.poll_interval) => {}
                    }
                }
            }
        }
    }

    /// Lease up to `free` due deliveries from `queue`.
    async fn lease(
        &self,
        queue: Queue,
        free: u32,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        let (owner, lease) = (&*self.owner, self.settings.lease);
        match queue {
            Queue::Table => {
                self.store
                    .with_records("lease", move |r| r.lease(owner, free, lease, from))
                    .await
            }
            Queue::Streams => self.store.lease_streams(owner, free, lease, from).await,
        }
    }
}
