//! Non-critical deliveries in Redis Streams (`store.non_critical_deliveries
//! = "redis"`), against real Redis, PostgreSQL and a local handler: what a
//! user checks is that the handler gets each event at least once with one
//! `webhook-id`, retried with backoff, that nothing of it reaches
//! PostgreSQL until it is a dead letter, that a dead letter is where
//! operators find and requeue dead letters, and that the backlog shows in
//! `/metrics`. Crashes: `crash.rs` and `tests/crash_matrix.rs` run their
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

const FAST: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\nlease = \"10s\"\n";

fn handler(url: &str, extra: &str) -> String {
    format!(
        "[handlers.billing]\nurl = \"{url}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\n{extra}\n{FAST}"
    )
}

async fn app(url: &str, extra: &str) -> TestApp {
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = handler(url, extra);
    spawn_app_with(opts).await
}

/// The app's store as its workers see it: with the lanes of its config.
fn streams_of(app: &TestApp) -> Store {
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

/// An app whose handler nobody answers, and one event accepted for it:
/// every attempt fails, and its delivery waits in the streams to retry.
async fn with_a_waiting_delivery(event_id: &str) -> TestApp {
    let port = common::servers::free_port();
    let app = app(&format!("http://127.0.0.1:{port}/"), "max_attempts = 1000").await;
    let w = Webhook::new("stripe", "acme", event_id, "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    tokio::time::sleep(Duration::from_millis(100)).await;
    app
}

/// Wait until nothing waits in the app's streams.
async fn drained(store: &Store) {
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
    let attempts = app.store.records().attempts(d.id).await.unwrap();
    assert_eq!(attempts.len(), 1, "the last attempt is kept: {attempts:?}");
    assert_eq!((attempts[0].attempt, attempts[0].status), (2, Some(500)));
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
async fn a_waiting_stream_delivery_counts_in_the_pending_gauge_and_the_handler_panel() {
    let app = with_a_waiting_delivery("evt_waits").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(app.metric("hookline_deliveries_pending").await, 1.0);
    assert_eq!(app.store.records().depth().await.unwrap().pending, 0);
    assert!(app.deliveries("evt_waits").await.is_empty());
    // What the console's handler panel and the dead-letter alert read.
    let depths = streams_of(&app).depth_by_handler().await.unwrap();
    let billing = depths.iter().find(|d| d.handler == "billing").unwrap();
    assert_eq!((billing.depth.pending, billing.depth.dead), (1, 0));
    // What the event's report (its console page, `hookline events show`)
    // reads: the delivery where it waits, its attempts and when it is due.
    let key = common::key("stripe", "acme", "evt_waits");
    let mut seen = Vec::new();
    for _ in 0..250 {
        let report = streams_of(&app).event_report(&key).await.unwrap().unwrap();
        assert!(report.deliveries.is_empty());
        seen = report.waiting;
        if seen.len() == 1 && seen[0].attempts >= 1 && seen[0].retry_at.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let [w] = &seen[..] else { panic!("{seen:?}") };
    assert_eq!(w.handler, "billing");
    assert!(w.attempts >= 1 && w.retry_at.is_some(), "{w:?}");
    assert!(w.last_error.is_some() && w.last_status.is_none(), "{w:?}");
    // Another event of the tenant is not this one's.
    let other = common::key("stripe", "acme", "evt_other");
    assert!(streams_of(&app)
        .event_report(&other)
        .await
        .unwrap()
        .is_none());
}

/// A handler removed from the configuration while deliveries waited for
/// it: its stream is named, with how many wait (the workers warn of it at
/// start), so they are not left there unseen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_no_configured_handler_reads_is_named_with_what_waits() {
    let app = with_a_waiting_delivery("evt_orphan").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(streams_of(&app).unread_streams().await.unwrap(), []);
    // The same store, read by a node whose configuration has no `billing`.
    let without = stream_lanes(&app.settings)
        .into_iter()
        .filter(|lane| lane.handler != "billing")
        .collect();
    let store = app.store.clone().with_lanes(|| without);
    let unread = store.unread_streams().await.unwrap();
    let names: Vec<_> = unread
        .iter()
        .map(|u| {
            (
                u.provider.as_str(),
                u.tenant.as_str(),
                u.handler.as_str(),
                u.waiting,
            )
        })
        .collect();
    assert_eq!(names, [("stripe", "acme", "billing", 1)]);
}

/// What the operator sees of it: a node started without the handler warns,
/// naming the stream and how many deliveries wait in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_without_the_handler_warns_of_its_waiting_deliveries_at_start() {
    use common::procs::{config, free_port, post, serve_with, wait_ready};
    let sink = Sink::start(vec![]);
    let dir = tempfile::tempdir().unwrap();
    let nobody = free_port();
    let gone = format!(
        "[handlers.gone]\nurl = \"http://127.0.0.1:{nobody}/\"\nevents = [\"stripe:*\"]\n\
         signing_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\nmax_attempts = 1000\n"
    );
    let (path, _store, _keys) = config(
        Backend::Streams,
        dir.path(),
        &sink,
        &format!("{gone}\n{FAST}"),
    )
    .await;
    let port = free_port();
    let node = serve_with(&path, "all", port, &[]);
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_gone", "charge.succeeded", "x");
    assert_eq!(post(port, &w).await.0, 200);
    sink.wait_for(1, Duration::from_secs(10)).await;
    drop(node);
    // The handler leaves the configuration; its delivery still waits.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace(&gone, "")).unwrap();
    let port = free_port();
    let _node = serve_with(&path, "all", port, &[]);
    wait_ready(port).await;
    let log = dir.path().join("all-1.log");
    for _ in 0..250 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(line) = text
            .lines()
            .find(|l| l.contains("no configured handler reads"))
        {
            assert!(
                line.contains("gone") && line.contains("waiting=1"),
                "{line}"
            );
            assert!(!line.contains("billing"), "{line}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "no warning: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_lists_an_events_deliveries_waiting_in_its_streams() {
    use common::console::{console_app, Operator};
    let sink = Sink::start(vec![]);
    // A second handler nothing answers: its delivery waits to be retried.
    let nobody = common::servers::free_port();
    let waits = format!(
        "[handlers.waits]\nurl = \"http://127.0.0.1:{nobody}/\"\nevents = [\"stripe:*\"]\n\
         signing_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\nmax_attempts = 1000\n"
    );
    let app = console_app(Backend::Streams, &sink, &waits).await;
    let w = Webhook::new("stripe", "acme", "evt_seen", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    sink.wait_for(1, Duration::from_secs(5)).await;
    let operator = Operator::sign_in(&app).await;
    let (status, page) = operator.get("/console/events/stripe/acme/evt_seen").await;
    assert_eq!(status, 200);
    assert!(page.contains("wait in Redis Streams"), "{page}");
    assert!(!page.contains("No handler subscribes"), "{page}");
    // `billing` acknowledged it (it left the streams); `waits` still holds it.
    assert!(page.contains("1 delivery waits"), "{page}");
    assert!(
        page.contains("waits <span class=\"badge pending\">waiting</span>"),
        "{page}"
    );
    assert!(!page.contains("billing <span"), "{page}");
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

/// An app on a Redis of its own, its handler failing until told otherwise,
/// and `w` accepted: its delivery waits in a stream, attempted twice.
async fn waiting_on(redis: &common::servers::RedisServer, w: &Webhook) -> (Sink, TestApp, Store) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Status(503));
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(Backend::Streams);
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"500ms\"\nmax_attempts = 1000\n\n[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"100ms\"\nlease = \"1s\"\n",
        sink.url
    );
    let (text, guard) = test_config(&opts, dir.path()).await;
    let shared = format!("redis_url = \"{}\"", common::redis_url());
    assert!(text.contains(&shared));
    let text = text.replace(&shared, &format!("redis_url = \"{}\"", redis.url()));
    let app = spawn_text(text, Backend::Streams, guard, dir).await;
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
