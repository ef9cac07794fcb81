//! Leasing ahead: a lease may take, beyond the free worker slots, as many
//! deliveries again as there are slots, which wait here (in lease order)
//! for a slot to come free. A lease is a statement (or a script) whose
//! answer under load takes longer than an attempt to a fast handler: with
//! leases only for the slots free when each starts, the slots that came
//! free during a lease stayed idle until the next one, and the workers
//! delivered about 2,000 events/s to a handler answering in 0.7 ms
//! (`bench/NOTES.md`, "Leasing ahead"). With a lease's worth waiting here,
//! a slot that comes free takes the next delivery at once.
//!
//! One whose handler is full once a slot is free gives the slot up and
//! waits for the handler's next place instead (`Workers::wait_for_place`,
//! `Gates::park`), so the other handlers' deliveries go on meanwhile.
//!
//! What waits here is leased to this process like a delivery in flight:
//! if the process dies, its lease ends and any worker takes it again. One
//! that waited so long that its attempt might outlast its lease, or whose
//! handler cannot take it (its circuit opened, or twice its limit wait for
//! its places already), goes back to its queue unattempted, due at once.
//! On shutdown what waits goes back the same way.
//!
//! A receiver's hand-off takes such a place too when every slot is busy
//! ([`AheadPlace`]), or when a slot is free but its handler is full: the
//! delivery is leased by the statement that records it, as a hand-off to
//! a free slot is, and waits here.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::Workers;
use crate::delivery::gate::Parked;
use crate::store::delivery::{Leased, Place};

/// How long a leased delivery may wait for a slot: what its lease holds
/// beyond its handler's timeout, so that its attempt still ends within the
/// lease, but at least half the lease (a lease no longer than the timeout
/// would otherwise send every delivery back before its attempt).
fn longest_wait(lease: Duration, timeout: Duration) -> Duration {
    lease.saturating_sub(timeout).max(lease / 2)
}

/// The workers' room: attempts in flight (`delivery.concurrency`), and
/// places for the deliveries this process holds leased, in flight or
/// waiting for a slot (twice as many).
#[derive(Clone)]
pub(super) struct Slots {
    /// One permit per attempt in flight.
    pub(super) calls: Arc<Semaphore>,
    /// One permit per leased delivery not yet attempted or being attempted.
    pub(super) leased: Arc<Semaphore>,
    concurrency: u32,
}

/// One attempt's room: its call and its leased place, freed together.
pub(super) struct Slot {
    _call: OwnedSemaphorePermit,
    leased: OwnedSemaphorePermit,
}

impl Slots {
    pub(super) fn new(concurrency: u32) -> Slots {
        Slots {
            calls: Arc::new(Semaphore::new(concurrency as usize)),
            leased: Arc::new(Semaphore::new(concurrency as usize * 2)),
            concurrency,
        }
    }

    /// Places a lease may fill now.
    pub(super) fn free(&self) -> u32 {
        self.leased.available_permits() as u32
    }

    /// Wait until nothing is leased or in flight (bounded by the caller).
    pub(super) async fn all_free(&self) {
        drop(self.leased.acquire_many(self.concurrency * 2).await);
    }
}

/// A leased delivery waiting for a slot.
pub(super) struct Waiting {
    d: Leased,
    leased: OwnedSemaphorePermit,
    since: Instant,
}

impl Waiting {
    pub(super) fn new(d: Leased, leased: OwnedSemaphorePermit) -> Waiting {
        Waiting {
            d,
            leased,
            since: Instant::now(),
        }
    }
}

/// A hand-off's room: a place among the deliveries this process holds
/// leased, taken before the statement that records (and leases) the
/// delivery. With a call free too it is the delivery's [`Slot`]; with
/// every slot busy it is where the delivery waits, its wait counted from
/// before its lease began. Before the places ahead, a receiver's
/// deliveries under load found no free slot, and each cost a lease
/// statement besides its insert (`bench/NOTES.md`, "Handed off ahead").
pub(super) struct AheadPlace {
    leased: OwnedSemaphorePermit,
    since: Instant,
}

impl AheadPlace {
    pub(super) fn try_take(slots: &Slots) -> Option<AheadPlace> {
        let leased = slots.leased.clone().try_acquire_owned().ok()?;
        Some(AheadPlace {
            leased,
            since: Instant::now(),
        })
    }

    /// Room for an attempt now, if a call is free too (the hand-off's
    /// check); otherwise the place, to wait in.
    pub(super) fn into_slot(self, slots: &Slots) -> Result<Slot, AheadPlace> {
        match slots.calls.clone().try_acquire_owned() {
            Ok(call) => Ok(Slot {
                _call: call,
                leased: self.leased,
            }),
            Err(_) => Err(self),
        }
    }

    /// The place of a slot whose call is not needed now (its handler is
    /// full): the delivery waits with it.
    pub(super) fn of_slot(slot: Slot) -> AheadPlace {
        AheadPlace {
            leased: slot.leased,
            since: Instant::now(),
        }
    }

    /// The delivery recorded with this place, now waiting for a slot.
    pub(super) fn waiting(self, d: Leased) -> Waiting {
        Waiting {
            d,
            leased: self.leased,
            since: self.since,
        }
    }
}

impl Workers {
    /// Start each waiting delivery as a slot comes free, in lease order,
    /// until `shutdown`; then give back what still waits.
    pub(super) async fn start_waiting(
        self,
        mut rx: mpsc::UnboundedReceiver<Waiting>,
        slots: Slots,
        shutdown: CancellationToken,
    ) {
        loop {
            let w = tokio::select! {
                _ = shutdown.cancelled() => break,
                w = rx.recv() => match w { Some(w) => w, None => return },
            };
            let call = tokio::select! {
                _ = shutdown.cancelled() => {
                    self.give_back(w.d, w.leased);
                    break;
                }
                p = slots.calls.clone().acquire_owned() => p.expect("never closed"),
            };
            let Waiting { d, leased, since } = w;
            if self.wait_left(&d, since).is_zero() {
                self.give_back(d, leased);
                continue;
            }
            let pass = match self.gates.enter(&d.handler) {
                Some(pass) => pass,
                None => {
                    // Its handler is full: wait for its place without the
                    // slot, or (its circuit open, or enough waiting for it
                    // already) go back to the queue.
                    drop(call);
                    match self.gates.park(&d.handler) {
                        Some(parked) => {
                            let w = Waiting { d, leased, since };
                            let me = self.clone();
                            tokio::spawn(me.wait_for_place(
                                w,
                                parked,
                                slots.clone(),
                                shutdown.clone(),
                            ));
                        }
                        None => self.give_back(d, leased),
                    }
                    continue;
                }
            };
            let slot = Slot {
                _call: call,
                leased,
            };
            let me = self.clone();
            tokio::spawn(async move { me.deliver(d, pass, slot).await });
        }
        rx.close();
        while let Ok(w) = rx.try_recv() {
            self.give_back(w.d, w.leased);
        }
    }

    /// How much longer `d`, waiting since `since`, may wait before its
    /// attempt: [`longest_wait`] for its handler's timeout, less the wait
    /// so far (zero: it goes back).
    fn wait_left(&self, d: &Leased, since: Instant) -> Duration {
        let timeout = self
            .handlers
            .get(d.handler.as_str())
            .map_or(Duration::ZERO, |h| h.timeout);
        longest_wait(self.settings.lease, timeout).saturating_sub(since.elapsed())
    }

    /// A leased delivery whose handler is full: attempted once a place
    /// there is its and then a slot, or handed back if that takes longer
    /// than its lease leaves ([`longest_wait`]), its circuit opens, or the
    /// workers stop.
    pub(super) async fn wait_for_place(
        self,
        w: Waiting,
        parked: Parked,
        slots: Slots,
        shutdown: CancellationToken,
    ) {
        let Waiting { d, leased, since } = w;
        let wait = self.wait_left(&d, since);
        let pass = tokio::select! {
            _ = shutdown.cancelled() => None,
            p = tokio::time::timeout(wait, parked.enter()) => p.ok().flatten(),
        };
        let Some(pass) = pass else {
            self.give_back(d, leased);
            return;
        };
        let call = tokio::select! {
            _ = shutdown.cancelled() => None,
            c = slots.calls.clone().acquire_owned() => c.ok(),
        };
        let Some(call) = call else {
            self.give_back(d, leased);
            return;
        };
        let slot = Slot {
            _call: call,
            leased,
        };
        self.deliver(d, pass, slot).await;
    }

    /// Queue a handed-off delivery to wait for a slot; if the workers no
    /// longer take any (stopping), it goes back to its queue at once.
    pub(super) fn queue_ahead(&self, ahead: &mpsc::UnboundedSender<Waiting>, w: Waiting) {
        if let Err(mpsc::error::SendError(w)) = ahead.send(w) {
            self.give_back(w.d, w.leased);
        }
    }

    /// Hand a delivery back to its queue unattempted, and wake that
    /// queue's lease loop: it is due at once. Its place (`leased`) is freed
    /// once it is back, so the workers' shutdown waits for it.
    pub(super) fn give_back(&self, d: Leased, leased: OwnedSemaphorePermit) {
        // Labels only from configured names.
        if let Some(h) = self.handlers.get(d.handler.as_str()) {
            let handed_back = &self.metrics.handed_back;
            handed_back.with_label_values(&[h.name.as_str()]).inc();
        }
        let me = self.clone();
        tokio::spawn(async move {
            let _leased = leased;
            if let Err(e) = me.store.give_back(&d, &me.owner).await {
                tracing::warn!(error = %e.chain(), delivery = d.name(), "could not hand a delivery back; it is due again after its lease");
            }
            match d.place {
                Place::Stream(_) => me.stream_wake.notify_one(),
                _ => me.wake.notify_one(),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_waits_no_longer_than_its_attempt_leaves_of_the_lease() {
        let s = Duration::from_secs;
        // The defaults: a 60 s lease, a 10 s timeout.
        assert_eq!(longest_wait(s(60), s(10)), s(50));
        // A lease barely above the timeout, or below it: half the lease.
        assert_eq!(longest_wait(s(3), s(2)), Duration::from_millis(1500));
        assert_eq!(longest_wait(s(2), s(10)), s(1));
    }
}
