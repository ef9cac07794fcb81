//! Isolation between handlers: each has an in-flight limit
//! (`handlers.NAME.concurrency`) and a circuit breaker. A handler whose
//! circuit is open, or that is full with as many deliveries again waiting
//! for its places, is left out of the next lease, so its deliveries stay
//! queued (nothing is dropped or dead-lettered for it) and the workers'
//! slots go to the other handlers.
//!
//! A delivery leased for a full handler waits for its place ([`Parked`]),
//! up to twice the handler's limit of them, without holding a worker slot:
//! a place that comes free goes to the longest waiting at once. Before, each
//! went back to its queue (a statement) and waited for the next lease, and
//! a handler limited to 4 calls, answering at once, took 759-945
//! deliveries/s (`bench/NOTES.md`, "Deliveries that wait for their
//! handler's place").
//!
//! The breaker: `delivery.circuit_failures` failed attempts in a row (no
//! answer, a timeout, 408, 429 or 5xx; a 4xx is an answer) open it for
//! `delivery.circuit_cooldown`; then one delivery probes it. A probe that
//! succeeds closes it; one that fails opens it again for twice as long, up
//! to [`MAX_COOLDOWN`]. Per worker process, in memory: a restart closes it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::{DeliverySettings, Handler};
use crate::ids::HandlerName;

/// The longest an open circuit waits before probing again.
pub const MAX_COOLDOWN: Duration = Duration::from_secs(300);

#[derive(Debug, Default)]
struct State {
    /// Deliveries waiting for a place ([`Parked`]).
    parked: u32,
    /// Failed attempts in a row.
    failures: u32,
    /// Open until then; a probe may go after it.
    open_until: Option<Instant>,
    /// How long the circuit was open last time (doubles per failed probe).
    cooldown: Duration,
    /// The one attempt let through a half-open circuit is under way.
    probing: bool,
}

#[derive(Debug)]
struct Gate {
    limit: u32,
    /// One permit per attempt in flight; a place freed goes to the longest
    /// waiting [`Parked`] delivery first.
    places: Arc<Semaphore>,
    state: Mutex<State>,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn in_flight(&self) -> u32 {
        self.limit
            .saturating_sub(self.places.available_permits() as u32)
    }

    /// Deliveries a lease may take for this handler now: a place in flight
    /// or among those waiting for one, each up to its limit; one for a
    /// half-open circuit's probe; none while it is open or probing.
    fn lease_room(&self, now: Instant) -> u32 {
        let s = self.lock();
        match s.open_until {
            _ if !s.takes_calls(now) => 0,
            Some(_) => 1,
            None => (2 * self.limit).saturating_sub(self.in_flight() + s.parked),
        }
    }

    /// Neither open nor half-open with its probe under way (full or not).
    fn takes_calls(&self, now: Instant) -> bool {
        self.lock().takes_calls(now)
    }
}

impl State {
    fn takes_calls(&self, now: Instant) -> bool {
        // Closed, or half-open with no probe under way yet.
        self.open_until.is_none_or(|t| now >= t && !self.probing)
    }
}

/// Every handler's gate.
#[derive(Debug, Clone)]
pub struct Gates {
    gates: Arc<BTreeMap<HandlerName, Gate>>,
    /// Told when an attempt ends and its handler has room again.
    freed: Arc<tokio::sync::Notify>,
    failures: u32,
    cooldown: Duration,
}

/// Whether a circuit is open, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Circuit {
    Closed,
    Open,
}

impl Gates {
    pub fn new(
        handlers: &BTreeMap<HandlerName, Arc<Handler>>,
        settings: &DeliverySettings,
    ) -> Self {
        let gates = handlers
            .iter()
            .map(|(name, h)| {
                let limit = h.concurrency.max(1);
                let gate = Gate {
                    limit,
                    places: Arc::new(Semaphore::new(limit as usize)),
                    state: Mutex::default(),
                };
                (name.clone(), gate)
            })
            .collect();
        Gates {
            gates: Arc::new(gates),
            freed: Arc::default(),
            failures: settings.circuit_failures.max(1),
            // Capped here, so the instants computed from it never overflow.
            cooldown: settings.circuit_cooldown.min(MAX_COOLDOWN),
        }
    }

    /// The handlers the next lease may take deliveries for: `None` when
    /// none is left out (the lease takes every handler's, those no longer
    /// configured too); otherwise those with room to lease
    /// ([`Gate::lease_room`]).
    pub fn lease_only(&self) -> Option<Vec<&HandlerName>> {
        let now = Instant::now();
        let mut left_out = false;
        let mut room = Vec::with_capacity(self.gates.len());
        for (name, g) in self.gates.iter() {
            if g.lease_room(now) > 0 {
                room.push(name);
            } else {
                left_out = true;
            }
        }
        left_out.then_some(room)
    }

    /// How many deliveries the handlers have room for now, together, in
    /// flight or waiting for a place ([`Gate::lease_room`]): a lease asks
    /// for no more, so it rarely takes what it must hand back. `None` when
    /// no handler is configured (deliveries left by removed handlers are
    /// then leased to be dead-lettered).
    pub fn room(&self) -> Option<u32> {
        if self.gates.is_empty() {
            return None;
        }
        let now = Instant::now();
        Some(self.gates.values().map(|g| g.lease_room(now)).sum())
    }

    /// Whether `handler`'s circuit lets calls through (full or not): a
    /// delivery for it may wait for a slot (a handler no longer configured
    /// always does).
    pub fn takes_calls(&self, handler: &str) -> bool {
        self.gates
            .get(handler)
            .is_none_or(|g| g.takes_calls(Instant::now()))
    }

    /// Room for one attempt to `handler` now; `None` when it has none (the
    /// delivery waits for a place, [`Gates::park`], or is handed back). A
    /// handler no longer configured always has room: its delivery is
    /// dead-lettered by the attempt.
    pub fn enter(&self, handler: &str) -> Option<Pass> {
        let Some((name, gate)) = self.gates.get_key_value(handler) else {
            return Some(Pass { gate: None });
        };
        // Fails while deliveries wait for a place: a freed one is theirs.
        let place = gate.places.clone().try_acquire_owned().ok()?;
        self.admit(name, gate, place)
    }

    /// An attempt through `name`'s gate with `place`, unless its circuit
    /// does not take calls now (the place is freed again); a half-open
    /// circuit's attempt is its one probe.
    fn admit(&self, name: &HandlerName, gate: &Gate, place: OwnedSemaphorePermit) -> Option<Pass> {
        let mut s = gate.lock();
        if !s.takes_calls(Instant::now()) {
            return None;
        }
        s.probing |= s.open_until.is_some();
        Some(Pass {
            gate: Some((self.clone(), name.clone(), place)),
        })
    }

    /// A place to wait for `handler`'s next free place, if it takes calls
    /// and fewer than twice its limit wait already; `None` otherwise (the
    /// delivery is handed back). Leases stop at its limit waiting
    /// ([`Gate::lease_room`]); the rest is room for the hand-offs that race
    /// a lease, which with room for its limit alone handed back one
    /// delivery in four to seven (`bench/handler-places/`).
    pub fn park(&self, handler: &str) -> Option<Parked> {
        let (name, gate) = self.gates.get_key_value(handler)?;
        let mut s = gate.lock();
        if !s.takes_calls(Instant::now()) || s.parked >= 2 * gate.limit {
            return None;
        }
        s.parked += 1;
        Some(Parked {
            gates: self.clone(),
            name: name.clone(),
        })
    }

    fn gate(&self, name: &HandlerName) -> &Gate {
        &self.gates[name]
    }

    fn leave(&self) {
        self.freed.notify_one();
    }

    /// Wait until an attempt ends (its handler has room again).
    pub async fn freed(&self) {
        self.freed.notified().await
    }

    /// Record an attempt's outcome (`failed`: no answer, a timeout, 408,
    /// 429 or 5xx); what the circuit is now.
    fn record(&self, handler: &HandlerName, failed: bool) -> Circuit {
        let Some(g) = self.gates.get(handler) else {
            return Circuit::Closed;
        };
        let mut s = g.lock();
        let probe = std::mem::take(&mut s.probing);
        if !failed {
            s.failures = 0;
            s.open_until = None;
            s.cooldown = Duration::ZERO;
            return Circuit::Closed;
        }
        s.failures += 1;
        if probe || s.failures >= self.failures {
            s.cooldown = if probe {
                (s.cooldown * 2).min(MAX_COOLDOWN)
            } else {
                self.cooldown
            };
            s.open_until = Some(Instant::now() + s.cooldown);
            return Circuit::Open;
        }
        if s.open_until.is_some() {
            Circuit::Open
        } else {
            Circuit::Closed
        }
    }
}

/// One attempt's place at its handler; dropping it frees the place.
#[derive(Debug)]
pub struct Pass {
    gate: Option<(Gates, HandlerName, OwnedSemaphorePermit)>,
}

impl Pass {
    /// Record how the attempt went; what the handler's circuit is now.
    pub fn record(&self, failed: bool) -> Circuit {
        match &self.gate {
            Some((gates, name, _)) => gates.record(name, failed),
            None => Circuit::Closed,
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        if let Some((gates, _, place)) = self.gate.take() {
            // Freed first, so the lease loop woken next sees the room.
            drop(place);
            gates.leave();
        }
    }
}

/// A delivery's wait for a place at its (full) handler; counted among the
/// handler's waiting until it enters or gives up.
#[derive(Debug)]
pub struct Parked {
    gates: Gates,
    name: HandlerName,
}

impl Parked {
    /// The handler's next free place, in the order the waits began; `None`
    /// if its circuit opened meanwhile (the delivery is handed back). The
    /// caller bounds the wait.
    pub async fn enter(self) -> Option<Pass> {
        let gate = self.gates.gate(&self.name);
        let place = gate.places.clone().acquire_owned().await.ok()?;
        self.gates.admit(&self.name, gate, place)
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        let mut s = self.gates.gate(&self.name).lock();
        s.parked = s.parked.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests;
