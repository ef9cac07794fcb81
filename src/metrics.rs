//! Prometheus metrics, in a registry of hookline's own (no globals), served
//! at `GET /metrics`.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::store::Store;

/// What every family's name starts with.
const PREFIX: &str = "hookline";

pub struct Metrics {
    registry: Registry,
    /// Every family registered, by its full name (`hookline_...`), whether
    /// or not it has a sample yet (the text exposition leaves out a labelled
    /// family until its first sample).
    families: Vec<String>,
    /// Answers to providers: provider, tenant, outcome (`accepted`,
    /// `duplicate` or the problem `code`).
    pub requests: IntCounterVec,
    /// Verification failures: provider, code.
    pub verification_failures: IntCounterVec,
    /// Dedup claims: provider, outcome (claimed, duplicate, in_progress,
    /// conflict, replay).
    pub dedup: IntCounterVec,
    /// Delivery attempts: handler, outcome (delivered, retry, dead).
    pub deliveries: IntCounterVec,
    /// Leased deliveries handed back to their queue unattempted, by handler.
    pub handed_back: IntCounterVec,
    /// Delivery attempt latency: handler.
    pub attempt_seconds: HistogramVec,
    /// Events a handler subscribes to that its filter refused: handler.
    pub filtered: IntCounterVec,
    /// Requests refused to protect the receiver, before verification:
    /// reason (`rate_limited`, `body_timeout`, `buffer_full`).
    pub requests_refused: IntCounterVec,
    /// Handshakes by provider, kind and outcome (`answered`, `refused`).
    pub handshakes: IntCounterVec,
    /// Store failures met while answering a request: op (`claim`,
    /// `commit`, `lookup`, ...). Input a store refuses is never one.
    pub store_errors: IntCounterVec,
    /// Bytes of request bodies held right now, against
    /// `server.max_buffered_bytes`.
    pub buffered_bytes: IntGauge,
    /// Dedup keys rebuilt from the durable record (Redis had lost them, or
    /// the window had passed while the row stayed): provider.
    pub keys_repaired: IntCounterVec,
    /// Completions refused because the claim had expired and someone else
    /// owned the key: provider. Each is a request that took longer than
    /// `dedup.in_progress_ttl`.
    pub stale_completions: IntCounterVec,
    /// Events held instead of delivered, by provider and reason
    /// (`suspected_replay`: its body was accepted under another event ID),
    /// counting each request; an operator releases them.
    pub held: IntCounterVec,
    /// The claims this node holds now (IN_PROGRESS, not yet completed or
    /// released), for the age of the oldest.
    pub claims: Arc<ClaimsHeld>,
    oldest_claim: prometheus::Gauge,
    /// 1 while a handler's circuit is open (this process stops calling
    /// it; its deliveries wait), else 0: handler.
    pub circuit_open: prometheus::IntGaugeVec,
    pending: IntGauge,
    dead: IntGauge,
    /// Verdict log entries dropped: its queue was full, or a batch could
    /// not be written (the log is an operator aid; nothing else is lost).
    pub verdict_log_dropped: prometheus::IntCounter,
    /// Alerts POSTed to `alerts.url`: rule, state (`firing`, `resolved`)
    /// and outcome (`sent`, or `failed` once every retry failed).
    pub alerts: IntCounterVec,
    /// The last hour of requests and delivery attempts per minute, for the
    /// console's overview (counted with `requests` and `deliveries`).
    pub recent: crate::console::Recent,
}

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new_custom(Some(PREFIX.into()), None).expect("valid prefix");
        let families = std::cell::RefCell::new(Vec::new());
        let register = |c: Box<dyn prometheus::core::Collector>| {
            // The registry adds its prefix when it gathers.
            families
                .borrow_mut()
                .extend(c.desc().iter().map(|d| format!("{PREFIX}_{}", d.fq_name)));
            registry.register(c).expect("registered once");
        };
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let c = IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric");
            register(Box::new(c.clone()));
            c
        };
        let gauge = |name: &str, help: &str| {
            let g = IntGauge::new(name, help).expect("valid metric");
            register(Box::new(g.clone()));
            g
        };
        let requests = counter(
            "requests_total",
            "Webhook requests answered, by provider, tenant and outcome",
            &["provider", "tenant", "outcome"],
        );
        let verification_failures = counter(
            "verification_failures_total",
            "Requests that failed verification, by provider and code",
            &["provider", "code"],
        );
        let dedup = counter(
            "dedup_total",
            "Dedup claims by provider and outcome",
            &["provider", "outcome"],
        );
        let deliveries = counter(
            "delivery_attempts_total",
            "Delivery attempts by handler and outcome",
            &["handler", "outcome"],
        );
        let handed_back = counter(
            "deliveries_handed_back_total",
            "Leased deliveries handed back to their queue unattempted (their handler full with as many waiting, its circuit open, a wait that would outlast the lease, or the workers stopping), by handler",
            &["handler"],
        );
        let filtered = counter(
            "filtered_total",
            "Events a handler subscribes to that its filter refused (not delivered), by handler",
            &["handler"],
        );
        let attempt_seconds = HistogramVec::new(
            HistogramOpts::new(
                "delivery_attempt_seconds",
                "Delivery attempt latency by handler",
            )
            .buckets(vec![
                0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
            ]),
            &["handler"],
        )
        .expect("valid metric");
        register(Box::new(attempt_seconds.clone()));
        let requests_refused = counter(
            "requests_refused_total",
            "Requests refused before verification, by reason",
            &["reason"],
        );
        let handshakes = counter(
            "handshakes_total",
            "Provider handshakes (never events), by provider, kind and outcome",
            &["provider", "kind", "outcome"],
        );
        let store_errors = counter(
            "store_errors_total",
            "Store failures while answering requests, by operation",
            &["op"],
        );
        let buffered_bytes = gauge(
            "buffered_bytes",
            "Bytes of request bodies held now, against server.max_buffered_bytes",
        );
        let pending = gauge(
            "deliveries_pending",
            "Deliveries waiting for an acknowledgement",
        );
        let dead = gauge("dead_letters", "Deliveries in the dead letters");
        let keys_repaired = counter(
            "keys_repaired_total",
            "Dedup keys rebuilt from the durable record after the fast path lost them, by provider",
            &["provider"],
        );
        let stale_completions = counter(
            "stale_completions_total",
            "Completions refused for a claim that had expired (a stale owner), by provider",
            &["provider"],
        );
        let held = counter(
            "held_total",
            "Events held until an operator releases them (suspected replays), by provider and reason",
            &["provider", "reason"],
        );
        let oldest_claim = prometheus::Gauge::new(
            "oldest_claim_seconds",
            "Age of the oldest IN_PROGRESS claim this node holds (0 when none)",
        )
        .expect("valid metric");
        register(Box::new(oldest_claim.clone()));
        let circuit_open = prometheus::IntGaugeVec::new(
            Opts::new(
                "circuit_open",
                "1 while a handler's circuit is open (not called; its deliveries wait), by handler",
            ),
            &["handler"],
        )
        .expect("valid metric");
        register(Box::new(circuit_open.clone()));
        let alerts = counter(
            "alerts_total",
            "Alerts sent to alerts.url, by rule, state (firing, resolved) and outcome (sent, failed)",
            &["rule", "state", "outcome"],
        );
        let verdict_log_dropped = prometheus::IntCounter::new(
            "verdict_log_dropped_total",
            "Verdict log entries dropped (queue full, or a batch not written)",
        )
        .expect("valid metric");
        register(Box::new(verdict_log_dropped.clone()));
        Metrics {
            alerts,
            families: families.into_inner(),
            verdict_log_dropped,
            circuit_open,
            registry,
            requests,
            verification_failures,
            dedup,
            deliveries,
            handed_back,
            attempt_seconds,
            filtered,
            requests_refused,
            handshakes,
            store_errors,
            buffered_bytes,
            keys_repaired,
            stale_completions,
            held,
            claims: Arc::default(),
            oldest_claim,
            pending,
            dead,
            recent: crate::console::Recent::new(),
        }
    }

    /// Export `counter` too: one made before the metrics (the span
    /// exporter's).
    pub fn adopt(&mut self, counter: prometheus::IntCounter) {
        use prometheus::core::Collector as _;
        self.families.extend(
            counter
                .desc()
                .iter()
                .map(|d| format!("{PREFIX}_{}", d.fq_name)),
        );
        self.registry
            .register(Box::new(counter))
            .expect("registered once");
    }

    /// The full name of every family this node exports (`hookline_...`).
    pub fn families(&self) -> &[String] {
        &self.families
    }

    /// The text exposition, with queue depths read from the store now.
    pub async fn render(&self, store: &Store) -> String {
        let depth = store.with_records("depth", |r| r.depth()).await;
        let streamed = store.stream_pending().await;
        match depth.and_then(|d| Ok((d, streamed?))) {
            Ok((depth, streamed)) => {
                self.pending.set((depth.pending + streamed) as i64);
                self.dead.set(depth.dead as i64);
            }
            Err(e) => tracing::warn!(error = %e.chain(), "queue depth unavailable for /metrics"),
        }
        self.oldest_claim.set(self.claims.oldest_age_secs());
        let mut out = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// The IN_PROGRESS claims this node holds, oldest first: a request holds
/// one from its claim to its completion or release. A claim that stays is a
/// request stuck on a store or on its handlers (`ack = "handlers"`).
#[derive(Debug, Default)]
pub struct ClaimsHeld {
    next: AtomicU64,
    held: Mutex<BTreeMap<u64, Instant>>,
}

impl ClaimsHeld {
    /// Note a claim; it is forgotten when the returned guard drops.
    pub fn hold(self: &Arc<Self>) -> ClaimHeld {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, Instant::now());
        ClaimHeld {
            claims: Arc::clone(self),
            id,
        }
    }

    /// Seconds since the oldest claim held now was taken; 0 when none.
    pub fn oldest_age_secs(&self) -> f64 {
        self.lock()
            .values()
            .min()
            .map_or(0.0, |at| at.elapsed().as_secs_f64())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Instant>> {
        // The map is consistent after any panic (one insert or remove).
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One claim held by a request; dropping it forgets the claim.
#[derive(Debug)]
pub struct ClaimHeld {
    claims: Arc<ClaimsHeld>,
    id: u64,
}

impl Drop for ClaimHeld {
    fn drop(&mut self) {
        self.claims.lock().remove(&self.id);
    }
}
