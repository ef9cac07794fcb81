//! Isolation between handlers: each has an in-flight limit
//! (`handlers.NAME.concurrency`) and a circuit breaker. A handler that is
//! full, or whose circuit is open, is left out of the next lease, so its
//! deliveries stay queued (nothing is dropped or dead-lettered for it) and
//! the workers' slots go to the other handlers.
//!
//! The breaker: `delivery.circuit_failures` failed attempts in a row (no
//! answer, a timeout, 408, 429 or 5xx; a 4xx is an answer) open it for
//! `delivery.circuit_cooldown`; then one delivery probes it. A probe that
//! succeeds closes it; one that fails opens it again for twice as long, up
//! to [`MAX_COOLDOWN`]. Per worker process, in memory: a restart closes it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::{DeliverySettings, Handler};
use crate::ids::HandlerName;

/// The longest an open circuit waits before probing again.
pub const MAX_COOLDOWN: Duration = Duration::from_secs(300);

#[derive(Debug, Default)]
struct State {
    in_flight: u32,
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
    state: Mutex<State>,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Neither full, nor open, nor half-open with its probe under way.
    fn has_room(&self, now: Instant) -> bool {
        let s = self.lock();
        s.in_flight < self.limit && s.takes_calls(now)
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
                let gate = Gate {
                    limit: h.concurrency.max(1),
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
    /// configured too); otherwise the handlers that are neither full, nor
    /// open, nor half-open with their probe under way.
    pub fn lease_only(&self) -> Option<Vec<&HandlerName>> {
        let now = Instant::now();
        let mut left_out = false;
        let mut room = Vec::with_capacity(self.gates.len());
        for (name, g) in self.gates.iter() {
            if g.has_room(now) {
                room.push(name);
            } else {
                left_out = true;
            }
        }
        left_out.then_some(room)
    }

    /// How many attempts the handlers have room for now, together (a
    /// half-open circuit has room for its one probe): a lease asks for no
    /// more, so it rarely takes what it must hand back. `None` when no
    /// handler is configured (deliveries left by removed handlers are then
    /// leased to be dead-lettered).
    pub fn room(&self) -> Option<u32> {
        if self.gates.is_empty() {
            return None;
        }
        let now = Instant::now();
        let room = self
            .gates
            .values()
            .map(|g| {
                let s = g.lock();
                match s.open_until {
                    _ if !s.takes_calls(now) => 0,
                    Some(_) => 1,
                    None => g.limit.saturating_sub(s.in_flight),
                }
            })
            .sum();
        Some(room)
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
    /// delivery is handed back). A handler no longer configured always has
    /// room: its delivery is dead-lettered by the attempt.
    pub fn enter(&self, handler: &str) -> Option<Pass> {
        let Some((name, gate)) = self.gates.get_key_value(handler) else {
            return Some(Pass { gate: None });
        };
        let mut s = gate.lock();
        if s.in_flight >= gate.limit || !s.takes_calls(Instant::now()) {
            return None;
        }
        // Half-open: this attempt is its one probe.
        s.probing |= s.open_until.is_some();
        s.in_flight += 1;
        Some(Pass {
            gate: Some((self.clone(), name.clone())),
        })
    }

    fn leave(&self, handler: &HandlerName) {
        if let Some(g) = self.gates.get(handler) {
            let mut s = g.lock();
            s.in_flight = s.in_flight.saturating_sub(1);
        }
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
    gate: Option<(Gates, HandlerName)>,
}

impl Pass {
    /// Record how the attempt went; what the handler's circuit is now.
    pub fn record(&self, failed: bool) -> Circuit {
        match &self.gate {
            Some((gates, name)) => gates.record(name, failed),
            None => Circuit::Closed,
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        if let Some((gates, name)) = &self.gate {
            gates.leave(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gates(concurrency: u32) -> Gates {
        let text = format!(
            "[store]\nkind = \"embedded\"\npath = \"x.db\"\n\
             [providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.acme]\nsecrets = [\"whsec_c2VjcmV0LW9uZS1rZXk=\"]\n\
             [handlers.h]\nurl = \"http://127.0.0.1:9/\"\nevents = [\"stripe:*\"]\nconcurrency = {concurrency}\n\
             signing_secret = \"whsec_c2VjcmV0LW9uZS1rZXk=\"\n\
             [delivery]\ncircuit_failures = 2\ncircuit_cooldown = \"40ms\"\n"
        );
        let settings = crate::config::from_toml_str("t.toml", &text).unwrap();
        Gates::new(&settings.handlers, &settings.delivery)
    }

    #[test]
    fn the_in_flight_limit_holds_until_a_pass_drops() {
        let g = gates(2);
        let (a, b) = (g.enter("h").unwrap(), g.enter("h").unwrap());
        assert!(g.enter("h").is_none());
        assert_eq!(g.lease_only(), Some(vec![]));
        assert!(g.takes_calls("h"), "full, but a delivery may wait for it");
        drop(a);
        assert_eq!(g.lease_only(), None);
        assert!(g.enter("h").is_some());
        drop(b);
        // Not configured: always room (the attempt dead-letters it).
        assert!(g.enter("gone").is_some());
    }

    #[test]
    fn the_circuit_opens_probes_once_and_closes_on_success() {
        let g = gates(4);
        assert_eq!(g.enter("h").unwrap().record(true), Circuit::Closed);
        assert_eq!(g.enter("h").unwrap().record(true), Circuit::Open);
        assert!(g.enter("h").is_none(), "open: not called");
        assert!(!g.takes_calls("h"), "open: nothing waits for it");
        assert_eq!(g.lease_only(), Some(vec![]));
        std::thread::sleep(Duration::from_millis(50));
        // Half-open: one probe, and no second while it is under way.
        assert!(g.takes_calls("h"), "its probe may wait for a slot");
        let probe = g.enter("h").unwrap();
        assert!(g.enter("h").is_none());
        assert!(!g.takes_calls("h"), "probing");
        assert_eq!(g.lease_only(), Some(vec![]));
        // It fails: open again, for twice as long.
        assert_eq!(probe.record(true), Circuit::Open);
        drop(probe);
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            g.enter("h").is_none(),
            "still open after the first cooldown"
        );
        std::thread::sleep(Duration::from_millis(40));
        let probe = g.enter("h").unwrap();
        assert_eq!(probe.record(false), Circuit::Closed);
        drop(probe);
        assert_eq!(g.lease_only(), None);
        assert!(g.enter("h").is_some());
    }
}
