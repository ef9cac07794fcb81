//! Store faults, injected on servers of the test's own (the shared Redis
//! and PostgreSQL are never stopped): the receiver fails closed with 503 +
//! `Retry-After`, never hangs, and recovers by itself.

use crate::common;

use std::time::{Duration, Instant};

use common::servers::{
    config_text, prefix, redis_store_section, spawn_from_text, BlackHole, PgServer, RedisServer,
};
use common::{redis_url, TestApp, TestDatabase, Webhook};

/// `payment_intent.*` is critical (PostgreSQL + Redis); the rest is
/// Redis-only.
const CRITICAL: &str = r#"["payment_intent.*"]"#;
const CRITICAL_TYPE: &str = "payment_intent.succeeded";
const PLAIN_TYPE: &str = "customer.created";

/// The shared PostgreSQL, a database of the test's own, and `redis`.
async fn app_on_redis(redis: &str, timeout: &str) -> TestApp {
    let db = TestDatabase::create().await;
    let store = redis_store_section(
        &format!("redis_url = \"{redis}\""),
        &db.url,
        &prefix(),
        timeout,
    );
    spawn_from_text(&config_text(&store, CRITICAL, "5s"), Some(db)).await
}

fn assert_unavailable(status: u16, retry_after: Option<&str>, body: &serde_json::Value) {
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "store_unavailable", "{body}");
    assert!(retry_after.is_some(), "503 without Retry-After");
}

/// Send until the status is `want` (a provider retrying), or panic.
async fn send_until(app: &TestApp, w: &Webhook, want: u16, limit: Duration) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let (status, body) = app.send_json(w).await;
        if status == want {
            return body;
        }
        assert!(
            start.elapsed() < limit,
            "still {status} after {limit:?}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn send_full(app: &TestApp, w: &Webhook) -> (u16, Option<String>, serde_json::Value) {
    let res = app.send(w).await;
    let status = res.status().as_u16();
    let retry_after = res
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, retry_after, res.json().await.unwrap_or_default())
}

fn dedup_key(app: &TestApp, route: &str, tenant: &str, event_id: &str) -> Vec<u8> {
    hookline::store::redis_dedup_key(app.key_prefix(), route, tenant, event_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_answers_503_and_the_retry_is_accepted_once_it_is_back() {
    let mut redis = RedisServer::start();
    let app = app_on_redis(&redis.url(), "500ms").await;
    let warm = Webhook::new("stripe", "acme", "evt_warm", CRITICAL_TYPE, "a");
    assert_eq!(app.send_json(&warm).await.0, 200);

    redis.stop();
    let critical = Webhook::new("stripe", "acme", "evt_down_1", CRITICAL_TYPE, "a");
    let plain = Webhook::new("stripe", "acme", "evt_down_2", PLAIN_TYPE, "a");
    for w in [&critical, &plain] {
        let (status, retry_after, body) = send_full(&app, w).await;
        assert_unavailable(status, retry_after.as_deref(), &body);
    }
    // Fail closed: nothing was recorded while Redis was down.
    assert!(app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_down_1"))
        .await
        .unwrap()
        .is_none());
    let ready = app
        .client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status().as_u16(), 503);

    redis.restart();
    for w in [&critical, &plain] {
        let body = send_until(&app, w, 200, Duration::from_secs(10)).await;
        assert_eq!(body["status"], "accepted", "{body}");
    }
    assert_eq!(app.inventory().await.processed_events, 2, "warm + critical");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_empty_still_answers_duplicate_from_postgres() {
    let mut redis = RedisServer::start();
    let app = app_on_redis(&redis.url(), "1s").await;
    let first = Webhook::new("stripe", "acme", "evt_keep_1", CRITICAL_TYPE, "original");
    let second = Webhook::new("stripe", "acme", "evt_keep_2", CRITICAL_TYPE, "original");
    for w in [&first, &second] {
        assert_eq!(app.send_json(w).await.1["status"], "accepted");
    }

    redis.restart();
    assert_eq!(redis.cli(&["DBSIZE"]).trim(), "0", "restarted empty");

    // The row answers: duplicate, and the key is repaired to COMPLETED.
    let body = send_until(&app, &first, 200, Duration::from_secs(10)).await;
    assert_eq!(body["status"], "duplicate", "{body}");
    let key = dedup_key(&app, "stripe", "acme", "evt_keep_1");
    let pttl: i64 = redis.cmd(redis::cmd("PTTL").arg(&key)).await;
    assert!(pttl > 3_000_000, "repaired for the window, got PTTL {pttl}");
    let (status, _) = app.send_json(&first).await;
    assert_eq!(status, 200, "served from Redis again");

    // A different body first after the restart: conflict, and the key is
    // keyed to the ORIGINAL body, so the original is then a duplicate.
    let tampered = Webhook::new("stripe", "acme", "evt_keep_2", CRITICAL_TYPE, "other");
    let (status, body) = app.send_json(&tampered).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "event_id_conflict");
    let (status, body) = app.send_json(&second).await;
    assert_eq!(
        (status, &body["status"]),
        (200, &"duplicate".into()),
        "{body}"
    );

    let inv = app.inventory().await;
    assert_eq!(inv.processed_events, 2, "one row per event, ever");
    assert_eq!(inv.quarantined, 1);
    let row = app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_keep_2"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.body, second.body, "the original stands");
}

/// The clients connected to `redis` other than `redis-cli` itself.
fn redis_clients(redis: &RedisServer) -> usize {
    let list = redis.cli(&["CLIENT", "LIST"]);
    list.lines().filter(|l| !l.contains("cmd=client")).count()
}

/// Each HTTP worker thread claims over a Redis connection of its own, so a
/// request's round trips stay on its thread; the delivery workers and
/// background tasks share one more (`docs/redis-store.md`). After a
/// restart each HTTP worker makes its own again, and no more than that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_http_worker_claims_over_a_redis_connection_of_its_own() {
    let mut redis = RedisServer::start();
    let app = app_on_redis(&redis.url(), "1s").await;
    let http_workers = std::thread::available_parallelism().unwrap().get();
    // Many requests at once, over as many client connections, reach every
    // HTTP worker.
    let burst = |round: &'static str| {
        let app = &app;
        async move {
            let events: Vec<Webhook> = (0..64)
                .map(|i| {
                    Webhook::new(
                        "stripe",
                        "acme",
                        &format!("evt_{round}_{i}"),
                        PLAIN_TYPE,
                        "a",
                    )
                })
                .collect();
            futures::future::join_all(events.iter().map(|w| app.send_json(w))).await
        }
    };
    for (status, body) in burst("before").await {
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(redis_clients(&redis), http_workers + 1);

    redis.restart();
    // The first request on each connection after the restart may meet it
    // closed (503, retried by the provider); each is made again on demand.
    send_until(
        &app,
        &Webhook::new("stripe", "acme", "evt_after", PLAIN_TYPE, "a"),
        200,
        Duration::from_secs(10),
    )
    .await;
    let start = Instant::now();
    loop {
        let answers = burst("after").await;
        if answers.iter().all(|(status, _)| *status == 200) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "still failing: {answers:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The shared one comes back when it is next used; none is doubled.
    let after = redis_clients(&redis);
    assert!(
        (http_workers..=http_workers + 1).contains(&after),
        "{after} connections for {http_workers} HTTP workers"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_down_fails_critical_events_closed_and_keeps_plain_ones_flowing() {
    let mut pg = PgServer::start();
    let store = redis_store_section(
        &format!("redis_url = \"{}\"", redis_url()),
        &pg.url(),
        &prefix(),
        "500ms",
    );
    let app = spawn_from_text(&config_text(&store, CRITICAL, "5s"), None).await;
    let warm = Webhook::new("stripe", "acme", "evt_pg_0", CRITICAL_TYPE, "a");
    assert_eq!(app.send_json(&warm).await.0, 200);

    pg.stop();
    let critical = Webhook::new("stripe", "acme", "evt_pg_1", CRITICAL_TYPE, "a");
    let (status, retry_after, body) = send_full(&app, &critical).await;
    assert_unavailable(status, retry_after.as_deref(), &body);
    // The claim was given back: the retry is not blocked for in_progress_ttl.
    let mut conn = crate::common::backing::redis_conn().await;
    let held: bool = redis::cmd("EXISTS")
        .arg(dedup_key(&app, "stripe", "acme", "evt_pg_1"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(!held, "the failed claim was released");
    // Policy: a non-critical event is Redis-only, so it is still accepted.
    let plain = Webhook::new("stripe", "acme", "evt_pg_2", PLAIN_TYPE, "a");
    let (status, body) = app.send_json(&plain).await;
    assert_eq!(
        (status, &body["status"]),
        (200, &"accepted".into()),
        "{body}"
    );

    pg.restart();
    let body = send_until(&app, &critical, 200, Duration::from_secs(10)).await;
    assert_eq!(body["status"], "accepted", "{body}");
    assert!(app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_pg_1"))
        .await
        .unwrap()
        .is_some());
    assert!(app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_pg_2"))
        .await
        .unwrap()
        .is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_never_answers_costs_a_503_within_the_store_timeout() {
    let hole = BlackHole::start().await;
    let start = Instant::now();
    // Starts anyway: the receiver reconnects on demand.
    let app = app_on_redis(&format!("redis://127.0.0.1:{}", hole.port), "300ms").await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "start-up is bounded"
    );
    for id in ["evt_hole_1", "evt_hole_2"] {
        let w = Webhook::new("stripe", "acme", id, CRITICAL_TYPE, "a");
        let start = Instant::now();
        let (status, retry_after, body) = send_full(&app, &w).await;
        let took = start.elapsed();
        assert_unavailable(status, retry_after.as_deref(), &body);
        assert!(took < Duration::from_millis(1500), "answered in {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_hangs_mid_connection_costs_a_503_then_recovers() {
    let redis = RedisServer::start();
    let app = app_on_redis(&redis.url(), "300ms").await;
    let w = Webhook::new("stripe", "acme", "evt_hang", CRITICAL_TYPE, "a");
    assert_eq!(
        app.send_json(&Webhook::new(
            "stripe",
            "acme",
            "evt_hang_0",
            CRITICAL_TYPE,
            "a"
        ))
        .await
        .0,
        200
    );

    redis.pause();
    let start = Instant::now();
    let (status, retry_after, body) = send_full(&app, &w).await;
    let took = start.elapsed();
    redis.resume();
    assert_unavailable(status, retry_after.as_deref(), &body);
    assert!(took < Duration::from_millis(1500), "answered in {took:?}");

    // Well within in_progress_ttl (5s): the claim the frozen Redis ran
    // late was given back, so the retry is not blocked until it expires.
    let body = send_until(&app, &w, 200, Duration::from_secs(3)).await;
    assert!(
        body["status"] == "accepted" || body["status"] == "duplicate",
        "{body}"
    );
    let row = app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_hang"))
        .await;
    assert!(row.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_fails_start_up_within_the_timeout() {
    let hole = BlackHole::start().await;
    let store = redis_store_section(
        &format!("redis_url = \"{}\"", redis_url()),
        &format!("postgres://postgres@127.0.0.1:{}/postgres", hole.port),
        &prefix(),
        "300ms",
    );
    let settings =
        hookline::config::from_toml_str("t.toml", &config_text(&store, CRITICAL, "5s")).unwrap();
    let start = Instant::now();
    let err = hookline::store::Store::connect(&settings.store)
        .await
        .expect_err("a database that never answers");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "took {:?}",
        start.elapsed()
    );
    // The URL (which may carry a password) is not in the error.
    assert!(!format!("{err:?} {err}").contains(&hole.port.to_string()));
}
