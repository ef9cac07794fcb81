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

use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use opentelemetry::Context;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanExporter, SpanProcessor};
use prometheus::IntCounter;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
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

/// The task sending queued spans.
pub struct Sender {
    task: JoinHandle<()>,
    stop: CancellationToken,
}

impl Sender {
    /// Take no more spans, and wait (at most `grace`) for those queued to
    /// be sent.
    pub async fn finish(self, grace: Duration) {
        self.stop.cancel();
        let _ = tokio::time::timeout(grace, self.task).await;
    }
}

/// A queue of `capacity` spans and the task that sends them with
/// `exporter`. Must be called inside the runtime.
pub fn start<E>(exporter: E, capacity: usize, dropped: IntCounter) -> (Queue, Sender)
where
    E: SpanExporter + 'static,
{
    let (tx, rx) = mpsc::channel(capacity);
    let stop = CancellationToken::new();
    let task = tokio::spawn(send(exporter, rx, dropped.clone(), stop.clone()));
    (Queue { tx, dropped }, Sender { task, stop })
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
        let (queue, sender) = start(exports.clone(), capacity, dropped.clone());
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
}
