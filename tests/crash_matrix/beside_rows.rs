//! Two crashes beside the matrix's rows: a claim that outlives its
//! owner's request, and the Redis-only path's one script killed after its
//! answer.

use std::time::Duration;

use crate::common::procs::{config_with, free_port, serve, serve_with, try_post, wait_ready};
use crate::common::sink::Sink;
use crate::common::{self, AppOptions, Backend, Webhook};
use crate::{died_within, retry_until_2xx};
use hookline::store::{DedupRecord, Store};

/// A request slower than `dedup.in_progress_ttl` (held at `before_commit`,
/// after its handler acknowledged under `ack = "handlers"`: otherwise the
/// embedded store claims and commits in one step) loses its claim to the
/// provider's retry: its completion is refused and counted, the retry's
/// stands, and the event is recorded once. (On the redis store a critical
/// event's row decides instead: the slow request finds the retry's row and
/// is answered `duplicate`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_owner_cannot_complete_and_is_counted() {
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.in_progress_ttl = "1s";
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"500ms\"\n".into();
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\ntimeout = \"400ms\"\nsigning_secret = \"{}\"\n\n[delivery]\npoll_interval = \"20ms\"\n",
        sink.url,
        common::HANDLER_SECRET
    );
    let app = std::sync::Arc::new(common::spawn_app_with(opts).await);
    fail::cfg("before_commit", "1*return(1800)->off").unwrap();
    let w = Webhook::new("stripe", "acme", "evt_slow", "charge.succeeded", "x");
    let slow = {
        let (app, w) = (app.clone(), w.clone());
        tokio::spawn(async move { app.send_json(&w).await })
    };
    // The slow request's claim expires after 1 s; the retry takes the key,
    // finds the delivery acknowledged and completes.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let (code, body) = app.send_json(&w).await;
    assert_eq!((code, body["status"].as_str()), (200, Some("accepted")));
    let (code, body) = slow.await.unwrap();
    assert_eq!((code, body["code"].as_str()), (409, Some("in_progress")));
    let series = r#"hookline_stale_completions_total{provider="stripe"}"#;
    assert_eq!(app.metric(series).await, 1.0);
    assert_eq!(app.inventory().await.processed_events, 1);
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    assert_eq!(sink.received().len(), 1, "one delivery, made once");
}

/// The Redis-only path in one script (a non-critical event no handler
/// wants is claimed and completed by claim.lua at once): the process killed
/// just after its 2xx, the event stays recorded, and the provider's retry
/// is a duplicate, with no handler called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_one_script_path_keeps_what_it_answered() {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(vec![]);
    let opts = AppOptions::new(Backend::Redis);
    let (config, _db, keys) = config_with(opts, dir.path(), &sink, "").await;
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("critical = [\"*\"]", "critical = []")
        .replace(
            "events = [\"stripe:*\"]",
            "events = [\"stripe:never.sent\"]",
        );
    std::fs::write(&config, text).unwrap();
    let port = free_port();
    let mut doomed = serve_with(
        &config,
        "all",
        port,
        &[("FAILPOINTS", "after_answer=return")],
    );
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_fast", "charge.succeeded", "x");
    let first = try_post(port, &w)
        .await
        .map(|(s, b)| (s, b["status"].clone()));
    assert_eq!(first, Some((200, "accepted".into())));
    assert!(died_within(&mut doomed, Duration::from_secs(20)));
    drop(doomed);

    let _restarted = serve(&config, "all", port);
    wait_ready(port).await;
    assert_eq!(
        retry_until_2xx(port, &w).await,
        [(200, "duplicate".to_owned())]
    );
    let store = Store::connect(&keys.settings.store).await.unwrap();
    let key = common::key("stripe", "acme", "evt_fast");
    assert!(matches!(
        store.dedup_record(&key).await.unwrap(),
        DedupRecord::Completed { .. }
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(sink.received().is_empty(), "no handler wants it");
}
