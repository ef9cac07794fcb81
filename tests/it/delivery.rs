//! Fan-out to real local handlers, on every backend: signed deliveries with
//! a stable webhook-id, retries with backoff and Retry-After, dead letters,
//! timeouts, and independent handlers. What operators see and redrive of
//! them is in `delivery_operators.rs`.

use crate::common;

use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{handler_signature, spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState, DeliveryView};

use common::HANDLER_SECRET;

/// A handler section for `sink`; `extra` may set timeout, max_attempts...
pub(crate) fn handler(name: &str, sink: &Sink, extra: &str) -> String {
    let mut section = format!(
        "[handlers.{name}]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n{extra}\n",
        sink.url
    );
    for (key, default) in [
        ("timeout", "timeout = \"2s\""),
        ("max_attempts", "max_attempts = 5"),
    ] {
        if !extra.contains(key) {
            section.push_str(default);
            section.push('\n');
        }
    }
    section
}

/// Fast retries for tests.
pub(crate) const FAST: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\nlease = \"10s\"\n";

pub(crate) async fn app_with(backend: Backend, handlers: String) -> TestApp {
    app_with_delivery(backend, handlers, FAST).await
}

async fn app_with_delivery(backend: Backend, handlers: String, delivery: &str) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("{handlers}\n{delivery}");
    spawn_app_with(opts).await
}

async fn deliveries(app: &TestApp, event_id: &str) -> Vec<DeliveryView> {
    app.deliveries(event_id).await
}

/// Wait until the delivery of `event_id` to `handler` is in `state`.
pub(crate) async fn wait_state(
    app: &TestApp,
    event_id: &str,
    handler: &str,
    state: DeliveryState,
) -> DeliveryView {
    for _ in 0..300 {
        if let Some(d) = deliveries(app, event_id)
            .await
            .into_iter()
            .find(|d| d.handler == handler)
        {
            if d.state == state {
                return d;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "{handler} never reached {state:?}: {:?}",
        deliveries(app, event_id).await
    );
}

async fn delivers_the_original_body_signed_with_standard_webhooks(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app_with(backend, handler("billing", &sink, "")).await;
    let w = Webhook::new(
        "stripe",
        "acme",
        "evt_deliver",
        "payment_intent.succeeded",
        "x",
    );
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    let got = sink.wait_for(1, Duration::from_secs(5)).await;
    let r = &got[0];
    assert_eq!(r.body, w.body, "the original bytes");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-hookline-provider"), Some("stripe"));
    assert_eq!(r.header("x-hookline-tenant"), Some("acme"));
    assert_eq!(
        r.header("x-hookline-event-type"),
        Some("payment_intent.succeeded")
    );
    assert_eq!(r.header("x-hookline-attempt"), Some("1"));
    let id = r.header("webhook-id").unwrap();
    assert_eq!(r.header("idempotency-key"), Some(id));
    // The signature is the one Standard Webhooks makes with the handler's
    // secret (whose known answers are in tests/vectors/standard-webhooks).
    let ts = r.header("webhook-timestamp").unwrap();
    assert_eq!(
        r.header("webhook-signature"),
        Some(handler_signature(id, ts, &r.body).as_str())
    );
    let d = wait_state(&app, "evt_deliver", "billing", DeliveryState::Delivered).await;
    assert_eq!(d.attempts, 1);
    // A duplicate from the provider does not deliver again.
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1);
}

async fn flapping_handler_gets_the_event_and_is_not_called_after_its_ack(backend: Backend) {
    let sink = Sink::start(vec![Reply::Status(503), Reply::Status(503)]);
    let app = app_with(backend, handler("billing", &sink, "")).await;
    let w = Webhook::new("stripe", "acme", "evt_flap", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_state(&app, "evt_flap", "billing", DeliveryState::Delivered).await;
    assert_eq!(d.attempts, 3);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = sink.received();
    assert_eq!(got.len(), 3, "no call after the acknowledgement");
    let ids: Vec<_> = got
        .iter()
        .map(|r| r.header("webhook-id").unwrap().to_owned())
        .collect();
    assert!(
        ids.iter().all(|i| *i == ids[0]),
        "webhook-id is stable across attempts: {ids:?}"
    );
    let attempts: Vec<_> = got
        .iter()
        .map(|r| r.header("x-hookline-attempt").unwrap().to_owned())
        .collect();
    assert_eq!(attempts, ["1", "2", "3"]);
    let recorded = app.store.records().attempts(d.id).await.unwrap();
    let statuses: Vec<_> = recorded.iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(503), Some(503), Some(200)]);
    assert_eq!(recorded[0].response_body.as_deref(), Some("answer 503"));
}

async fn a_4xx_dead_letters_after_one_attempt_and_can_be_replayed(backend: Backend) {
    let sink = Sink::start(vec![Reply::Status(400)]);
    let app = app_with(backend, handler("billing", &sink, "")).await;
    let w = Webhook::new("stripe", "acme", "evt_400", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_state(&app, "evt_400", "billing", DeliveryState::Dead).await;
    assert_eq!((d.attempts, d.last_status), (1, Some(400)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1, "a 4xx is final");
    let dead = app
        .store
        .records()
        .list(&DeliveryFilter {
            state: Some(DeliveryState::Dead),
            handler: Some(hookline::lookup::handler("billing").unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(app.store.records().depth().await.unwrap().dead, 1);
    // The handler is fixed; the operator replays the dead letter.
    let n = app
        .store
        .records()
        .requeue(&DeliveryFilter {
            state: Some(DeliveryState::Dead),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(n, 1);
    wait_state(&app, "evt_400", "billing", DeliveryState::Delivered).await;
    assert_eq!(sink.received().len(), 2);
}

async fn max_attempts_dead_letters(backend: Backend) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(500));
    let app = app_with(backend, handler("billing", &sink, "max_attempts = 3")).await;
    let w = Webhook::new("stripe", "acme", "evt_500", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_state(&app, "evt_500", "billing", DeliveryState::Dead).await;
    assert_eq!(d.attempts, 3);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(sink.received().len(), 3);
}

async fn slow_handler_times_out_and_is_retried(backend: Backend) {
    let sink = Sink::start(vec![Reply::Slow(Duration::from_secs(3), 200)]);
    let app = app_with(backend, handler("billing", &sink, "timeout = \"300ms\"")).await;
    let w = Webhook::new("stripe", "acme", "evt_slow", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_state(&app, "evt_slow", "billing", DeliveryState::Delivered).await;
    assert_eq!(d.attempts, 2);
    let attempts = app.store.records().attempts(d.id).await.unwrap();
    assert_eq!(attempts[0].status, None);
    assert!(
        attempts[0]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("timeout"),
        "{:?}",
        attempts[0]
    );
    assert!(
        attempts[0].latency_ms < 2000,
        "the timeout bounds the attempt: {:?}",
        attempts[0]
    );
}

async fn retry_after_is_honoured(backend: Backend) {
    let sink = Sink::start(vec![Reply::RetryAfter(429, 1)]);
    // Retry-After is clamped to backoff_max: leave room for 1 s.
    let delivery =
        "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"5s\"\n";
    let app = app_with_delivery(backend, handler("billing", &sink, ""), delivery).await;
    let w = Webhook::new("stripe", "acme", "evt_429", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let got = sink.wait_for(2, Duration::from_secs(5)).await;
    let gap = got[1].at - got[0].at;
    // Backoff alone would retry within 50 ms; the handler asked for 1 s.
    assert!(gap >= Duration::from_millis(900), "retried after {gap:?}");
    wait_state(&app, "evt_429", "billing", DeliveryState::Delivered).await;
}

async fn handlers_are_independent(backend: Backend) {
    let broken = Sink::start(vec![]);
    broken.always(Reply::Status(500));
    let healthy = Sink::start(vec![]);
    let handlers = format!(
        "{}{}",
        handler("broken", &broken, "max_attempts = 100"),
        handler("healthy", &healthy, "")
    );
    let app = app_with(backend, handlers).await;
    let w = Webhook::new("stripe", "acme", "evt_two", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let got = healthy.wait_for(1, Duration::from_secs(2)).await;
    assert_eq!(got.len(), 1);
    wait_state(&app, "evt_two", "healthy", DeliveryState::Delivered).await;
    let broken_state = deliveries(&app, "evt_two")
        .await
        .into_iter()
        .find(|d| d.handler == "broken")
        .unwrap();
    assert_eq!(broken_state.state, DeliveryState::Pending, "still retrying");
    // Each handler gets its own webhook-id.
    assert_ne!(
        got[0].header("webhook-id"),
        broken.received()[0].header("webhook-id")
    );
}

async fn handlers_only_get_matching_events(backend: Backend) {
    let sink = Sink::start(vec![]);
    let h = format!(
        "[handlers.payments]\nurl = \"{}\"\nevents = [\"stripe:payment_intent.*\"]\ntenants = [\"acme\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        sink.url
    );
    let app = app_with(backend, h).await;
    for (tenant, id, ty) in [
        ("acme", "evt_a", "payment_intent.succeeded"),
        ("acme", "evt_b", "charge.succeeded"),
        ("globex", "evt_c", "payment_intent.succeeded"),
    ] {
        assert_eq!(
            app.send_json(&Webhook::new("stripe", tenant, id, ty, "x"))
                .await
                .0,
            200
        );
    }
    let got = sink.wait_for(1, Duration::from_secs(3)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1, "only acme's payment_intent.*");
    assert!(String::from_utf8_lossy(&got[0].body).contains("evt_a"));
    assert!(deliveries(&app, "evt_b").await.is_empty());
}

backend_tests!(
    delivers_the_original_body_signed_with_standard_webhooks,
    flapping_handler_gets_the_event_and_is_not_called_after_its_ack,
    a_4xx_dead_letters_after_one_attempt_and_can_be_replayed,
    max_attempts_dead_letters,
    slow_handler_times_out_and_is_retried,
    retry_after_is_honoured,
    handlers_are_independent,
    handlers_only_get_matching_events,
    handlers_mode_answers_only_after_every_acknowledgement,
    max_age_dead_letters_an_old_failing_delivery,
);

async fn handlers_mode_answers_only_after_every_acknowledgement(backend: Backend) {
    let fast = Sink::start(vec![]);
    let flaky = Sink::start(vec![]);
    flaky.always(Reply::Status(503));
    let mut opts = AppOptions::new(backend);
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"1s\"\n".into();
    // The flaky handler's circuit must not open here (tests/it/isolation.rs
    // covers that): its retries go on until it recovers.
    opts.extra = format!(
        "{}{}\n[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"50ms\"\ncircuit_failures = 100000\n",
        handler("fast", &fast, ""),
        handler("flaky", &flaky, "max_attempts = 1000")
    );
    let app = spawn_app_with(opts).await;

    let w = Webhook::new("stripe", "acme", "evt_ack", "charge.succeeded", "x");
    let started = std::time::Instant::now();
    let res = app.send(&w).await;
    // One handler never acknowledged within ack_timeout: retry later.
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("Retry-After").is_some());
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "not_acknowledged");
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(
        fast.received().len(),
        1,
        "the healthy handler acknowledged once"
    );
    assert_eq!(
        app.inventory().await.processed_events,
        0,
        "not accepted, so not recorded"
    );

    // The flaky handler recovers; the provider retries.
    flaky.always(Reply::Status(200));
    let (status, body) = app.send_json(&w).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("accepted")),
        "{body}"
    );
    assert!(!flaky.received().is_empty());
    assert_eq!(
        fast.received().len(),
        1,
        "a handler that acknowledged is not called again"
    );
    assert_eq!(app.inventory().await.processed_events, 1);
    let (_, body) = app.send_json(&w).await;
    assert_eq!(body["status"], "duplicate");

    // When every handler is healthy the 2xx means they all have it.
    let w2 = Webhook::new("stripe", "acme", "evt_ack_2", "charge.succeeded", "x");
    let before = (fast.received().len(), flaky.received().len());
    assert_eq!(app.send_json(&w2).await.0, 200);
    assert_eq!(
        (fast.received().len(), flaky.received().len()),
        (before.0 + 1, before.1 + 1)
    );
}

async fn max_age_dead_letters_an_old_failing_delivery(backend: Backend) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(503));
    // The breaker would open after five failures and hold the delivery for
    // `circuit_cooldown` (5 s) before the probe that finds it too old: this
    // test is about age, so the breaker stays closed.
    let app = app_with_delivery(
        backend,
        handler("billing", &sink, "max_attempts = 1000\nmax_age = \"400ms\""),
        &format!("{FAST}circuit_failures = 1000\n"),
    )
    .await;
    let w = Webhook::new("stripe", "acme", "evt_old", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_state(&app, "evt_old", "billing", DeliveryState::Dead).await;
    assert!(
        d.attempts >= 2 && d.attempts < 1000,
        "dead by age, not attempts: {d:?}"
    );
    let calls = sink.received().len();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        sink.received().len(),
        calls,
        "no call after the dead letter"
    );
}
