//! A suspected replay held, listed and released by an operator (issue 23):
//! from the console's Held list and event page (one click, CSRF-checked),
//! and from `hookline events release`, on every backend. The generic HMAC
//! provider signs the body but not `X-Event-Id`, and guards bodies.

use crate::common;

use std::time::Duration;

use common::console::{console_app, Operator};
use common::sink::Sink;
use common::{Backend, TestApp, Webhook, HANDLER_SECRET};

/// The same signed request under another `X-Event-Id`.
fn under(w: &Webhook, id: &str) -> Webhook {
    let mut copy = w.clone();
    for (k, v) in &mut copy.headers {
        if k.eq_ignore_ascii_case("X-Event-Id") {
            *v = id.to_owned();
        }
    }
    copy
}

async fn app(backend: Backend, sink: &Sink) -> TestApp {
    let handler = format!(
        "[handlers.generic]\nurl = \"{}\"\nevents = [\"generic:*\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        sink.url
    );
    console_app(backend, sink, &handler).await
}

fn delivered_ids(sink: &Sink) -> Vec<String> {
    let mut ids: Vec<String> = sink
        .received()
        .iter()
        .filter_map(|r| r.header("x-hookline-event-id").map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

async fn an_operator_releases_a_held_event_from_the_console(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink).await;
    let original = Webhook::new("generic", "acme", "g-1", "order.paid", "x");
    assert_eq!(app.send_json(&original).await.0, 200);
    let (code, body) = app.send_json(&under(&original, "g-2")).await;
    assert_eq!((code, body["status"].as_str()), (200, Some("held")));
    sink.wait_for(1, Duration::from_secs(10)).await;

    let op = Operator::sign_in(&app).await;
    // The overview counts it held, not among the rejected requests.
    let (code, overview) = op.get("/console/live").await;
    assert_eq!(code, 200);
    assert!(overview.contains(">1 held<"), "{overview}");
    assert!(!overview.contains("<code>held</code>"), "{overview}");
    let (code, list) = op.get("/console/events?list=held").await;
    assert_eq!(code, 200);
    assert!(list.contains("g-2") && !list.contains(">g-1<"), "{list}");
    let (code, page) = op.get("/console/events/generic/acme/g-2").await;
    assert_eq!(code, 200);
    assert!(page.contains("Held as a suspected replay"), "{page}");
    assert!(page.contains("/console/events/generic/acme/g-2/release"));

    // Without the page's CSRF token the release is refused and nothing moves.
    let refused = op
        .post_as(
            "/console/events/generic/acme/g-2/release",
            &[("csrf", "not-the-token")],
            &app.address,
        )
        .await;
    assert_eq!(refused.status(), 403);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(delivered_ids(&sink), ["g-1"]);

    let res = op
        .post("/console/events/generic/acme/g-2/release", &[])
        .await;
    assert_eq!(res.status(), 303);
    sink.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(delivered_ids(&sink), ["g-1", "g-2"]);
    let (_, page) = op
        .get("/console/events/generic/acme/g-2?released=accepted")
        .await;
    assert!(page.contains("Released: accepted"), "{page}");
    assert!(!page.contains("Release to the handlers"), "{page}");
}

async fn the_cli_releases_a_held_event(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink).await;
    let original = Webhook::new("generic", "acme", "g-1", "order.paid", "x");
    assert_eq!(app.send_json(&original).await.0, 200);
    assert_eq!(
        app.send_json(&under(&original, "g-3")).await.1["status"],
        "held"
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let release = |id: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(["events", "release", "--config"])
            .arg(&config)
            .args(["generic", "acme", id])
            .output()
            .unwrap()
    };
    let out = release("g-3");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("released generic/acme/g-3: accepted"));
    sink.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(delivered_ids(&sink), ["g-1", "g-3"]);
    // Twice: said so, exit 1, nothing delivered again.
    let again = release("g-3");
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already released"));
    // An event that is not held.
    let none = release("g-9");
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no event"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 2);
}

backend_tests!(
    an_operator_releases_a_held_event_from_the_console,
    the_cli_releases_a_held_event,
);
