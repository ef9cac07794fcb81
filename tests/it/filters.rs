//! Per-handler filters (issue 27) through `serve`: an event a handler's
//! filter refuses is answered 200 to its provider, not delivered to that
//! handler, delivered to the others, and counted in
//! `hookline_filtered_total{handler}`; headers are matched without case;
//! `check-config` names the mistake's key and JSON path.
//!
//! The filters are Hookdeck's syntax (https://hookdeck.com/docs/filters).

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::console::{Operator, TOKEN};
use common::sink::Sink;
use common::{headers_for, now, secret, spawn_app_with, AppOptions, Backend, Webhook};

use common::HANDLER_SECRET;

fn handler(name: &str, sink: &Sink, events: &str, filter: &str) -> String {
    format!(
        "[handlers.{name}]\nurl = \"{}\"\nevents = [\"{events}\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\n{filter}\n",
        sink.url
    )
}

/// A signed Stripe charge event for tenant `acme`.
fn charge(event_id: &str, amount: u64, currency: &str) -> Webhook {
    let body = serde_json::to_vec(&serde_json::json!({
        "id": event_id, "object": "event", "type": "charge.succeeded",
        "data": {"object": {"amount": amount, "currency": currency}}
    }))
    .unwrap();
    let headers = headers_for(
        "stripe",
        &secret("stripe", "acme"),
        &body,
        event_id,
        "charge.succeeded",
        now(),
    );
    Webhook {
        path: "/webhooks/stripe/acme".into(),
        headers,
        body,
    }
}

async fn a_filtered_event_reaches_only_the_handlers_it_passes(backend: Backend) {
    let big = Sink::start(vec![]);
    let all = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    // The issue's own example.
    let filter = r#"filter = '{"body": {"data": {"object": {"amount": {"$gte": 1000}, "currency": {"$in": ["usd", "eur"]}}}}}'"#;
    opts.extra = format!(
        "{}{}[delivery]\npoll_interval = \"20ms\"\n[admin]\ntoken = \"{TOKEN}\"\n",
        handler("big-charges", &big, "stripe:charge.*", filter),
        handler("all-charges", &all, "stripe:charge.*", ""),
    );
    let app = spawn_app_with(opts).await;

    for (id, amount, currency) in [
        ("evt_small", 999, "usd"),
        ("evt_gbp", 5000, "gbp"),
        ("evt_big", 1000, "eur"),
    ] {
        let (status, body) = app.send_json(&charge(id, amount, currency)).await;
        assert_eq!(
            (status, body["status"].as_str()),
            (200, Some("accepted")),
            "{id}"
        );
    }

    let got = all.wait_for(3, Duration::from_secs(10)).await;
    assert_eq!(got.len(), 3);
    let got = big.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("x-hookline-event-id"), Some("evt_big"));
    // Nothing more comes to the filtered handler.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(big.received().len(), 1);

    let filtered = r#"hookline_filtered_total{handler="big-charges"}"#;
    assert_eq!(app.metric(filtered).await, 2.0);
    assert_eq!(
        app.metric(r#"hookline_filtered_total{handler="all-charges"}"#)
            .await,
        0.0
    );
    // A provider's retry of a filtered event is a duplicate, not counted again.
    let (_, again) = app.send_json(&charge("evt_small", 999, "usd")).await;
    assert_eq!(again["status"], "duplicate");
    assert_eq!(app.metric(filtered).await, 2.0);

    // The console's event page says which handler filtered it out.
    let op = Operator::sign_in(&app).await;
    let (status, page) = op.get("/console/events/stripe/acme/evt_small").await;
    assert_eq!(status, 200);
    let filtered_badge = "big-charges <span class=\"badge filtered\">filtered</span>";
    assert!(page.contains(filtered_badge), "{page}");
    assert!(page.contains("Its filter refuses this event"), "{page}");
    let (_, page) = op.get("/console/events/stripe/acme/evt_big").await;
    assert!(!page.contains(filtered_badge), "{page}");
}

async fn a_header_filter_matches_names_without_case(backend: Backend) {
    let pushes = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    let filter = r#"filter = '{"headers": {"X-GITHUB-EVENT": "push"}, "path": {"$startsWith": "/webhooks/github/"}}'"#;
    opts.extra = format!(
        "{}[delivery]\npoll_interval = \"20ms\"\n",
        handler("pushes", &pushes, "github:*", filter),
    );
    let app = spawn_app_with(opts).await;
    let issue = Webhook::new("github", "acme", "delivery-issue", "issues", "a");
    let push = Webhook::new("github", "acme", "delivery-push", "push", "b");
    assert_eq!(app.send_json(&issue).await.1["status"], "accepted");
    assert_eq!(app.send_json(&push).await.1["status"], "accepted");
    let got = pushes.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].header("x-hookline-event-id"), Some("delivery-push"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(pushes.received().len(), 1);
    // The header a filter reads is not forwarded unless asked for.
    assert_eq!(got[0].header("x-github-event"), None);
    assert_eq!(
        app.metric(r#"hookline_filtered_total{handler="pushes"}"#)
            .await,
        1.0
    );
}

/// The query string the provider called with is matched too (Hookdeck's
/// `query`): decoded, a repeated name an array.
async fn a_query_filter_matches_the_url_the_provider_called(backend: Backend) {
    let shop = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    let filter = r#"filter = '{"query": {"source": "shop", "tag": "vip"}}'"#;
    opts.extra = format!(
        "{}[delivery]\npoll_interval = \"20ms\"\n",
        handler("shop", &shop, "stripe:*", filter),
    );
    let app = spawn_app_with(opts).await;
    for (id, query) in [
        ("evt_q_none", ""),
        ("evt_q_other", "?source=pos&tag=vip"),
        ("evt_q_shop", "?source=sh%6Fp&tag=new&tag=vip"),
    ] {
        let mut w = charge(id, 10, "usd");
        w.path.push_str(query);
        assert_eq!(app.send_json(&w).await.1["status"], "accepted", "{id}");
    }
    let got = shop.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].header("x-hookline-event-id"), Some("evt_q_shop"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(shop.received().len(), 1);
    assert_eq!(
        app.metric(r#"hookline_filtered_total{handler="shop"}"#)
            .await,
        2.0
    );
}

#[test]
fn check_config_names_the_key_and_the_json_path_of_a_mistake() {
    let dir = tempfile::tempdir().unwrap();
    let bad_file = dir.path().join("big.json");
    std::fs::write(&bad_file, r#"{"body": {"type": {"$startsWith": 1}}}"#).unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[store]
kind = "embedded"
path = "{db}"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = ["whsec_dGVzdA=="]
[handlers.big-charges]
url = "http://127.0.0.1:9/"
events = ["stripe:*"]
signing_secret = "whsec_dGVzdA=="
filter = '{{"body": {{"data": {{"amount": {{"$gte": true}}}}}}}}'
[handlers.from-file]
url = "http://127.0.0.1:9/"
events = ["stripe:*"]
signing_secret = "whsec_dGVzdA=="
filter_file = "{file}"
"#,
            db = dir.path().join("db").display(),
            file = bad_file.display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config", config.to_str().unwrap()])
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "handlers.big-charges.filter: $.body.data.amount: $gte needs a number or a string"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("handlers.from-file.filter_file: $.body.type: $startsWith needs a string"),
        "{stderr}"
    );
}

async fn sighup_reads_a_filter_file_again(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(
        &file,
        r#"{"body": {"data": {"object": {"amount": {"$gte": 1000}}}}}"#,
    )
    .unwrap();
    let big = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{}[delivery]\npoll_interval = \"20ms\"\n",
        handler(
            "big-charges",
            &big,
            "stripe:charge.*",
            &format!("filter_file = \"{}\"", file.display())
        ),
    );
    let app = spawn_app_with(opts).await;
    assert_eq!(
        app.send_json(&charge("evt_r1", 500, "usd")).await.1["status"],
        "accepted"
    );
    let filtered = r#"hookline_filtered_total{handler="big-charges"}"#;
    assert_eq!(app.metric(filtered).await, 1.0);
    // The threshold is lowered; SIGHUP (each test runs in a process of its
    // own: the signal is this test's).
    std::fs::write(
        &file,
        r#"{"body": {"data": {"object": {"amount": {"$gte": 100}}}}}"#,
    )
    .unwrap();
    let status = Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut delivered = Vec::new();
    for i in 0..50 {
        let id = format!("evt_r2_{i}");
        if app.send_json(&charge(&id, 500, "usd")).await.1["status"] != "accepted" {
            panic!("{id} not accepted");
        }
        // Until the reload has run, each event is still filtered: the next
        // one is sent.
        delivered = big.received_within(1, Duration::from_millis(200)).await;
        if !delivered.is_empty() {
            break;
        }
    }
    assert!(
        !delivered.is_empty(),
        "the reloaded filter never let an event through"
    );
}

backend_tests!(
    a_filtered_event_reaches_only_the_handlers_it_passes,
    a_header_filter_matches_names_without_case,
    a_query_filter_matches_the_url_the_provider_called,
    sighup_reads_a_filter_file_again
);
