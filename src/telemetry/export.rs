//! Finished spans on their way to the OTLP collector: a bounded queue that
//! never makes a request wait, and one task that sends what is queued.
//!
//! A span ends on a request's or a delivery's thread; all that thread does
//! is `try_send` it here. When the collector is slow or down the queue
//! fills and further spans are dropped and counted
//! (`hookline_spans_dropped_total`): memory stays bounded and no request
//! is slowed by a peer that only watches. The sending task gathers what
//! ends within [`GATHER`] of the first span (up to [`MAX_BATCH`]) into one
//! export: spans reach the collector within that of their end, and a busy
//! node sends a few requests a second, not one per event (one per span
//! cost a tenth of the node's throughput: bench/FEATURES.md). Up to
//! [`IN_FLIGHT`] exports run at once: one at a time, each waiting for the
//! collector's answer, kept up with about 17,000 spans/s and dropped the
//! rest.
//!
//! The task runs on a thread of its own, [`NICE`] steps of nice lower
//! than the process, not on the runtime that serves requests: converting
//! and encoding a batch of 512 spans is about a millisecond of work, which
//! on a runtime worker can hold up the tasks queued behind it there (the
//! Redis connections' among them), and which the request threads should
//! win whenever both want a core. The thread still gets its share (about
//! a tenth of a request thread's when the cores are full): spans are
//! dropped, and counted, only when that share cannot keep up.

use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use opentelemetry::Context;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanExporter, SpanProcessor};
use prometheus::IntCounter;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// The most spans one export request carries.
const MAX_BATCH: usize = 512;

/// How many exports may wait for the collector at once.
const IN_FLIGHT: usize = 4;

/// How long the sending task waits for more spans after the first.
const GATHER: Duration = Duration::from_millis(200);

/// How often a gathering task looks whether a full batch is queued.
const LOOK: Duration = Duration::from_millis(20);

/// How long one export may take before its spans count as dropped.
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);

/// The processor the tracer hands every finished span to.
#[derive(Debug)]
pub struct Queue {
    tx: mpsc::Sender<SpanData>,
    dropped: IntCounter,
}

/// How much lower than the request threads' the sending thread's priority
/// is, in steps of Linux's nice value (each is about 25% less CPU when both
/// want it; 19 is the lowest).
const NICE: i32 = 10;

/// The nice value [`NICE`] steps below `now`.
fn lowered_nice(now: i32) -> i32 {
    (now + NICE).min(19)
}

/// The thread sending queued spans.
pub struct Sender {
    /// Answers (or is dropped) once the thread has sent what it will.
    done: oneshot::Receiver<()>,
    stop: CancellationToken,
}

impl Sender {
    /// Take no more spans, and wait (at most `grace`) for those queued to
    /// be sent.
    pub async fn finish(self, grace: Duration) {
        self.stop.cancel();
        let _ = tokio::time::timeout(grace, self.done).await;
    }
}

/// A queue of `capacity` spans and the thread that sends them with
/// `exporter`, on a runtime of its own.
pub fn start<E>(
    exporter: E,
    capacity: usize,
    dropped: IntCounter,
) -> std::io::Result<(Queue, Sender)>
where
    E: SpanExporter + 'static,
{
    let (tx, rx) = mpsc::channel(capacity);
    let stop = CancellationToken::new();
    let (finished, done) = oneshot::channel();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let task = send(exporter, rx, dropped.clone(), stop.clone());
    std::thread::Builder::new()
        .name("hookline-spans".into())
        .spawn(move || {
            lower_priority();
            runtime.block_on(task);
            let _ = finished.send(());
        })?;
    Ok((Queue { tx, dropped }, Sender { done, stop }))
}

/// Lower the calling thread's priority (only its) by [`NICE`]. Raising one's
/// own nice value needs no privilege; should it fail all the same, the
/// thread runs at the usual priority, which is only slower for requests.
fn lower_priority() {
    // On Linux a nice value belongs to a thread, and `PRIO_PROCESS` with
    // the thread's ID sets that thread's alone.
    #[cfg(target_os = "linux")]
    {
        let me = Some(rustix::thread::gettid());
        let lowered = rustix::process::getpriority_process(me)
            .and_then(|now| rustix::process::setpriority_process(me, lowered_nice(now)));
        if let Err(error) = lowered {
            tracing::debug!(%error, "the span exporter's thread keeps the usual priority");
        }
    }
}

async fn send<E: SpanExporter>(
    exporter: E,
    mut rx: mpsc::Receiver<SpanData>,
    dropped: IntCounter,
    stop: CancellationToken,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    // Said once when sending starts failing, once when it works again: a
    // dead collector must not write a line per batch.
    let mut failing = false;
    let mut closed = false;
    // Exports waiting for the collector, each with its span count.
    let mut sending = FuturesUnordered::new();
    let export = |spans: Vec<SpanData>| {
        let n = spans.len() as u64;
        let exported = tokio::time::timeout(EXPORT_TIMEOUT, exporter.export(spans));
        async move {
            match exported.await {
                Ok(Ok(())) => (n, None),
                Ok(Err(e)) => (n, Some(e.to_string())),
                Err(_) => (n, Some(format!("no answer within {EXPORT_TIMEOUT:?}"))),
            }
        }
    };
    loop {
        let received = tokio::select! {
            n = rx.recv_many(&mut batch, MAX_BATCH), if sending.len() < IN_FLIGHT => n,
            Some((n, error)) = sending.next() => {
                note(&dropped, &mut failing, n, error);
                continue;
            }
            // Stopping: what is queued is still sent, then `recv_many`
            // answers 0.
            () = stop.cancelled(), if !closed => {
                rx.close();
                closed = true;
                continue;
            }
        };
        if received == 0 {
            break;
        }
        // More spans end while this one waited: send them together. The
        // task sleeps meanwhile and looks at the queue every `LOOK`, rather
        // than waiting on it: a span queued to a waiting receiver wakes it,
        // and at tens of thousands of spans a second those wake-ups cost
        // the request threads more than the spans themselves.
        let until = tokio::time::Instant::now() + GATHER;
        while !closed && batch.len() + rx.len() < MAX_BATCH {
            let now = tokio::time::Instant::now();
            if now >= until {
                break;
            }
            tokio::select! {
                () = tokio::time::sleep_until(until.min(now + LOOK)) => {}
                Some((n, error)) = sending.next() => note(&dropped, &mut failing, n, error),
                () = stop.cancelled() => {
                    rx.close();
                    closed = true;
                }
            }
        }
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(span) => batch.push(span),
                Err(_) => break,
            }
        }
        let spans = std::mem::replace(&mut batch, Vec::with_capacity(MAX_BATCH));
        sending.push(export(spans));
    }
    while let Some((n, error)) = sending.next().await {
        note(&dropped, &mut failing, n, error);
    }
}

/// Count and say what one export of `n` spans came to.
fn note(dropped: &IntCounter, failing: &mut bool, n: u64, error: Option<String>) {
    match error {
        Some(error) => {
            dropped.inc_by(n);
            if !std::mem::replace(failing, true) {
                tracing::warn!(%error, "cannot export spans to the OTLP collector; dropping them until it answers");
            }
        }
        None if std::mem::replace(failing, false) => {
            tracing::info!("the OTLP collector answers again; spans are exported");
        }
        None => {}
    }
}

impl SpanProcessor for Queue {
    fn on_start(&self, _span: &mut Span, _cx: &Context) {}

    fn on_end(&self, span: SpanData) {
        if !span.span_context.is_sampled() {
            return;
        }
        // Full, or the sender has stopped (the process is exiting).
        if self.tx.try_send(span).is_err() {
            self.dropped.inc();
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        // Spans are sent as soon as they are queued.
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::{Instant, SystemTime};

    use opentelemetry::trace::{
        SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
    };
    use opentelemetry::InstrumentationScope;

    use super::*;

    /// Keeps the size of every export it is asked for.
    #[derive(Debug, Default, Clone)]
    struct Exports(Arc<Mutex<Vec<usize>>>);

    impl SpanExporter for Exports {
        async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
            self.0.lock().unwrap().push(batch.len());
            Ok(())
        }
    }

    impl Exports {
        async fn wait_for(&self, spans: usize) -> Vec<usize> {
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                let sizes = self.0.lock().unwrap().clone();
                if sizes.iter().sum::<usize>() >= spans || Instant::now() > deadline {
                    return sizes;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    fn span() -> SpanData {
        SpanData {
            span_context: SpanContext::new(
                TraceId::from_bytes([1; 16]),
                SpanId::from_bytes([1; 8]),
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
            parent_span_id: SpanId::INVALID,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: "test".into(),
            start_time: SystemTime::now(),
            end_time: SystemTime::now(),
            attributes: Vec::new(),
            dropped_attributes_count: 0,
            events: Default::default(),
            links: Default::default(),
            status: Status::Unset,
            instrumentation_scope: InstrumentationScope::builder("test").build(),
        }
    }

    fn queue(exports: &Exports, capacity: usize) -> (Queue, Sender, IntCounter) {
        let dropped = IntCounter::new("dropped", "dropped").unwrap();
        let (queue, sender) = start(exports.clone(), capacity, dropped.clone()).unwrap();
        (queue, sender, dropped)
    }

    #[tokio::test]
    async fn spans_ending_close_together_go_in_one_export() {
        let exports = Exports::default();
        let (queue, _sender, dropped) = queue(&exports, 64);
        // The first is taken alone; the others come while the task waits
        // for company (the sleeps let it run), well within `GATHER` even on
        // a loaded machine.
        for _ in 0..3 {
            queue.on_end(span());
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(exports.wait_for(3).await, vec![3]);
        assert_eq!(dropped.get(), 0);
    }

    #[tokio::test]
    async fn a_full_batch_goes_at_once_and_the_rest_follows() {
        let exports = Exports::default();
        let (queue, _sender, dropped) = queue(&exports, 2048);
        for _ in 0..1200 {
            queue.on_end(span());
        }
        assert_eq!(exports.wait_for(1200).await, vec![512, 512, 176]);
        assert_eq!(dropped.get(), 0);
    }

    #[tokio::test]
    async fn stopping_sends_what_is_queued_and_a_full_queue_drops() {
        let exports = Exports::default();
        let (queue, sender, dropped) = queue(&exports, 4);
        for _ in 0..6 {
            queue.on_end(span());
        }
        sender.finish(Duration::from_secs(5)).await;
        assert_eq!(exports.0.lock().unwrap().iter().sum::<usize>(), 4);
        assert_eq!(dropped.get(), 2);
    }

    /// The nice value of this process's thread named `name`, once it runs.
    #[cfg(target_os = "linux")]
    fn nice_of(name: &str) -> Option<i32> {
        for _ in 0..100 {
            for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
                let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
                let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
                // After the `(comm)` field: state is the 3rd field, nice the 19th.
                let fields: Vec<&str> = stat
                    .rsplit_once(')')
                    .map(|(_, rest)| rest.split_whitespace().collect())
                    .unwrap_or_default();
                if comm.trim_end() == name && fields.len() > 16 {
                    return fields[16].parse().ok();
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn spans_are_sent_by_a_thread_of_lower_priority() {
        let exports = Exports::default();
        let (queue, sender, _) = queue(&exports, 64);
        // The thread is named and niced before it sends anything.
        queue.on_end(span());
        assert_eq!(exports.wait_for(1).await, vec![1]);
        let process = rustix::process::getpriority_process(None).unwrap();
        assert_eq!(nice_of("hookline-spans"), Some(lowered_nice(process)));
        assert!(lowered_nice(process) > process || process == 19);
        sender.finish(Duration::from_secs(5)).await;
    }
}
