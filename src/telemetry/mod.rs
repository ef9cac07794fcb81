//! Logs and traces.
//!
//! **Logs**: `tracing` to stderr, filtered by `RUST_LOG` (default `info`),
//! text or JSON (`telemetry.log_format`, or `HOOKLINE_LOG_FORMAT=json`). In
//! both formats every value is escaped and bounded ([`bounded`]): a request
//! cannot forge a line, drive a terminal or write a line of any length. A
//! JSON line written inside a span carries its `trace_id` and `span_id`.
//!
//! Lines are written to stderr by a thread of their own, not by the thread
//! that logs. stderr is unbuffered: every line was a `write` on a request's
//! or a delivery's runtime thread, under one lock, and a write to a log
//! file can wait on the disk while a store syncs it. At 850 critical
//! events/s this took the answer's p99 from 14.1-15.7 ms to 12.2-12.8 ms
//! (`bench/NOTES.md`, "Logging"). Nothing is dropped: once `QUEUED_LINES`
//! wait, loggers wait too. Lines still queued when the process is killed
//! (`kill -9`) are lost; a clean exit writes them.
//!
//! **Traces**: hookline's own spans (`webhook.receive` and its children,
//! `webhook.deliver`; spans `RUST_LOG` hides are not traced) become
//! OpenTelemetry spans, sampled by
//! `telemetry.sample_ratio`, and with `telemetry.otlp_endpoint` are sent
//! to the collector through a bounded queue ([`export`]). Without an
//! endpoint the spans still have IDs: the log lines and the handlers'
//! `traceparent` carry them.

mod bounded;
mod export;
mod format;
mod propagate;
mod span_events;

use std::io::IsTerminal;
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider, SpanExporter as _};
use opentelemetry_sdk::Resource;
use prometheus::IntCounter;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::filter::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

pub use self::bounded::MAX_VALUE_BYTES;
use self::format::{BoundedJson, EscapedFields};
pub use self::propagate::{follow, inbound, TraceHeaders};
use crate::config::{LogFormat, TelemetrySettings};

/// Lines the writer thread may have waiting before loggers wait for it.
const QUEUED_LINES: usize = 128_000;

/// How long a stopping process waits for its last spans to be sent.
const SPANS_FLUSH: Duration = Duration::from_secs(3);

/// Logging and tracing, running. Keep it for the life of the process and
/// [`Telemetry::finish`] it at the end.
#[must_use = "dropping it stops the log writer"]
pub struct Telemetry {
    /// Writes out what is queued and stops the writer thread when dropped.
    _log: WorkerGuard,
    spans: Option<export::Sender>,
    /// Spans not exported: the queue was full, or the collector did not
    /// take them. For `/metrics`.
    pub spans_dropped: IntCounter,
}

impl Telemetry {
    /// Send the spans still queued (briefly), then write the last lines.
    pub async fn finish(self) {
        if let Some(spans) = self.spans {
            spans.finish(SPANS_FLUSH).await;
        }
    }
}

/// Start logging and tracing. The span exporter runs on a thread of its
/// own ([`export`]).
pub fn init(settings: &TelemetrySettings) -> anyhow::Result<Telemetry> {
    let spans_dropped = IntCounter::new(
        "spans_dropped_total",
        "Spans not exported (the queue to the OTLP collector was full, or it did not take them)",
    )
    .expect("valid metric");
    let (tracer, spans) = tracer(settings, spans_dropped.clone())?;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::stderr().is_terminal();
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("hookline-log")
        .finish(std::io::stderr());
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        // Colour codes only for a person at a terminal: in a file, a pipe or
        // a log collector they are noise around every field.
        .with_ansi(ansi);
    let json = match std::env::var("HOOKLINE_LOG_FORMAT") {
        Ok(v) => v == "json",
        Err(_) => settings.log_format == LogFormat::Json,
    };
    let lines = if json {
        lines.json().map_event_format(BoundedJson).boxed()
    } else {
        lines.fmt_fields(EscapedFields).boxed()
    };
    // One filter for both: a span `RUST_LOG` hides is not traced either
    // (hookline's spans are at `info`, the default). A filter per layer
    // would let a library's disabled `log` record leave the next span of
    // its thread disabled for every layer. The tracing layer's own filter
    // ([`span_events`]) decides only which lines become span events, and
    // only when a line is written.
    // Spans carry what hookline records on them, not the layer's extras:
    // source location, thread, target and busy/idle times (two clock reads
    // per poll of every instrumented future) cost every request and are
    // not what a trace of a webhook is read for. No other OpenTelemetry
    // instrumentation reads the active context, so entering a span does
    // not set it.
    let traced = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false);
    let traced = traced.with_filter(span_events::SpanEvents);
    // A second init (tests) is not an error worth failing for.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(lines)
        .with(traced)
        .try_init();
    Ok(Telemetry {
        _log: guard,
        spans,
        spans_dropped,
    })
}

/// The tracer, and with an endpoint the task exporting its spans.
fn tracer(
    settings: &TelemetrySettings,
    dropped: IntCounter,
) -> anyhow::Result<(opentelemetry_sdk::trace::SdkTracer, Option<export::Sender>)> {
    let resource = Resource::builder()
        .with_service_name(settings.service_name.clone())
        .build();
    let mut provider = SdkTracerProvider::builder()
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
            settings.sample_ratio,
        ))))
        .with_resource(resource.clone());
    let mut sender = None;
    if let Some(url) = settings.traces_url() {
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url.clone())
            .with_timeout(export::EXPORT_TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("telemetry.otlp_endpoint {url}: {e}"))?;
        exporter.set_resource(&resource);
        let (queue, task) = export::start(exporter, settings.max_queued_spans, dropped)
            .map_err(|e| anyhow::anyhow!("cannot start the span exporter's thread: {e}"))?;
        provider = provider.with_span_processor(queue);
        sender = Some(task);
    }
    Ok((provider.build().tracer("hookline"), sender))
}
