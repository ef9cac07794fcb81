//! `ack = "handlers"` when a delivery is dead (issue 24): no worker calls
//! its handler again until an operator replays it, so the receiver answers
//! at once instead of waiting out `ack_timeout`, and answers every retry
//! the same until the replayed delivery is acknowledged.

use crate::common;

use std::time::{Duration, Instant};

use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, Webhook, HANDLER_SECRET};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};

async fn state(app: &common::TestApp, event_id: &str) -> Option<DeliveryState> {
    let filter = DeliveryFilter {
        event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
        ..Default::default()
    };
    app.store
        .records()
        .list(&filter)
        .await
        .unwrap()
        .first()
        .map(|d| d.state)
}

async fn a_dead_delivery_is_answered_at_once(backend: Backend) {
    let sink = Sink::start(vec![]);
    // A 4xx other than 408/429: dead at the first attempt.
    sink.always(Reply::Status(410));
    let mut opts = AppOptions::new(backend);
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"4s\"\n".into();
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\n",
        sink.url
    );
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_dead", "charge.succeeded", "x");

    let started = Instant::now();
    let res = app.send(&w).await;
    let took = started.elapsed();
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("Retry-After").is_some());
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "dead_lettered", "{body}");
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    assert_eq!(state(&app, "evt_dead").await, Some(DeliveryState::Dead));

    // The provider's retry: the same answer at once, and the handler is
    // not called again.
    let calls = sink.received().len();
    let started = Instant::now();
    let (status, body) = app.send_json(&w).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (503, Some("dead_lettered"))
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(sink.received().len(), calls);
    assert_eq!(app.inventory().await.processed_events, 0);

    // An operator replays the dead letter once the handler is fixed; the
    // provider's next retry is accepted.
    sink.always(Reply::Status(200));
    let filter = DeliveryFilter {
        event_id: Some(hookline::lookup::event_id("evt_dead").unwrap()),
        state: Some(DeliveryState::Dead),
        ..Default::default()
    };
    assert_eq!(app.store.records().requeue(&filter).await.unwrap(), 1);
    let deadline = Instant::now() + Duration::from_secs(15);
    while state(&app, "evt_dead").await != Some(DeliveryState::Delivered) {
        assert!(
            Instant::now() < deadline,
            "the replayed delivery never went out"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = app.send_json(&w).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    assert_eq!(app.inventory().await.processed_events, 1);
}

backend_tests!(a_dead_delivery_is_answered_at_once);
