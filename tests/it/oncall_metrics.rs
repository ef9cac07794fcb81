//! The metrics an on-call engineer asks for (issue 9, gap 9), read from
//! `GET /metrics` as Prometheus would: dedup keys rebuilt from PostgreSQL
//! after Redis lost them, and the age of the oldest IN_PROGRESS claim.
//! (Store errors and refused requests are counted in `tests/it/faults.rs` and
//! `tests/it/slow_bodies.rs`. `hookline_stale_completions_total` has no test
//! that provokes it yet: it needs a request held past `in_progress_ttl`
//! while another claims its key.)

use crate::common;

use std::time::Duration;

use common::backing::drop_keys;
use common::sink::{Reply, Sink};
use common::{spawn_app, spawn_app_with, AppOptions, Backend, Webhook};

use common::HANDLER_SECRET;

/// Redis restarted empty: the provider's retry of a critical event finds
/// its row, is answered duplicate, and the key is rebuilt, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_rebuilt_from_the_rows_are_counted() {
    let app = spawn_app(Backend::Redis).await;
    let series = r#"hookline_keys_repaired_total{provider="stripe"}"#;
    let w = Webhook::new("stripe", "acme", "evt_repair", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    assert_eq!(app.metric(series).await, 0.0, "Redis still had the key");
    drop_keys(&app.settings, Backend::Redis);
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    assert_eq!(app.metric(series).await, 1.0);
    // Rebuilt: the next retry is answered by Redis alone.
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    assert_eq!(app.metric(series).await, 1.0);
}

/// A request waiting for its handlers (`ack = "handlers"`) holds its claim:
/// the gauge shows how long, and falls back to 0 once it is answered.
async fn the_oldest_claim_is_visible_while_held(backend: Backend) {
    let sink = Sink::start(vec![Reply::Slow(Duration::from_millis(1500), 200)]);
    let mut opts = AppOptions::new(backend);
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"4s\"\n".into();
    opts.in_progress_ttl = "10s";
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\ntimeout = \"3s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n\n[delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    let app = std::sync::Arc::new(spawn_app_with(opts).await);
    let gauge = "hookline_oldest_claim_seconds";
    assert_eq!(app.metric(gauge).await, 0.0);
    let w = Webhook::new("stripe", "acme", "evt_held", "charge.succeeded", "x");
    let sender = {
        let app = app.clone();
        tokio::spawn(async move { app.send_json(&w).await })
    };
    tokio::time::sleep(Duration::from_millis(900)).await;
    let held = app.metric(gauge).await;
    assert!((0.5..5.0).contains(&held), "oldest claim {held}s");
    let (code, body) = sender.await.unwrap();
    assert_eq!((code, body["status"].as_str()), (200, Some("accepted")));
    assert_eq!(app.metric(gauge).await, 0.0);
}

backend_tests!(the_oldest_claim_is_visible_while_held);
