//! The lease loops: one per queue deliveries wait in (the `delivery`
//! table; Redis Streams when non-critical deliveries live there), each
//! leasing for the free worker slots and as many more (`ahead.rs`), and
//! passing what it leased on to wait for a slot. They share the slots and
//! the handlers' gates; each waits on its own queue's wake-ups, so a queue
//! with nothing in it costs one lease per `delivery.poll_interval`, not
//! one per lease of the other.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::{mpsc, Notify};
use tokio_util::sync::CancellationToken;

use super::ahead::{Slots, Waiting};
use super::Workers;
use crate::store::delivery::{LeaseFrom, Leased};
use crate::store::StoreError;

/// Longest wait for more free slots before leasing for fewer.
const LEASE_GATHER: Duration = Duration::from_millis(5);

/// How long the streams' lease loop lets appends gather once woken, so
/// that they share a lease: woken by each append and leasing at once, it
/// ran one lease script per delivery (four commands in Redis, a round trip
/// from a worker) at 3,000 deliveries/s (bench/NOTES.md, "Stream leases
/// that wait for company"). Nobody's answer waits on a lease.
const STREAMS_GATHER: Duration = Duration::from_millis(2);

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
        slots: &Slots,
        ahead: &mpsc::UnboundedSender<Waiting>,
        shutdown: &CancellationToken,
    ) {
        let wake = match queue {
            Queue::Table => self.wake.clone(),
            Queue::Streams => self.stream_wake.clone(),
        };
        // Under load, places free up one at a time; leasing for each alone
        // would cost a statement per delivery. So while deliveries are in
        // flight, wait (briefly) for a quarter of a slot's worth of places
        // to be free and lease for them together.
        let gather = (self.settings.concurrency / 4).max(1);
        let leased = &slots.leased;
        while !shutdown.is_cancelled() {
            let free = slots.free();
            if free < gather {
                // None free: wait for one. Some: wait a moment for more.
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    p = leased.acquire_many(if free == 0 { 1 } else { gather }) => drop(p),
                    _ = tokio::time::sleep(LEASE_GATHER), if free > 0 => {}
                }
                if free == 0 {
                    continue;
                }
            }
            // No more than the handlers have room for, in flight or
            // waiting for their places: what a lease takes beyond that goes
            // back to the queue, a round trip each.
            let mut free = slots.free();
            let room = self.gates.room();
            if let Some(room) = room {
                free = free.min(room);
            }
            if room == Some(0) {
                // Every handler is full or open: wait for an attempt to end
                // (or a cool-down to pass).
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = self.gates.freed() => {}
                    _ = tokio::time::sleep(self.settings.poll_interval) => {}
                }
                continue;
            }
            if free == 0 {
                // The hand-off took the places meanwhile.
                continue;
            }
            let only = self.gates.lease_only();
            let from = only.as_deref().map_or(LeaseFrom::Every, LeaseFrom::Only);
            let batch = self.lease(queue, free, from).await;
            if let (Queue::Table, Ok(batch)) = (queue, &batch) {
                self.backlog
                    .store(batch.len() as u32 >= free, Ordering::Relaxed);
            }
            // Fewer than asked for: the queue is empty now, and what is
            // appended next wakes the loop (a wake-up is kept until it is
            // waited for), so wait for it rather than lease again at once.
            let drained = match &batch {
                Ok(batch) => (batch.len() as u32) < free,
                Err(_) => false,
            };
            match batch {
                Ok(batch) if !batch.is_empty() => {
                    for d in batch {
                        // Its place was free when the lease was asked for
                        // (the hand-off may have taken it since: then it
                        // waits for the next one).
                        let place = leased.clone().acquire_owned().await.expect("never closed");
                        if ahead.send(Waiting::new(d, place)).is_err() {
                            // Stopping: its lease ends and any worker
                            // takes it.
                            break;
                        }
                    }
                    if queue == Queue::Streams && drained {
                        self.wait_for_appends(&wake, shutdown).await;
                    }
                }
                Ok(_) if queue == Queue::Streams => self.wait_for_appends(&wake, shutdown).await,
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

    /// Wait until this process appends to a stream (or a poll interval
    /// passes, for other nodes' appends and due retries), then let what
    /// follows gather for [`STREAMS_GATHER`]. Returns early on shutdown;
    /// the loop sees it.
    async fn wait_for_appends(&self, wake: &Notify, shutdown: &CancellationToken) {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = wake.notified() => {}
            _ = tokio::time::sleep(self.settings.poll_interval) => return,
        }
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(STREAMS_GATHER) => {}
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
