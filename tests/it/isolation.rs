//! Isolation between handlers (issue 12, item 3): a handler's in-flight
//! limit (`handlers.NAME.concurrency`) and its circuit breaker keep one
//! slow or failing handler from taking the workers away from the others;
//! the failing handler's deliveries stay queued, never dropped.

use crate::common;

use std::time::{Duration, Instant};

use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};

use common::HANDLER_SECRET;

fn handler(name: &str, sink: &Sink, extra: &str) -> String {
    format!(
        "[handlers.{name}]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n{extra}\n",
        sink.url
    )
}

async fn app(backend: Backend, handlers: String, delivery: &str) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{handlers}[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"50ms\"\nlease = \"10s\"\n{delivery}"
    );
    spawn_app_with(opts).await
}

/// When each call in `got` arrived, in order, after checking that each
/// came at least `gap` after the one before: the calls never overlapped.
fn one_at_a_time(got: &[common::sink::Received], gap: Duration) -> Vec<Instant> {
    let mut at: Vec<Instant> = got.iter().map(|r| r.at).collect();
    at.sort();
    for pair in at.windows(2) {
        let apart = pair[1] - pair[0];
        assert!(apart >= gap, "calls overlapped: {apart:?} apart");
    }
    at
}

async fn send(app: &TestApp, n: usize) {
    for i in 0..n {
        let w = Webhook::new(
            "stripe",
            "acme",
            &format!("evt_iso_{i}"),
            "charge.succeeded",
            "x",
        );
        assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    }
}

/// A handler that times out on every call: after three failures in a row
/// its circuit opens, it is called no more, its deliveries wait (pending,
/// not dead), and the healthy handler gets every event meanwhile.
async fn a_failing_handler_is_left_alone_and_the_others_keep_pace(backend: Backend) {
    let down = Sink::start(vec![]);
    down.always(Reply::Slow(Duration::from_secs(5), 200));
    let up = Sink::start(vec![]);
    let app = app(
        backend,
        handler("down", &down, "timeout = \"300ms\"\nmax_attempts = 100")
            + &handler("up", &up, "timeout = \"2s\""),
        "concurrency = 4\ncircuit_failures = 3\ncircuit_cooldown = \"60s\"\n",
    )
    .await;
    send(&app, 30).await;
    up.wait_for(30, Duration::from_secs(15)).await;
    // Long enough for many more retries, were it still called.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let calls = down.received().len();
    assert!(
        (3..=7).contains(&calls),
        "the failing handler was called {calls} times"
    );
    assert_eq!(
        app.metric(r#"hookline_circuit_open{handler="down"}"#).await,
        1.0
    );
    let waiting = app
        .store
        .records()
        .list(&DeliveryFilter {
            handler: Some(hookline::lookup::handler("down").unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(waiting.len(), 30);
    assert!(waiting.iter().all(|d| d.state == DeliveryState::Pending));
}

/// `concurrency = 1`: a slow handler gets one call at a time, while a
/// handler without a limit gets all of them at once.
async fn concurrency_caps_a_handlers_calls_in_flight(backend: Backend) {
    let slow = Sink::start(vec![]);
    slow.always(Reply::Slow(Duration::from_millis(400), 200));
    let fast = Sink::start(vec![]);
    let app = app(
        backend,
        handler("slow", &slow, "timeout = \"2s\"\nconcurrency = 1")
            + &handler("fast", &fast, "timeout = \"2s\""),
        "concurrency = 8\n",
    )
    .await;
    send(&app, 4).await;
    let fast_got = fast.wait_for(4, Duration::from_secs(5)).await;
    let got = slow.wait_for(4, Duration::from_secs(10)).await;
    let at = one_at_a_time(&got, Duration::from_millis(350));
    // Judged by order, not by a wall-clock bound (a loaded machine
    // stretches both): waiting behind the slow handler's queue would put
    // the fast handler's last call after the slow one's third, which
    // comes at least two slow calls after its first.
    let fast_last = fast_got.iter().map(|r| r.at).max().unwrap();
    assert!(
        fast_last < at[2],
        "the fast handler waited for the slow one: its last call came {:?} after the slow handler's third",
        fast_last - at[2]
    );
}

/// A handler at its limit (`concurrency = 1`) gets its deliveries one
/// after another, each taking the place the last one freed, while the
/// workers' other slots stay free: the deliveries leased for it wait for
/// its place rather than going back to the queue for the next lease, a
/// store round trip each (before, a lease for eight free slots handed
/// back seven of its deliveries every time the handler's place freed).
async fn a_full_handlers_deliveries_wait_for_its_place(backend: Backend) {
    let one = Sink::start(vec![]);
    one.always(Reply::Slow(Duration::from_millis(30), 200));
    let app = app(
        backend,
        handler("one", &one, "timeout = \"2s\"\nconcurrency = 1"),
        "concurrency = 8\n",
    )
    .await;
    send(&app, 12).await;
    let got = one.wait_for(12, Duration::from_secs(15)).await;
    one_at_a_time(&got, Duration::from_millis(25));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(one.received().len(), 12, "each event once");
    let text = app.metrics_text().await;
    let series = r#"hookline_deliveries_handed_back_total{handler="one"}"#;
    assert!(text.contains(series), "{series} is not served");
    let back = common::series_value(&text, series);
    assert!(
        back < 12.0,
        "{back} deliveries went back to the queue for 12 delivered"
    );
}

backend_tests!(
    a_failing_handler_is_left_alone_and_the_others_keep_pace,
    concurrency_caps_a_handlers_calls_in_flight,
    a_full_handlers_deliveries_wait_for_its_place,
);
