//! The `redis` store beyond the shared black-box suite: several receivers
//! on one dedup state, Redis Cluster, the schema gate. Stale owners and
//! owners racing to commit are in `redis_owners.rs`; the size of a dedup
//! key is measured in `redis_memory.rs`.

use crate::common;

use std::time::Duration;

use hookline::config;
use hookline::store::{OpenError, Store};

use crate::redis_owners::store_on;
use common::servers::{
    config_text, prefix, redis_store_section, spawn_from_text, RedisCluster, RedisServer,
};
use common::{redis_url, TestApp, TestDatabase, Webhook};

pub(crate) const CRITICAL: &str = r#"["payment_intent.*"]"#;

/// `n` receivers sharing one key prefix and one database, like replicas
/// behind a load balancer.
async fn replicas(n: usize, redis: &str) -> Vec<TestApp> {
    let db = TestDatabase::create().await;
    let store = redis_store_section(redis, &db.url, &prefix(), "2s");
    let text = config_text(&store, r#"["*"]"#, "5s");
    let mut apps = vec![spawn_from_text(&text, Some(db)).await];
    for _ in 1..n {
        apps.push(spawn_from_text(&text, None).await);
    }
    apps
}

/// Fire `copies` of each of `ids` at once, spread over `apps`; count the
/// answers by kind.
async fn race(apps: &[TestApp], ids: usize, copies: usize, tenant: &str) -> (usize, usize, usize) {
    let hooks: Vec<Webhook> = (0..ids)
        .map(|i| {
            Webhook::new(
                "stripe",
                tenant,
                &format!("evt_race_{i}"),
                "payment_intent.succeeded",
                "a",
            )
        })
        .collect();
    let sends = (0..ids * copies).map(|n| {
        let app = &apps[n % apps.len()];
        let w = &hooks[n % ids];
        async move { app.send_json(w).await }
    });
    let answers = futures::future::join_all(sends).await;
    let (mut accepted, mut duplicate, mut in_progress) = (0, 0, 0);
    for (status, body) in answers {
        match (status, body["status"].as_str(), body["code"].as_str()) {
            (200, Some("accepted"), _) => accepted += 1,
            (200, Some("duplicate"), _) => duplicate += 1,
            (409, _, Some("in_progress")) => in_progress += 1,
            _ => panic!("unexpected answer {status}: {body}"),
        }
    }
    (accepted, duplicate, in_progress)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_requests_over_twenty_ids_on_four_receivers_accept_each_once() {
    let apps = replicas(4, &format!("redis_url = \"{}\"", redis_url())).await;
    let (accepted, duplicate, in_progress) = race(&apps, 20, 10, "acme").await;
    eprintln!("accepted {accepted}, duplicate {duplicate}, in_progress {in_progress}");
    assert_eq!(accepted, 20, "dup {duplicate}, in progress {in_progress}");
    assert_eq!(accepted + duplicate + in_progress, 200);
    let inv = apps[0].inventory().await;
    assert_eq!(inv.processed_events, 20);
    assert_eq!(inv.dedup_keys, 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_cluster_accepts_deduplicates_conflicts_and_races() {
    let cluster = RedisCluster::start();
    let nodes = cluster
        .urls()
        .iter()
        .map(|u| format!("\"{u}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let apps = replicas(2, &format!("redis_cluster = [{nodes}]")).await;
    let app = &apps[0];

    // Tenants hash to different slots, hence (likely) different masters.
    for tenant in ["acme", "globex", "default"] {
        let w = Webhook::new("stripe", tenant, "evt_c1", "payment_intent.succeeded", "a");
        assert_eq!(app.send_json(&w).await.1["status"], "accepted");
        let (status, body) = apps[1].send_json(&w).await;
        assert_eq!((status, &body["status"]), (200, &"duplicate".into()));
        let other = Webhook::new("stripe", tenant, "evt_c1", "payment_intent.succeeded", "b");
        let (status, body) = app.send_json(&other).await;
        assert_eq!((status, &body["code"]), (422, &"event_id_conflict".into()));
    }
    // Concurrent claims on one key, through both receivers.
    let (accepted, duplicate, in_progress) = race(&apps, 1, 40, "acme").await;
    assert_eq!(accepted, 1, "dup {duplicate}, in progress {in_progress}");

    let inv = app.inventory().await;
    assert_eq!(inv.dedup_keys, 4, "SCAN covers every master");
    assert_eq!(inv.processed_events, 4);
    assert_eq!(inv.quarantined, 3);

    // `redis+cluster://` in redis_url selects the cluster client too.
    let db = TestDatabase::create().await;
    let url = cluster.urls()[0].replace("redis://", "redis+cluster://");
    let store = redis_store_section(&format!("redis_url = \"{url}\""), &db.url, &prefix(), "2s");
    let single_seed = spawn_from_text(&config_text(&store, CRITICAL, "5s"), Some(db)).await;
    let w = Webhook::new(
        "stripe",
        "globex",
        "evt_seed",
        "payment_intent.succeeded",
        "a",
    );
    assert_eq!(single_seed.send_json(&w).await.1["status"], "accepted");
    assert_eq!(single_seed.send_json(&w).await.1["status"], "duplicate");
}

#[tokio::test]
async fn serve_refuses_a_schema_that_is_behind_until_migrated() {
    let db = TestDatabase::create().await;
    let store = redis_store_section(
        &format!("redis_url = \"{}\"", redis_url()),
        &db.url,
        &prefix(),
        "2s",
    );
    let settings = config::from_toml_str("t.toml", &config_text(&store, CRITICAL, "5s")).unwrap();
    match Store::connect(&settings.store).await {
        Err(OpenError::SchemaBehind(why)) => assert!(why.contains("not applied"), "{why}"),
        other => panic!("expected SchemaBehind, got {other:?}"),
    }
    Store::migrate(&settings.store).await.unwrap();
    Store::migrate(&settings.store).await.expect("idempotent");
    Store::connect(&settings.store).await.expect("migrated");
}

/// Indicative latency of the hot path on the shared Redis and PostgreSQL
/// (run with `--run-ignored only --no-capture`; a debug build).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement, not a check"]
async fn hot_path_latency() {
    let apps = replicas(1, &format!("redis_url = \"{}\"", redis_url())).await;
    let db = TestDatabase::create().await;
    let store = redis_store_section(
        &format!("redis_url = \"{}\"", redis_url()),
        &db.url,
        &prefix(),
        "2s",
    );
    let plain_app = spawn_from_text(&config_text(&store, r#"["none"]"#, "5s"), Some(db)).await;
    for (name, app) in [("critical", &apps[0]), ("non-critical", &plain_app)] {
        let mut took = Vec::new();
        for i in 0..400 {
            let w = Webhook::new(
                "stripe",
                "acme",
                &format!("evt_lat_{i}"),
                "payment_intent.succeeded",
                "a",
            );
            let start = std::time::Instant::now();
            assert_eq!(app.send_json(&w).await.0, 200);
            took.push(start.elapsed());
        }
        took.sort();
        eprintln!(
            "{name}: p50 {:?} p99 {:?} (400 sequential requests, HTTP included)",
            took[took.len() / 2],
            took[took.len() * 99 / 100]
        );
    }
}

#[tokio::test]
async fn store_urls_never_show_in_debug_output_or_errors() {
    let db = TestDatabase::create().await;
    // The shared server trusts local connections, so the password is
    // carried but not checked.
    let mut url = url::Url::parse(&db.url).unwrap();
    url.set_password(Some("pg-s3cret")).unwrap();
    let redis = redis_url().replace("redis://", "redis://:rd-s3cret@");
    let store = redis_store_section(
        &format!("redis_url = \"{redis}\""),
        url.as_str(),
        &prefix(),
        "1s",
    );
    let settings = config::from_toml_str("t.toml", &config_text(&store, CRITICAL, "5s")).unwrap();
    Store::migrate(&settings.store).await.unwrap();
    let store = Store::connect(&settings.store).await.unwrap();
    let shown = format!("{store:?} {:?}", store.ping().await);
    assert!(!shown.contains("s3cret"), "{shown}");

    // A server that refuses the connection: the error names no URL either.
    let closed = common::servers::free_port();
    url.set_port(Some(closed)).unwrap();
    let store = redis_store_section(
        "redis_url = \"redis://:rd-s3cret@127.0.0.1:1\"",
        url.as_str(),
        &prefix(),
        "1s",
    );
    let settings = config::from_toml_str("t.toml", &config_text(&store, CRITICAL, "5s")).unwrap();
    let err = Store::connect(&settings.store).await.unwrap_err();
    let shown = format!("{err:?} {err}");
    assert!(
        !shown.contains("s3cret") && !shown.contains(&closed.to_string()),
        "{shown}"
    );
}

/// A table that grows fast is analyzed by the receiver itself, so cached
/// plans made while it was empty do not keep scanning it whole
/// (`src/store/postgres/stats.rs`). `analyze_count` counts manual ANALYZEs
/// only, never autovacuum's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_growing_table_is_analyzed_by_the_receiver() {
    use sqlx::Connection;
    let redis = RedisServer::start();
    let (_store, _settings, db) = store_on(&redis).await;
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    const ANALYZED: &str =
        "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'processed_event'";
    let count: i64 = sqlx::query_scalar(ANALYZED)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(count, 0, "a new table");
    sqlx::query(
        "INSERT INTO processed_event (provider, tenant, event_id, event_type, body_sha256, body)
         SELECT 'stripe', 'acme', 'evt_grow_' || n, 't', sha256(n::text::bytea), 'x'
         FROM generate_series(1, 1500) n",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let count: i64 = sqlx::query_scalar(ANALYZED)
            .fetch_one(&mut conn)
            .await
            .unwrap();
        if count > 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "1,500 new rows were not analyzed within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
