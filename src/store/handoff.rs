//! Hand-off: the deliveries a receiver has just recorded go to this
//! process's workers in memory, leased to them by the very statement that
//! records them. Each such delivery then costs no lease statement (and no
//! wake-up of the lease loop): only its insert, shared with the event's
//! own write, and its outcome.
//!
//! Nothing about recovery changes. A handed-off delivery is a row like any
//! other, leased to this process's worker owner until `delivery.lease`
//! after it was recorded: if the process dies before the outcome is
//! written, the lease ends and any worker's lease query takes the row, as
//! for a delivery leased the ordinary way. The lease query stays for that,
//! for retries, and for what was recorded without a hand-off (a process
//! with no workers, or workers with no free slot, or a handler that was
//! full or whose circuit was open).
//!
//! The workers attach a [`Take`]: asked per delivery before the statement,
//! it returns a [`Ticket`] (a free worker slot and a place at the handler)
//! or nothing. Only the deliveries with a ticket are leased in the
//! statement, so a handed-off delivery never waits in memory for room: it
//! is attempted as soon as its statement has committed.

use std::any::Any;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::{mpsc, Notify};

use super::delivery::{Leased, Place};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;

/// Room for one attempt, taken before the statement; the workers' own
/// type. Dropped unused (the delivery was not inserted, the statement
/// failed), it gives the room back.
pub type Ticket = Box<dyn Any + Send>;

/// The workers' check for room: a ticket for one attempt to `handler`, or
/// `None`.
pub type Take = Box<dyn Fn(&str) -> Option<Ticket> + Send + Sync>;

/// A delivery handed to the workers, with the room taken for it.
pub type Handed = (Leased, Ticket);

struct Attached {
    owner: Arc<str>,
    lease: Duration,
    take: Take,
    tx: mpsc::UnboundedSender<Handed>,
}

#[derive(Default)]
struct Inner {
    attached: OnceLock<Attached>,
    /// Woken when deliveries were recorded that no worker of this process
    /// was handed: the lease loop looks for them.
    queued: Arc<Notify>,
}

/// Shared by a backend and its clones; the workers attach to it once.
#[derive(Clone, Default)]
pub struct Handoff(Arc<Inner>);

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("attached", &self.0.attached.get().is_some())
            .finish()
    }
}

impl Handoff {
    /// Attach this process's workers: deliveries are leased to `owner` for
    /// `lease` when `take` gives a ticket, and arrive on the returned
    /// channel once recorded. `None` if workers are attached already.
    pub fn attach(
        &self,
        owner: Arc<str>,
        lease: Duration,
        take: Take,
    ) -> Option<mpsc::UnboundedReceiver<Handed>> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.0
            .attached
            .set(Attached {
                owner,
                lease,
                take,
                tx,
            })
            .ok()
            .map(|_| rx)
    }

    /// What the lease loop waits on for deliveries recorded without a
    /// hand-off (and operators' requeues).
    pub fn waker(&self) -> Arc<Notify> {
        self.0.queued.clone()
    }

    /// Deliveries were recorded that no worker was handed.
    pub(crate) fn queued(&self) {
        self.0.queued.notify_one();
    }

    /// The owner and lease a hand-off statement writes; `None` when no
    /// workers are attached.
    pub(crate) fn lease(&self) -> Option<(&str, Duration)> {
        self.0.attached.get().map(|a| (&*a.owner, a.lease))
    }

    /// Room for one attempt to `handler` now, if the workers have it.
    pub(crate) fn reserve(&self, handler: &str) -> Option<Ticket> {
        self.0.attached.get().and_then(|a| (a.take)(handler))
    }

    /// Reserve for each of `handlers`.
    pub(crate) fn reserve_all(&self, handlers: &[HandlerName]) -> Vec<Option<Ticket>> {
        handlers.iter().map(|h| self.reserve(h)).collect()
    }

    /// Hand a delivery, leased in its recording statement and committed,
    /// to the workers. If they have stopped, its lease ends and the lease
    /// query takes it.
    pub(crate) fn hand(&self, leased: Leased, ticket: Ticket) {
        if let Some(a) = self.0.attached.get() {
            if a.tx.send((leased, ticket)).is_err() {
                tracing::debug!("workers stopped; a recorded delivery waits for its lease to end");
            }
        }
    }
}

/// A delivery just recorded for `ev` (row `id`), as a lease would return
/// it, built from the event in hand.
pub(crate) fn handed(
    ev: &VerifiedWebhook,
    id: i64,
    handler: &HandlerName,
    created_ms: i64,
) -> Leased {
    Leased {
        place: Place::Row(id),
        provider: (*ev.provider().name).clone(),
        tenant: ev.tenant().clone(),
        event_id: ev.event_id().clone(),
        handler: handler.clone(),
        event_type: ev.event_type().clone(),
        content_type: ev.content_type().map(str::to_owned),
        body: ev.body().clone(),
        attempts: 0,
        created_ms,
        forward_headers: ev.forwarded_headers().to_vec(),
        trace_parent: ev.trace_parent().map(str::to_owned),
        query: ev.query().to_owned(),
        handed: true,
    }
}
