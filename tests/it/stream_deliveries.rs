//! Non-critical deliveries in Redis Streams (`store.non_critical_deliveries
//! = "redis"`), against real Redis, PostgreSQL and a local handler: what a
//! user checks is that the handler gets each event at least once with one
//! `webhook-id`, retried with backoff, that nothing of it reaches
//! PostgreSQL until it is a dead letter, that a dead letter is where
//! operators find and requeue dead letters, and that the backlog shows in
//! `/metrics` (what operators see of the streams: `stream_operators.rs`). Crashes: `crash.rs` and `tests/crash_matrix.rs` run their
//! cases on this queue too.

use crate::common;

use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{
    handler_signature, spawn_app_with, spawn_text, test_config, AppOptions, Backend, TestApp,
    Webhook, HANDLER_SECRET,
};
use hookline::store::delivery::{DeliveryFilter, DeliveryState, DeliveryView};
use hookline::store::{stream_lanes, Store};

pub(super) const FAST: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\nlease = \"10s\"\n";

fn handler(url: &str, extra: &str) -> String {
    format!(
        "[handlers.billing]\nurl = \"{url}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\n{extra}\n{FAST}"
    )
}

pub(super) async fn app(url: &str, extra: &str) -> TestApp {
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = handler(url, extra);
    spawn_app_with(opts).await
}

/// The app's store as its workers see it: with the lanes of its config.
pub(super) fn streams_of(app: &TestApp) -> Store {
    let settings = app.settings.clone();
    app.store.clone().with_lanes(|| stream_lanes(&settings))
}

async fn wait_row(app: &TestApp, event_id: &str, state: DeliveryState) -> DeliveryView {
    for _ in 0..500 {
        if let Some(d) = app.deliveries(event_id).await.into_iter().next() {
            if d.state == state {
                return d;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never {state:?}: {:?}", app.deliveries(event_id).await);
}

/// Wait until nothing waits in the app's streams.
pub(super) async fn drained(store: &Store) {
    for _ in 0..250 {
        if store.stream_pending().await.unwrap() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} still waiting", store.stream_pending().await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_critical_event_is_retried_from_its_stream_with_one_webhook_id_and_no_row() {
    let sink = Sink::start(vec![Reply::Status(503), Reply::Status(503)]);
    let app = app(&sink.url, "").await;
    let w = Webhook::new("stripe", "acme", "evt_stream", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    let got = sink.wait_for(3, Duration::from_secs(10)).await;
    let ids: Vec<_> = got
        .iter()
        .map(|r| r.header("webhook-id").unwrap())
        .collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "one webhook-id: {ids:?}");
    let attempts: Vec<_> = got
        .iter()
        .map(|r| r.header("x-hookline-attempt").unwrap())
        .collect();
    assert_eq!(attempts, ["1", "2", "3"]);
    let last = &got[2];
    assert_eq!(last.body, w.body, "the original bytes");
    assert_eq!(last.header("content-type"), Some("application/json"));
    let ts = last.header("webhook-timestamp").unwrap();
    assert_eq!(
        last.header("webhook-signature"),
        Some(handler_signature(ids[0], ts, &last.body).as_str())
    );
    // Nothing of it in PostgreSQL; nothing left in Redis once acknowledged.
    assert!(app.deliveries("evt_stream").await.is_empty());
    assert_eq!(app.inventory().await.processed_events, 0);
    drained(&streams_of(&app)).await;
    // The provider's retry is a duplicate, and calls no one.
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(sink.received().len(), 3);

    // A critical event keeps its row and its delivery in PostgreSQL.
    let c = Webhook::new("stripe", "acme", "evt_row", "payment_intent.succeeded", "x");
    assert_eq!(app.send_json(&c).await.1["status"], "accepted");
    wait_row(&app, "evt_row", DeliveryState::Delivered).await;
    assert_eq!(app.inventory().await.processed_events, 1);
    assert_eq!(
        sink.wait_for(4, Duration::from_secs(5)).await[3].body,
        c.body
    );
}

/// Fifty concurrent copies of one streamed event: one script claims,
/// completes and queues it, so one copy is accepted, every other is a
/// duplicate (none sees the key IN_PROGRESS), and the handler is called
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_copies_of_a_streamed_event_are_queued_once() {
    let sink = Sink::start(vec![]);
    let app = std::sync::Arc::new(app(&sink.url, "").await);
    let w = Webhook::new("stripe", "acme", "evt_race", "charge.succeeded", "x");
    let copies: Vec<_> = (0..50)
        .map(|_| {
            let (app, w) = (app.clone(), w.clone());
            tokio::spawn(async move { app.send_json(&w).await })
        })
        .collect();
    let mut answers = Vec::new();
    for copy in copies {
        let (code, body) = copy.await.unwrap();
        let what = body["status"].as_str().or(body["code"].as_str());
        answers.push((code, what.unwrap_or_default().to_owned()));
    }
    let accepted = answers.iter().filter(|a| a.1 == "accepted").count();
    let duplicate = answers.iter().filter(|a| a.1 == "duplicate").count();
    assert_eq!((accepted, duplicate), (1, 49), "{answers:?}");
    sink.wait_for(1, Duration::from_secs(10)).await;
    drained(&streams_of(&app)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1, "one delivery");
    assert!(app.deliveries("evt_race").await.is_empty(), "no rows");
}

/// An entry keeps its latest `KEPT_ATTEMPTS` attempts while it waits, so
/// a dead letter after more holds those and its last, numbered as made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_letter_after_many_attempts_holds_the_latest_kept_and_its_last() {
    use hookline::store::stream_entry::KEPT_ATTEMPTS;
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(503));
    let max = KEPT_ATTEMPTS + 2;
    // Its circuit stays closed through every failure.
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = handler(&sink.url, &format!("max_attempts = {max}"))
        .replace("[delivery]\n", "[delivery]\ncircuit_failures = 100\n");
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_many", "charge.failed", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_row(&app, "evt_many", DeliveryState::Dead).await;
    assert_eq!(d.attempts, max);
    let attempts = app.store.records().attempts(d.id).await.unwrap();
    let numbers: Vec<u32> = attempts.iter().map(|a| a.attempt).collect();
    let expected: Vec<u32> = (max - KEPT_ATTEMPTS..=max).collect();
    assert_eq!(numbers, expected);
    assert!(
        attempts.iter().all(|a| a.status == Some(503)),
        "{attempts:?}"
    );
    assert_eq!(sink.received().len() as u32, max);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_delivery_out_of_attempts_is_a_dead_letter_operators_requeue() {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(500));
    let app = app(&sink.url, "max_attempts = 2").await;
    let w = Webhook::new("stripe", "acme", "evt_dead", "charge.failed", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let d = wait_row(&app, "evt_dead", DeliveryState::Dead).await;
    assert_eq!((d.attempts, d.last_status), (2, Some(500)));
    assert_eq!(
        (d.handler.as_str(), d.event_type.as_str()),
        ("billing", "charge.failed")
    );
    // Every attempt is on the dead letter: the one its entry kept while it
    // waited to be retried, and the last.
    let attempts = app.store.records().attempts(d.id).await.unwrap();
    let made: Vec<_> = attempts.iter().map(|a| (a.attempt, a.status)).collect();
    assert_eq!(made, [(1, Some(500)), (2, Some(500))], "{attempts:?}");
    assert!(
        attempts[0].started_at < attempts[1].started_at,
        "{attempts:?}"
    );
    assert_eq!(sink.received().len(), 2);
    drained(&streams_of(&app)).await;
    // Fixed, the handler gets it from the requeued dead letter, same ID.
    sink.always(Reply::Status(200));
    let filter = DeliveryFilter {
        state: Some(DeliveryState::Dead),
        ..Default::default()
    };
    assert_eq!(app.store.records().requeue(&filter).await.unwrap(), 1);
    wait_row(&app, "evt_dead", DeliveryState::Delivered).await;
    let got = sink.received();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2].body, w.body);
    assert_eq!(got[2].header("webhook-id"), got[0].header("webhook-id"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_deliveries_work_on_redis_cluster_one_slot_per_provider_and_tenant() {
    let sink = Sink::start(vec![]);
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(Backend::Cluster);
    opts.extra = handler(&sink.url, "");
    let (text, guard) = test_config(&opts, dir.path()).await;
    let text = text
        .replacen(
            "kind = \"redis\"\n",
            "kind = \"redis\"\nnon_critical_deliveries = \"redis\"\n",
            1,
        )
        .replace("critical = [\"*\"]", "critical = []");
    let app = spawn_text(text, Backend::Cluster, guard, dir).await;
    let hooks: Vec<Webhook> = (0..12)
        .map(|i| {
            let tenant = ["acme", "globex", "default"][i % 3];
            Webhook::new(
                "stripe",
                tenant,
                &format!("evt_c{i}"),
                "charge.succeeded",
                "x",
            )
        })
        .collect();
    for w in &hooks {
        assert_eq!(app.send_json(w).await.1["status"], "accepted");
    }
    let got = sink.wait_for(hooks.len(), Duration::from_secs(15)).await;
    for w in &hooks {
        assert!(
            got.iter().any(|r| r.body == w.body),
            "every event delivered"
        );
    }
    drained(&streams_of(&app)).await;
    assert_eq!(app.inventory().await.processed_events, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_circuit_holds_stream_deliveries_until_its_cooldown() {
    let sink = Sink::start(vec![Reply::Status(503), Reply::Status(503)]);
    let mut opts = AppOptions::new(Backend::Streams);
    // FAST's [delivery] table goes on with the breaker's keys.
    opts.extra = format!(
        "{}circuit_failures = 2\ncircuit_cooldown = \"1s\"\n",
        handler(&sink.url, "")
    );
    let app = spawn_app_with(opts).await;
    let first = Webhook::new("stripe", "acme", "evt_open_1", "charge.succeeded", "x");
    assert_eq!(app.send_json(&first).await.0, 200);
    sink.wait_for(2, Duration::from_secs(5)).await;
    let opened = std::time::Instant::now();
    // Open: neither the retry nor a new event is attempted...
    let second = Webhook::new("stripe", "acme", "evt_open_2", "charge.succeeded", "x");
    assert_eq!(app.send_json(&second).await.0, 200);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        sink.received().len(),
        2,
        "no call while the circuit is open"
    );
    assert_eq!(
        app.metric(r#"hookline_circuit_open{handler="billing"}"#)
            .await,
        1.0
    );
    // ...until the cool-down lets a probe through, which closes it.
    let got = sink.wait_for(4, Duration::from_secs(5)).await;
    assert!(opened.elapsed() >= Duration::from_millis(900));
    for w in [&first, &second] {
        assert!(got.iter().any(|r| r.body == w.body), "both delivered");
    }
    drained(&streams_of(&app)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_ack_handlers_a_non_critical_event_is_delivered_once_from_postgresql() {
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = handler(&sink.url, "");
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"4s\"\n".into();
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_acked", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    // The handler's acknowledgement came from the row the request waited
    // on; completing the key appended nothing to a stream.
    assert_eq!(
        app.deliveries("evt_acked").await[0].state,
        DeliveryState::Delivered
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sink.received().len(), 1, "delivered once");
    assert_eq!(streams_of(&app).stream_pending().await.unwrap(), 0);
}

/// Deliveries waiting in the streams, asked until Redis answers (the
/// client reconnects on demand after a restart).
async fn pending_once_up(store: &Store) -> u64 {
    for _ in 0..100 {
        if let Ok(n) = store.stream_pending().await {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    store.stream_pending().await.unwrap()
}

/// An app with deliveries in streams on `redis`, a Redis of its own, and
/// `extra` in its configuration.
pub(super) async fn app_on(redis: &common::servers::RedisServer, extra: String) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = extra;
    let (text, guard) = test_config(&opts, dir.path()).await;
    let shared = format!("redis_url = \"{}\"", common::redis_url());
    assert!(text.contains(&shared));
    let text = text.replace(&shared, &format!("redis_url = \"{}\"", redis.url()));
    spawn_text(text, Backend::Streams, guard, dir).await
}

/// An app on a Redis of its own, its handler failing until told otherwise,
/// and `w` accepted: its delivery waits in a stream, attempted twice.
async fn waiting_on(redis: &common::servers::RedisServer, w: &Webhook) -> (Sink, TestApp, Store) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(503));
    let extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"500ms\"\nmax_attempts = 1000\n\n[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"100ms\"\nlease = \"1s\"\n",
        sink.url
    );
    let app = app_on(redis, extra).await;
    let store = streams_of(&app);
    assert_eq!(app.send_json(w).await.1["status"], "accepted");
    sink.wait_for(2, Duration::from_secs(5)).await;
    assert_eq!(store.stream_pending().await.unwrap(), 1);
    (sink, app, store)
}

/// What `docs/redis-store.md` says of a Redis without persistence: the
/// deliveries waiting in it are lost with the dedup keys when it restarts
/// empty, and the provider's retry is then a new event, delivered again.
/// With AOF (`appendfsync always`) a crash of Redis loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restart_loses_waiting_deliveries_without_persistence_and_keeps_them_with_aof() {
    use common::servers::RedisServer;
    let w = Webhook::new("stripe", "acme", "evt_persist", "charge.succeeded", "x");

    // No persistence: the waiting delivery goes with the key.
    let mut redis = RedisServer::start();
    let (sink, app, store) = waiting_on(&redis, &w).await;
    redis.restart();
    assert_eq!(pending_once_up(&store).await, 0, "lost with Redis");
    sink.always(Reply::Status(200));
    // The provider's retry is accepted as new, and delivered.
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    drained(&store).await;
    let got = sink.received();
    assert_eq!(got.last().unwrap().body, w.body);
    assert_eq!(got.last().unwrap().header("x-hookline-attempt"), Some("1"));
    drop(app);

    // AOF, every write synced: killed (SIGKILL) and restarted, Redis still
    // holds the waiting delivery, and it is delivered once the handler is
    // back, without the provider sending anything.
    let mut redis = RedisServer::start_with(
        common::servers::free_port(),
        &["--appendonly", "yes", "--appendfsync", "always"],
    );
    let (sink, app, store) = waiting_on(&redis, &w).await;
    redis.restart();
    assert_eq!(pending_once_up(&store).await, 1, "kept by AOF");
    sink.always(Reply::Status(200));
    drained(&store).await;
    let got = sink.received();
    assert_eq!(got.last().unwrap().body, w.body);
    assert_eq!(
        got.last()
            .unwrap()
            .header("x-hookline-attempt")
            .map(|a| a != "1"),
        Some(true)
    );
    assert_eq!(
        app.send_json(&w).await.1["status"],
        "duplicate",
        "the key survived too"
    );
}
