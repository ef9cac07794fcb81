//! Leasing ahead (`src/delivery/worker/ahead.rs`): a lease takes, beyond
//! the free worker slots, up to as many deliveries again, which wait in
//! memory for a slot. The workers' `concurrency` still bounds the calls in
//! flight, each delivery is attempted once, and what waits when the
//! workers stop goes back to the queue at once instead of staying leased
//! until its lease ends. A receiver's delivery recorded while every slot is
//! busy is leased by the statement that records it (handed off ahead), not
//! by a lease of its own.

use crate::common;

use std::time::{Duration, Instant};

use common::otlp::Collector;
use common::procs;
use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::app::Application;
use hookline::config;
use hookline::store::Store;
use tokio_util::sync::CancellationToken;

use common::HANDLER_SECRET;

async fn app(backend: Backend, sink: &Sink, handler: &str, delivery: &str) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[handlers.h]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"5s\"\n{handler}\n\
         [delivery]\npoll_interval = \"20ms\"\n{delivery}",
        sink.url
    );
    spawn_app_with(opts).await
}

async fn send(app: &TestApp, ids: impl Iterator<Item = String>) {
    for id in ids {
        let w = Webhook::new("stripe", "acme", &id, "charge.succeeded", "x");
        assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    }
}

fn event_ids(got: &[common::sink::Received]) -> Vec<String> {
    let mut ids: Vec<String> = got
        .iter()
        .map(|r| r.header("X-Hookline-Event-Id").unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// Two slots, and a handler with room for eight that holds each call
/// 150 ms: a third call never starts before one of the two before it has
/// ended, although deliveries wait leased ahead; and each of the twelve
/// events arrives once.
async fn the_slots_still_bound_the_calls_in_flight(backend: Backend) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Slow(Duration::from_millis(150), 200));
    let app = app(backend, &sink, "concurrency = 8", "concurrency = 2\n").await;
    send(&app, (0..12).map(|i| format!("evt_ahead_{i:02}"))).await;
    let got = sink.wait_for(12, Duration::from_secs(20)).await;
    let mut at: Vec<Instant> = got.iter().map(|r| r.at).collect();
    at.sort();
    for w in at.windows(3) {
        assert!(
            w[2] - w[0] >= Duration::from_millis(140),
            "three calls in flight at once: {:?} between the first and the third",
            w[2] - w[0]
        );
    }
    // Long enough for a repeat, were one coming.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let expected: Vec<String> = (0..12).map(|i| format!("evt_ahead_{i:02}")).collect();
    assert_eq!(event_ids(&sink.received()), expected, "each event once");
}

/// One slot, a handler with room for four and a call that takes 1.5 s: the
/// lease takes a delivery ahead to wait for the slot. The workers stop
/// while it waits; a new process (its lease is 60 s) delivers it at once.
async fn what_waits_goes_back_when_the_workers_stop(backend: Backend) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Slow(Duration::from_millis(1500), 200));
    let app = app(
        backend,
        &sink,
        "concurrency = 4",
        "concurrency = 1\nlease = \"60s\"\n",
    )
    .await;
    send(&app, (0..3).map(|i| format!("evt_back_{i}"))).await;
    sink.wait_for(1, Duration::from_secs(5)).await;
    // Time for the lease loop to take one ahead.
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.shutdown.cancel();
    // The call in flight ends; the workers stop after it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(sink.received().len(), 1, "stopped workers start no call");

    let settings = config::from_toml_str("test.toml", &app.config_text).unwrap();
    let store = Store::connect(&settings.store).await.unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let again = Application::with_listener(settings, store, listener);
    let stop = CancellationToken::new();
    tokio::spawn(again.run(stop.clone()));
    // Two calls of 1.5 s one after the other, far within the 60 s lease.
    let got = sink.received_within(3, Duration::from_secs(12)).await;
    stop.cancel();
    let expected: Vec<String> = (0..3).map(|i| format!("evt_back_{i}")).collect();
    assert_eq!(
        event_ids(&got),
        expected,
        "the delivery that waited was given back, not left leased for 60 s"
    );
}

/// Two slots, each call holding one a second: the first two events'
/// deliveries take them, the next two are recorded while both are busy.
/// These are handed off by their requests all the same (each waits for a
/// slot in memory, in one of the two places ahead), so every attempt's
/// span is in its request's trace, under its span; a delivery left to the
/// lease loop would be in a trace of its own.
async fn deliveries_recorded_while_every_slot_is_busy_are_handed_off_ahead(backend: Backend) {
    let collector = Collector::start();
    let sink = Sink::start(vec![]);
    sink.always(Reply::Slow(Duration::from_secs(1), 200));
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[telemetry]\notlp_endpoint = \"{}\"\n[delivery]\nconcurrency = 2\npoll_interval = \"20ms\"\n",
        collector.url
    );
    let (config, _store, _keys) = procs::config(backend, dir.path(), &sink, &extra).await;
    let port = procs::free_port();
    let _proc = procs::serve_with(&config, "all", port, &[]);
    procs::wait_ready(port).await;

    let ids: Vec<String> = (0..4).map(|i| format!("evt_handed_ahead_{i}")).collect();
    let started = Instant::now();
    for id in &ids {
        let w = Webhook::new("stripe", "acme", id, "charge.succeeded", "a");
        let (status, body) = procs::post(port, &w).await;
        assert_eq!(status, 200, "{body}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "the four were not recorded while the first calls held the slots"
    );
    let got = sink.wait_for(4, Duration::from_secs(20)).await;
    assert_eq!(event_ids(&got), ids, "each event once");
    let spans = collector
        .wait_until(Duration::from_secs(20), |s| {
            s.iter().filter(|s| s.name() == "webhook.deliver").count() >= 4
        })
        .await;
    for id in &ids {
        let of = |name: &str| {
            spans
                .iter()
                .find(|s| s.name() == name && s.attr("event_id").as_deref() == Some(id))
                .unwrap_or_else(|| panic!("no {name} span for {id}"))
        };
        let (receive, deliver) = (of("webhook.receive"), of("webhook.deliver"));
        assert_eq!(
            (deliver.trace_id(), deliver.parent_id()),
            (receive.trace_id(), receive.span_id()),
            "{id}: not handed off by its request (leased in a trace of its own)"
        );
    }
}

backend_tests!(
    the_slots_still_bound_the_calls_in_flight,
    what_waits_goes_back_when_the_workers_stop,
    deliveries_recorded_while_every_slot_is_busy_are_handed_off_ahead,
);
