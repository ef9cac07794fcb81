//! Delivery workers: lease due deliveries, call the handler with no
//! transaction open, record the outcome, repeat. A worker that dies loses
//! its leases after `delivery.lease`, and another worker picks them up.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Notify, Semaphore};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

mod ahead;
mod handed;
mod lease;

use self::ahead::{Slot, Slots};
use self::lease::Queue;
use super::attempt;
use super::destination::Destination;
use super::gate::{Circuit, Gates, Pass};
use super::policy::Verdict;
use crate::config::{DeliverySettings, Handler, TlsSettings};
use crate::ids::HandlerName;
use crate::metrics::Metrics;
use crate::store::delivery::{AttemptRecord, Leased, Next, OUTCOME_BATCH_ROWS};
use crate::store::retry::{with_retries, OUTCOME_SCHEDULE};
use crate::store::{now_ms, Store};

/// Outcomes waiting for their (group-committed) statement, per worker slot.
/// A slot is about calls in flight to handlers: it is freed once the
/// attempt's outcome has a place here, so the statement's latency under
/// load does not hold the next call back. Beyond this many, a finished
/// attempt keeps its slot until an outcome is written (back-pressure).
/// Every store group-commits outcomes; before the embedded store's write
/// lane it wrote each in a transaction of its own, and queued outcomes took
/// its answer's p99 at 600/s from 5-8 ms to 60-130 ms.
const OUTCOMES_PER_SLOT: usize = 16;

/// Places for outcomes waiting to be written, for `concurrency` slots.
/// A place is held until its outcome's statement commits, and a waiting
/// batch goes out once it holds `OUTCOME_BATCH_ROWS`: with P places,
/// deliveries keep up to (P - OUTCOME_BATCH_ROWS) per statement's latency.
/// With four per slot, below 8 slots a batch never filled and each waited
/// its whole linger (`concurrency = 4`: 653-659 of 1,082 new events/s
/// delivered, bench/NOTES.md, "Room for two outcome batches"); at the
/// default (64 places) 32 per statement's latency, which a statement of
/// 6 ms would put near the 5,000/s that both PostgreSQL paths delivered
/// at most in run 40. So at least two batches' worth, and sixteen per slot.
fn outcome_places(concurrency: u32) -> usize {
    (concurrency as usize * OUTCOMES_PER_SLOT).max(2 * OUTCOME_BATCH_ROWS)
}

/// A pool of delivery workers in this process.
#[derive(Clone)]
pub struct Workers {
    store: Store,
    handlers: Arc<BTreeMap<HandlerName, Arc<Handler>>>,
    settings: DeliverySettings,
    /// One destination per handler, reused by every attempt (an HTTP
    /// client with its own TLS identity, a broker connection).
    destinations: Arc<BTreeMap<HandlerName, Destination>>,
    /// Names this process's leases.
    owner: Arc<str>,
    /// Woken when deliveries were recorded that were not handed to these
    /// workers (the store's hand-off), so the lease loop takes them at once.
    wake: Arc<Notify>,
    /// The last lease filled its limit: rows are waiting in the queue, and
    /// new deliveries join them there (in due order) rather than being
    /// handed off ahead of them.
    backlog: Arc<AtomicBool>,
    /// Each handler's in-flight limit and circuit breaker.
    gates: Gates,
    /// Places for outcomes waiting to be written (`outcome_places`).
    outcomes: Arc<Semaphore>,
    /// Woken when deliveries were appended to Redis Streams (by this
    /// process's receivers).
    stream_wake: Arc<Notify>,
    metrics: Arc<Metrics>,
}

impl Workers {
    pub fn new(
        store: Store,
        handlers: BTreeMap<HandlerName, Arc<Handler>>,
        settings: DeliverySettings,
        tls: &TlsSettings,
        metrics: Arc<Metrics>,
    ) -> Result<Self, String> {
        let destinations = handlers
            .iter()
            .map(|(name, h)| {
                Destination::new(h, tls)
                    .map(|c| (name.clone(), c))
                    .map_err(|e| format!("handlers.{name}: {e}"))
            })
            .collect::<Result<_, _>>()?;
        let gates = Gates::new(&handlers, &settings);
        // Shown from the start, so a scrape tells 0 from not running.
        for name in handlers.keys() {
            metrics.handed_back.with_label_values(&[name.as_str()]);
        }
        Ok(Workers {
            gates,
            outcomes: Arc::new(Semaphore::new(outcome_places(settings.concurrency))),
            handlers: Arc::new(handlers),
            settings,
            destinations: Arc::new(destinations),
            owner: format!("worker-{}", uuid::Uuid::new_v4().simple()).into(),
            wake: store
                .handoff()
                .map_or_else(|| Arc::new(Notify::new()), |h| h.waker()),
            backlog: Arc::default(),
            stream_wake: store.stream_waker().unwrap_or_default(),
            store,
            metrics,
        })
    }

    /// A handle the receiver uses to wake the workers.
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Run until `shutdown`; then wait (bounded by the lease) for the
    /// deliveries in flight.
    pub async fn run(self, shutdown: CancellationToken) {
        let slots = Slots::new(self.settings.concurrency);
        let (ahead, waiting) = mpsc::unbounded_channel();
        let handed = self.attach(&slots, &shutdown).map(|rx| {
            let me = self.clone();
            let (slots, shutdown) = (slots.clone(), shutdown.clone());
            tokio::spawn(me.take_handed(rx, ahead.clone(), slots, shutdown))
        });
        let starter = {
            let (me, slots, shutdown) = (self.clone(), slots.clone(), shutdown.clone());
            tokio::spawn(me.start_waiting(waiting, slots, shutdown))
        };
        tracing::info!(owner = %self.owner, concurrency = self.settings.concurrency, "delivery workers started");
        if self.store.streams_deliveries() {
            tokio::spawn(warn_unread(self.store.clone()));
        }
        // One lease loop per queue, sharing the slots and the handlers'
        // gates: each waits on its own queue's wake-ups and polls.
        let streams = self.store.streams_deliveries().then(|| {
            let (me, slots, shutdown) = (self.clone(), slots.clone(), shutdown.clone());
            let ahead = ahead.clone();
            tokio::spawn(async move {
                me.lease_loop(Queue::Streams, &slots, &ahead, &shutdown)
                    .await
            })
        });
        self.lease_loop(Queue::Table, &slots, &ahead, &shutdown)
            .await;
        if let Some(task) = streams {
            let _ = task.await;
        }
        let _ = starter.await;
        // Let attempts in flight record their outcome (handed-off ones too:
        // they hold slots), the deliveries given back be back, and the
        // outcomes already waiting be written.
        let outcomes = outcome_places(self.settings.concurrency) as u32;
        let _ = tokio::time::timeout(self.settings.lease, async {
            slots.all_free().await;
            drop(self.outcomes.acquire_many(outcomes).await);
        })
        .await;
        if let Some(task) = handed {
            task.abort();
        }
        tracing::info!("delivery workers stopped");
    }

    /// One attempt at one delivery, in worker slot `slot`.
    async fn deliver(&self, d: Leased, pass: Pass, slot: Slot) {
        // Also the attempt's span in the trace (`webhook.deliver`).
        let span = tracing::info_span!(
            "webhook.deliver",
            provider = %d.provider, tenant = %d.tenant, event_id = %d.event_id,
            handler = %d.handler, attempt = d.attempts + 1,
            status = tracing::field::Empty, latency_ms = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        // Handed off by the request: part of its trace. Leased later (a
        // retry, another node): a trace of its own, linked to it.
        crate::telemetry::follow(&span, d.trace_parent.as_deref(), d.handed);
        self.attempt(d, pass, slot).instrument(span).await
    }

    async fn attempt(&self, d: Leased, pass: Pass, slot: Slot) {
        crash_point!("after_lease");
        let attempt_no = d.attempts + 1;
        let started_ms = now_ms();
        let Some(handler) = self.handlers.get(d.handler.as_str()) else {
            // The handler was removed from the config: keep the delivery
            // where an operator can see and replay it.
            let error = format!("handler {:?} is not configured", d.handler);
            tracing::warn!(%error, "dead-lettered");
            let record = AttemptRecord {
                attempt: attempt_no,
                started_ms,
                status: None,
                latency: Duration::ZERO,
                response_body: String::new(),
                error: Some(error),
            };
            self.finish(&d, record, Next::Dead, slot).await;
            return;
        };
        let started = std::time::Instant::now();
        let destination = &self.destinations[d.handler.as_str()];
        let sent = attempt::send(&d, handler, destination, attempt_no).await;
        let latency = started.elapsed();
        if matches!(sent.outcome, Verdict::Acknowledged) {
            crash_point!("after_handler_ack");
        }
        let failed = sent.failed();
        let circuit = pass.record(failed);
        // The handler's place is about calls to it: free it before the
        // outcome is written (a group-committed statement, under load the
        // longest part of an attempt).
        drop(pass);
        let open = circuit == Circuit::Open;
        let gauge = &self.metrics.circuit_open;
        let gauge = gauge.with_label_values(&[handler.name.as_str()]);
        // Said when it changes: an open circuit pauses the handler's
        // deliveries, which on-call must see in the log, not only a gauge.
        if (gauge.get() == 1) != open {
            let error = sent.error.as_deref();
            match open {
                true => tracing::warn!(
                    status = sent.status,
                    error,
                    "circuit opened: deliveries to this handler wait"
                ),
                false => tracing::info!("circuit closed: deliveries to this handler resume"),
            }
        }
        gauge.set(i64::from(open));
        let age = Duration::from_millis((now_ms() - d.created_ms).max(0) as u64);
        let next = attempt::next(&sent.outcome, attempt_no, age, handler, &self.settings);
        self.metrics
            .attempt_seconds
            .with_label_values(&[handler.name.as_str()])
            .observe(latency.as_secs_f64());
        let outcome = attempt::outcome_name(next);
        let span = tracing::Span::current();
        span.record("status", sent.status);
        span.record("latency_ms", latency.as_millis() as u64);
        span.record("outcome", outcome);
        self.metrics
            .deliveries
            .with_label_values(&[handler.name.as_str(), outcome])
            .inc();
        self.metrics.recent.delivery(handler.name.as_str(), outcome);
        attempt::log(next, &sent);
        let record = AttemptRecord {
            attempt: attempt_no,
            started_ms,
            status: sent.status,
            latency,
            response_body: sent.response,
            error: sent.error,
        };
        self.finish(&d, record, next, slot).await;
    }

    /// Write the outcome, freeing the worker slot as soon as the outcome
    /// has a place among those waiting for their statement.
    async fn finish(&self, d: &Leased, record: AttemptRecord, next: Next, slot: Slot) {
        let place = self.outcomes.acquire().await.expect("never closed");
        drop(slot);
        // A store hiccup must not lose the outcome: retry a few times; if
        // it still fails, the lease expires and the delivery is attempted
        // again (at least once, never zero times).
        // Boxed: the store's future is the largest part of an attempt's,
        // which is moved whole at each step of its making.
        let recorded = with_retries(&OUTCOME_SCHEDULE, || {
            Box::pin(self.store.finish_delivery(d, &self.owner, &record, next))
        })
        .await;
        match recorded {
            Ok(true) => {}
            Ok(false) => tracing::warn!(
                delivery = d.name(),
                "lease lost before the outcome was recorded"
            ),
            Err(e) => tracing::error!(
                delivery = d.name(),
                error = %e.chain(),
                "could not record the outcome; the delivery is attempted again after its lease"
            ),
        }
        drop(place);
    }
}

/// Say which streams hold deliveries that no configured handler will read
/// (a handler, tenant or provider removed while deliveries waited for it):
/// otherwise they would wait there, unseen.
async fn warn_unread(store: Store) {
    match store.unread_streams().await {
        Ok(unread) => {
            for u in unread {
                tracing::warn!(
                    provider = %u.provider,
                    tenant = %u.tenant,
                    handler = %u.handler,
                    waiting = u.waiting,
                    "deliveries wait in a Redis stream that no configured handler reads; put the handler back to drain it, or delete its stream and retry set"
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "could not look for Redis streams no handler reads"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_have_room_for_two_full_batches_at_any_concurrency() {
        for concurrency in [1, 2, 3, 4, 7, 8, 16, 64] {
            let places = outcome_places(concurrency);
            assert!(places >= 2 * OUTCOME_BATCH_ROWS, "{concurrency}: {places}");
            assert!(places >= concurrency as usize * OUTCOMES_PER_SLOT);
        }
        assert_eq!(outcome_places(16), 256);
    }
}
