//! The collector's side of traces, through the real binary: a dead or
//! silent collector costs no request (spans are dropped and counted), and
//! the collector's headers come from the environment.

use std::time::{Duration, Instant};

use crate::common::otlp::{self, Collector};
use crate::common::procs::{config, free_port, metric, post, serve_with, wait_ready};
use crate::common::sink::Sink;
use crate::common::{Backend, Webhook};
use crate::traces::{named, telemetry, WITHIN};

/// Send `n` requests one by one; each must be answered 200 within a
/// second.
async fn each_answered_promptly(port: u16, n: usize, tag: &str) {
    for i in 0..n {
        let w = Webhook::new(
            "stripe",
            "acme",
            &format!("evt_{tag}_{i}"),
            "charge.succeeded",
            tag,
        );
        let started = Instant::now();
        let (status, body) = post(port, &w).await;
        assert_eq!(status, 200, "{body}");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "request {i} took {:?}",
            started.elapsed()
        );
    }
}

/// Wait until `/metrics` counts a dropped span.
async fn spans_dropped(port: u16) -> f64 {
    let deadline = Instant::now() + WITHIN;
    loop {
        let dropped = metric(port, "hookline_spans_dropped_total").await;
        if dropped > 0.0 || Instant::now() > deadline {
            return dropped;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn a_dead_or_silent_collector_costs_no_request(backend: Backend) {
    let sink = Sink::start(Vec::new());
    // Nothing listens on a dead collector's port; a silent one takes the
    // connection and never answers.
    let dead = format!("http://127.0.0.1:{}", free_port());
    for (kind, endpoint) in [("dead", dead), ("silent", otlp::silent())] {
        let dir = tempfile::tempdir().unwrap();
        let extra = telemetry(&endpoint, "max_queued_spans = 8");
        let (config, _db, _keys) = config(backend, dir.path(), &sink, &extra).await;
        let port = free_port();
        let _proc = serve_with(&config, "all", port, &[]);
        wait_ready(port).await;
        each_answered_promptly(port, 30, kind).await;
        assert!(
            spans_dropped(port).await > 0.0,
            "{kind}: no dropped span counted"
        );
    }
    // Every event still reached the handler.
    sink.wait_for(60, WITHIN).await;
}

/// A collector's headers (an API key) come from `OTEL_EXPORTER_OTLP_HEADERS`
/// (read by `opentelemetry-otlp`) and go with every export.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_collectors_headers_come_from_the_environment() {
    let collector = Collector::start();
    let sink = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let extra = telemetry(&collector.url, "");
    let (config, _store, _keys) = config(Backend::Embedded, dir.path(), &sink, &extra).await;
    let port = free_port();
    let headers = [(
        "OTEL_EXPORTER_OTLP_HEADERS",
        "api-key=s%3Dcret, x-team=blue",
    )];
    let _proc = serve_with(&config, "all", port, &headers);
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_headers", "charge.succeeded", "t");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");
    collector
        .wait_until(WITHIN, |s| !named(s, "webhook.receive").is_empty())
        .await;
    let posts = collector.headers();
    assert!(!posts.is_empty());
    for h in posts {
        assert_eq!(h.get("api-key").unwrap(), "s=cret");
        assert_eq!(h.get("x-team").unwrap(), "blue");
        assert_eq!(h.get("content-type").unwrap(), "application/x-protobuf");
    }
}

backend_tests!(a_dead_or_silent_collector_costs_no_request);
