//! What on-call reads, tried as a new operator would, through the real
//! binary split as compose runs it (a receiver and a workers node over one
//! store): the start-up line, a circuit that opens and closes in the log,
//! the answer line naming the event and the client, and the workers
//! node's own `/metrics` on `server.ops_listen`.

use std::time::{Duration, Instant};

use crate::common::procs::{config, free_port, post, serve, serve_with, wait_ready};
use crate::common::sink::{Reply, Sink};
use crate::common::{Backend, Webhook};

/// The log of `role`'s first process once it holds `needle`.
async fn log_with(dir: &std::path::Path, role: &str, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let log = std::fs::read_to_string(dir.join(format!("{role}-0.log"))).unwrap_or_default();
        if log.contains(needle) || Instant::now() > deadline {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_split_node_logs_its_circuit_and_serves_its_own_metrics(backend: Backend) {
    // Six refusals open the circuit (five in a row) and fail its first
    // probe; then the handler answers.
    let handler = Sink::start(vec![Reply::Status(503); 6]);
    let dir = tempfile::tempdir().unwrap();
    let delivery = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"40ms\"\ncircuit_cooldown = \"200ms\"\n";
    let (config, _db, _keys) = config(backend, dir.path(), &handler, delivery).await;
    let port = free_port();
    let _receiving = serve(&config, "receiver", port);
    wait_ready(port).await;
    let ops = free_port();
    let ops_listen = format!("127.0.0.1:{ops}");
    let _working = serve_with(
        &config,
        "workers",
        0,
        &[("HOOKLINE__SERVER__OPS_LISTEN", ops_listen.as_str())],
    );
    wait_ready(ops).await;

    let w = Webhook::new("stripe", "acme", "evt_oncall", "charge.succeeded", "o");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");
    handler.wait_for(7, Duration::from_secs(20)).await;

    let workers = log_with(dir.path(), "workers", "circuit closed").await;
    for needle in [
        "circuit opened",
        "circuit closed",
        "handler=billing",
        concat!("version=\"", env!("CARGO_PKG_VERSION"), "\""),
        "role=Workers",
        config.to_str().unwrap(),
    ] {
        assert!(workers.contains(needle), "no {needle:?} in:\n{workers}");
    }
    let opened = workers.find("circuit opened").unwrap();
    assert!(
        opened < workers.find("circuit closed").unwrap(),
        "{workers}"
    );

    let receiver = log_with(dir.path(), "receiver", "answered").await;
    let answered = receiver
        .lines()
        .find(|l| l.contains("answered"))
        .unwrap_or_else(|| panic!("no answer line:\n{receiver}"));
    for needle in [
        "event_id=\"evt_oncall\"",
        "client=127.0.0.1",
        "outcome=\"accepted\"",
    ] {
        assert!(answered.contains(needle), "no {needle:?} in: {answered}");
    }
    // Each field once: a value recorded twice on a span is written twice.
    for field in ["event_id=", "event_type=", "outcome=", "status="] {
        assert_eq!(answered.matches(field).count(), 1, "{field} in: {answered}");
    }
    assert!(receiver.contains("role=Receiver"), "{receiver}");

    // The workers node's own /metrics has the delivery and circuit series;
    // its operators' port serves no webhook.
    let metrics = reqwest::get(format!("http://{ops_listen}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let retries = crate::common::series_value(
        &metrics,
        "hookline_delivery_attempts_total{handler=\"billing\",outcome=\"retry\"}",
    );
    assert!(retries >= 6.0, "{metrics}");
    assert!(
        metrics.contains("hookline_circuit_open{handler=\"billing\"} 0"),
        "{metrics}"
    );
    let res = reqwest::Client::new()
        .post(format!("http://{ops_listen}{}", w.path))
        .body(w.body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}

backend_tests!(a_split_node_logs_its_circuit_and_serves_its_own_metrics);

/// A store failure's log line says which store failed: here Redis, down
/// while PostgreSQL answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_failure_names_the_store_that_failed() {
    let sink = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let (config, _db, _keys) = config(Backend::Redis, dir.path(), &sink, "").await;
    let down = format!("redis://127.0.0.1:{}/0", free_port());
    let port = free_port();
    let _node = serve_with(
        &config,
        "all",
        port,
        &[("HOOKLINE__STORE__REDIS_URL", down.as_str())],
    );
    // Not ready (Redis is down), but up.
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while client
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "never up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let w = Webhook::new("stripe", "acme", "evt_no_redis", "customer.created", "s");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 503, "{body}");
    let log = log_with(dir.path(), "all", "store failure").await;
    let line = log
        .lines()
        .find(|l| l.contains("store failure"))
        .unwrap_or_else(|| panic!("no store failure line:\n{log}"));
    assert!(line.contains("store=\"Redis\""), "{line}");
    assert!(line.contains("event_id=\"evt_no_redis\""), "{line}");
}

/// On the embedded store a failure's line names SQLite: here another
/// process holds the file's write lock past the store's timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_store_failure_names_sqlite() {
    use sqlx::Connection as _;
    let sink = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let (config, _db, keys) = config(Backend::Embedded, dir.path(), &sink, "").await;
    let hookline::config::StoreSettings::Embedded(store) = &keys.settings.store else {
        panic!("an embedded store");
    };
    let port = free_port();
    let _node = serve_with(
        &config,
        "all",
        port,
        &[("HOOKLINE__STORE__TIMEOUT", "300ms")],
    );
    wait_ready(port).await;
    let mut writer =
        sqlx::sqlite::SqliteConnection::connect(&format!("sqlite://{}", store.path.display()))
            .await
            .unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut writer)
        .await
        .unwrap();
    let w = Webhook::new("stripe", "acme", "evt_locked", "customer.created", "s");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 503, "{body}");
    sqlx::query("ROLLBACK").execute(&mut writer).await.unwrap();
    let log = log_with(dir.path(), "all", "store failure").await;
    let line = log
        .lines()
        .find(|l| l.contains("store failure"))
        .unwrap_or_else(|| panic!("no store failure line:\n{log}"));
    assert!(line.contains("store=\"SQLite\""), "{line}");
    assert!(line.contains("event_id=\"evt_locked\""), "{line}");
    // Once the lock is gone, the provider's retry is taken.
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");
}
