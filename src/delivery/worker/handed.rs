//! The store's hand-off: a delivery a receiver of this process records
//! can be leased to these workers in its recording statement, and is then
//! attempted as soon as it is recorded, without waiting for a lease loop.

use std::sync::atomic::Ordering;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::ahead::{AheadPlace, Slot, Slots, Waiting};
use super::Workers;
use crate::delivery::gate::{Parked, Pass};
use crate::store::handoff::{Handed, Ticket};

impl Workers {
    /// Attach to the store's hand-off: a delivery a receiver of this
    /// process records is leased to these workers in its recording
    /// statement when the queue has no backlog and the workers are not
    /// stopping. With a slot and its handler's place free now (taken then),
    /// it is attempted as soon as it is recorded; with a slot free but its
    /// handler full, it waits for the handler's place (`Gates::park`, if
    /// fewer than twice the handler's limit wait already); with every slot busy
    /// but a place ahead free ([`AheadPlace`]) and its handler's circuit
    /// closed, it waits for a slot like a delivery leased ahead.
    pub(super) fn attach(
        &self,
        slots: &Slots,
        shutdown: &CancellationToken,
    ) -> Option<mpsc::UnboundedReceiver<Handed>> {
        let handoff = self.store.handoff()?;
        let (slots, gates, backlog) = (slots.clone(), self.gates.clone(), self.backlog.clone());
        let shutdown = shutdown.clone();
        let take = move |handler: &str| -> Option<Ticket> {
            if shutdown.is_cancelled() || backlog.load(Ordering::Relaxed) {
                return None;
            }
            match AheadPlace::try_take(&slots)?.into_slot(&slots) {
                Ok(slot) => match gates.enter(handler) {
                    Some(pass) => Some(Box::new((pass, slot))),
                    // Full: it waits for its handler's place, if fewer
                    // than twice its limit wait already.
                    None => {
                        let parked = gates.park(handler)?;
                        Some(Box::new((AheadPlace::of_slot(slot), parked)))
                    }
                },
                Err(place) if gates.takes_calls(handler) => Some(Box::new(place)),
                Err(_) => None,
            }
        };
        handoff.attach(self.owner.clone(), self.settings.lease, Box::new(take))
    }

    /// Attempt the deliveries handed off, each as soon as it arrives (or
    /// once a slot is free, for those handed off ahead).
    pub(super) async fn take_handed(
        self,
        mut rx: mpsc::UnboundedReceiver<Handed>,
        ahead: mpsc::UnboundedSender<Waiting>,
        slots: Slots,
        shutdown: CancellationToken,
    ) {
        while let Some((d, ticket)) = rx.recv().await {
            let ticket = match ticket.downcast::<AheadPlace>() {
                Ok(place) => {
                    self.queue_ahead(&ahead, place.waiting(d));
                    continue;
                }
                Err(ticket) => ticket,
            };
            let ticket = match ticket.downcast::<(AheadPlace, Parked)>() {
                Ok(waits) => {
                    let (place, parked) = *waits;
                    let (me, slots, shutdown) = (self.clone(), slots.clone(), shutdown.clone());
                    tokio::spawn(me.wait_for_place(place.waiting(d), parked, slots, shutdown));
                    continue;
                }
                Err(ticket) => ticket,
            };
            let Ok(room) = ticket.downcast::<(Pass, Slot)>() else {
                continue;
            };
            let (pass, slot) = *room;
            let me = self.clone();
            tokio::spawn(async move {
                // The crash matrix's point: handed off, answered, not
                // attempted (the wait lets the 2xx go out first).
                delay_point!("before_handed_attempt");
                crash_point!("after_handoff");
                me.deliver(d, pass, slot).await;
            });
        }
    }
}
