//! Issue 9, defect 4, and issue 10's admin items, on every backend: what an
//! operator sends the admin API or the CLI is checked before any store sees
//! it. A NUL or another control character, an overlong name, a malformed
//! number or query is `400` problem+json (the CLI: a usage error, exit 2),
//! and never a store failure in the log or the metrics. Replaying every
//! dead letter takes an explicit `all=true`.

use crate::common;

use std::time::Duration;

use common::logs::capture_logs;
use common::sink::{Reply, Sink};
use common::{spawn_text, test_config, AppOptions, Backend, TestApp, Webhook};

const TOKEN: &str = "admin-token-for-tests-0123456789";

async fn app(backend: Backend, extra: &str) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("[admin]\ntoken = \"{TOKEN}\"\n{extra}");
    let (text, guard) = test_config(&opts, dir.path()).await;
    spawn_text(text, backend, guard, dir).await
}

async fn admin(app: &TestApp, method: &str, path: &str) -> reqwest::Response {
    let url = format!("{}{path}", app.address);
    let req = match method {
        "GET" => app.client.get(url),
        _ => app.client.post(url),
    };
    req.bearer_auth(TOKEN).send().await.unwrap()
}

async fn assert_invalid_input(res: reqwest::Response, what: &str) {
    assert_eq!(res.status(), 400, "{what}");
    assert_eq!(
        res.headers()["content-type"],
        "application/problem+json",
        "{what}"
    );
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "invalid_input", "{what}: {body}");
    assert_eq!(body["title"], "Bad Request", "{what}: {body}");
}

async fn every_admin_route_refuses_control_characters_as_input(backend: Backend) {
    let logs = capture_logs();
    let app = app(backend, "").await;
    let w = Webhook::new("stripe", "acme", "evt_logged", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);

    let mut routes = Vec::new();
    // A NUL (PostgreSQL refuses it in text) and an escape character, in
    // every value of every route.
    for bad in ["%00", "%1B"] {
        routes.extend([
            ("GET", format!("/admin/events/stripe/acme/evt{bad}")),
            ("GET", format!("/admin/events/stripe/acme{bad}/evt")),
            ("GET", format!("/admin/events/str{bad}ipe/acme/evt")),
            ("POST", format!("/admin/events/stripe/acme/{bad}/redeliver")),
            (
                "POST",
                format!("/admin/events/stripe/acme/evt/redeliver?handler=bill{bad}"),
            ),
            ("GET", format!("/admin/dead-letters?tenant=acme{bad}")),
            ("GET", format!("/admin/dead-letters?event_id={bad}")),
            ("GET", format!("/admin/dead-letters?provider={bad}")),
            ("GET", format!("/admin/dead-letters?handler=x{bad}")),
            ("GET", format!("/admin/waiting?tenant=acme{bad}")),
            ("GET", format!("/admin/waiting?handler=x{bad}")),
            (
                "POST",
                format!("/admin/dead-letters/replay?tenant=acme{bad}"),
            ),
            ("POST", format!("/admin/dead-letters/replay?event_id={bad}")),
            ("POST", format!("/admin/dead-letters/{bad}/replay")),
        ]);
    }
    let long = "x".repeat(300);
    routes.extend([
        ("GET", format!("/admin/events/stripe/acme/{long}")),
        ("GET", format!("/admin/dead-letters?tenant={long}")),
        // Numbers that are not, and queries that do not parse: problem
        // documents too, not actix's plain text.
        ("POST", "/admin/dead-letters/abc/replay".to_owned()),
        ("GET", "/admin/dead-letters?limit=ten".to_owned()),
        ("GET", "/admin/dead-letters?limit=-1".to_owned()),
        ("GET", "/admin/waiting?limit=ten".to_owned()),
        ("GET", "/admin/waiting?tenat=acme".to_owned()),
        // A typo is refused, not ignored (it would widen a replay).
        ("POST", "/admin/dead-letters/replay?tenat=acme".to_owned()),
        ("POST", "/admin/dead-letters/replay?all=maybe".to_owned()),
    ]);
    for (method, path) in &routes {
        assert_invalid_input(admin(&app, method, path).await, path).await;
    }
    // Authentication still comes first: no token, no hint about the input.
    let res = app
        .client
        .get(format!("{}/admin/dead-letters?tenant=%00", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);

    let log = logs.text();
    assert!(
        log.contains("answered"),
        "the log is being captured: {log:?}"
    );
    assert!(!log.contains("store failure"), "{log}");
    assert_eq!(app.metric("hookline_store_errors_total").await, 0.0);
    let metrics = app.metrics_text().await;
    assert!(!metrics.contains("store_errors_total{"), "{metrics}");
    assert!(!metrics.contains("store_unavailable"), "{metrics}");
}

/// `hookline ARGS --config FILE` against the app's store.
fn hookline(app: &TestApp, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(args)
        .args(["--config", config.to_str().unwrap()])
        .output()
        .unwrap()
}

async fn every_cli_lookup_refuses_control_characters_with_a_usage_error(backend: Backend) {
    let app = app(backend, "").await;
    // A NUL cannot be passed in a process argument at all; an escape, a
    // newline and DEL can.
    for bad in ["evt\u{1b}[2J", "a\nb", "x\u{7f}"] {
        let runs: Vec<Vec<&str>> = vec![
            vec!["events", "show", "stripe", "acme", bad],
            vec!["events", "show", "stripe", bad, "evt"],
            vec!["events", "show", bad, "acme", "evt"],
            vec!["events", "redeliver", "stripe", "acme", bad],
            vec![
                "events",
                "redeliver",
                "stripe",
                "acme",
                "e",
                "--handler",
                bad,
            ],
            vec!["dead-letters", "list", "--tenant", bad],
            vec!["dead-letters", "list", "--event-id", bad],
            vec!["dead-letters", "list", "--provider", bad],
            vec!["dead-letters", "list", "--handler", bad],
            vec!["dead-letters", "replay", "--tenant", bad],
            vec!["dead-letters", "replay", "--event-id", bad],
        ];
        for args in runs {
            let out = hookline(&app, &args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("invalid value"), "{args:?}: {stderr}");
            assert!(!stderr.to_lowercase().contains("store"), "{stderr}");
        }
    }
    let out = hookline(&app, &["dead-letters", "replay", "--id", "abc"]);
    assert_eq!(out.status.code(), Some(2));
    // A valid lookup still reaches the store.
    let out = hookline(&app, &["events", "show", "stripe", "acme", "evt_none"]);
    assert_eq!(out.status.code(), Some(1), "no record, not a usage error");
}

async fn replaying_every_dead_letter_takes_all_true(backend: Backend) {
    let sink = Sink::start(vec![Reply::Status(400)]);
    let handler = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"whsec_aGFuZGxlci1zaWduaW5nLWtleQ==\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    let app = app(backend, &handler).await;
    let w = Webhook::new("stripe", "acme", "evt_dead", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let start = std::time::Instant::now();
    while app.store.records().depth().await.unwrap().dead < 1 {
        assert!(start.elapsed() < Duration::from_secs(10), "never dead");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for path in [
        "/admin/dead-letters/replay",
        "/admin/dead-letters/replay?all=false",
    ] {
        let res = admin(&app, "POST", path).await;
        assert_eq!(res.status(), 400, "{path}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert!(body["detail"].as_str().unwrap().contains("all=true"));
    }
    assert_eq!(
        app.store.records().depth().await.unwrap().dead,
        1,
        "untouched"
    );
    let res = admin(&app, "POST", "/admin/dead-letters/replay?all=true").await;
    assert_eq!(res.status(), 202);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["requeued"], 1);
    assert_eq!(sink.wait_for(2, Duration::from_secs(10)).await.len(), 2);
}

backend_tests!(
    every_admin_route_refuses_control_characters_as_input,
    every_cli_lookup_refuses_control_characters_with_a_usage_error,
    replaying_every_dead_letter_takes_all_true,
);
