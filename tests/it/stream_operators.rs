//! What operators see of non-critical deliveries waiting in Redis Streams
//! (`store.non_critical_deliveries = "redis"`), which have no `delivery`
//! row until they are dead letters: the pending gauge and the handler
//! panel, the event's report and console page, the console's list of
//! waiting deliveries, a stream no configured handler reads, and what
//! `events redeliver` says of such an event.

use crate::common;

use std::time::Duration;

use common::sink::Sink;
use common::{Backend, TestApp, Webhook, HANDLER_SECRET};
use hookline::store::stream_lanes;

use super::stream_deliveries::{app, streams_of, FAST};

/// A handler `name` for every Stripe event that nothing answers (a port
/// no one listens on): its deliveries wait in the streams to be retried.
fn unanswered_handler(name: &str) -> String {
    let nobody = common::servers::free_port();
    format!(
        "[handlers.{name}]\nurl = \"http://127.0.0.1:{nobody}/\"\nevents = [\"stripe:*\"]\n\
         signing_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\nmax_attempts = 1000\n"
    )
}

/// An app whose handler nobody answers, and one event accepted for it:
/// every attempt fails, and its delivery waits in the streams to retry.
pub(super) async fn with_a_waiting_delivery(event_id: &str) -> TestApp {
    let port = common::servers::free_port();
    let app = app(&format!("http://127.0.0.1:{port}/"), "max_attempts = 1000").await;
    let w = Webhook::new("stripe", "acme", event_id, "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    tokio::time::sleep(Duration::from_millis(100)).await;
    app
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
    // Each attempt made is kept with the entry, the first one first.
    assert_eq!(w.kept.len() as u32, w.attempts, "{w:?}");
    assert_eq!(w.kept[0].attempt, 1, "{w:?}");
    assert!(w.kept.iter().all(|a| a.error.is_some()), "{w:?}");
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
    let gone = unanswered_handler("gone");
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
async fn the_console_lists_an_events_deliveries_waiting_in_its_streams() {
    use common::console::{console_app, Operator};
    let sink = Sink::start(vec![]);
    // A second handler nothing answers: its delivery waits to be retried.
    let waits = unanswered_handler("waits");
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

/// The console's list of deliveries waiting in the streams (and the admin
/// API's): every one a handler has not acknowledged, oldest first,
/// filtered by handler and event type; a filter that does not apply there
/// is refused. Without streams the list is not offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_lists_every_delivery_waiting_in_the_streams() {
    use common::console::{console_app, Operator};
    let sink = Sink::start(vec![]);
    let waits = unanswered_handler("waits");
    let app = console_app(Backend::Streams, &sink, &waits).await;
    for (id, kind) in [
        ("evt_w1", "charge.succeeded"),
        ("evt_w2", "invoice.paid"),
        ("evt_w3", "charge.succeeded"),
    ] {
        let w = Webhook::new("stripe", "acme", id, kind, id);
        assert_eq!(app.send_json(&w).await.0, 200);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    sink.wait_for(3, Duration::from_secs(5)).await;
    let operator = Operator::sign_in(&app).await;
    let (status, page) = operator.get("/console/events").await;
    assert_eq!(status, 200);
    assert!(page.contains("Waiting in Redis Streams"), "{page}");

    let (status, page) = operator.get("/console/events?list=waiting").await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("3 deliveries wait"), "{page}");
    let at = |id: &str| page.find(&format!(">{id}</a>")).unwrap_or(usize::MAX);
    assert!(
        at("evt_w1") < at("evt_w2") && at("evt_w2") < at("evt_w3") && at("evt_w3") < usize::MAX,
        "oldest first: {page}"
    );
    assert_eq!(page.matches("<td>waits</td>").count(), 3, "{page}");
    // `billing` acknowledged each: none of its deliveries waits.
    assert!(!page.contains("<td>billing</td>"), "{page}");

    let (_, page) = operator
        .get("/console/events?list=waiting&handler=waits&event_type=invoice.paid")
        .await;
    assert!(
        page.contains(">evt_w2</a>") && !page.contains(">evt_w1</a>"),
        "{page}"
    );
    let (_, page) = operator
        .get("/console/events?list=waiting&handler=billing")
        .await;
    assert!(
        page.contains("0 deliveries wait") && page.contains("Nothing matches."),
        "{page}"
    );
    let (status, page) = operator
        .get("/console/events?list=waiting&state=pending")
        .await;
    assert_eq!(status, 400, "{page}");

    // The admin API lists the same, as JSON.
    let admin = |app: &TestApp, query: &str| {
        app.client
            .get(format!("{}/admin/waiting{query}", app.address))
            .bearer_auth(common::console::TOKEN)
            .send()
    };
    let res = admin(&app, "?handler=waits&limit=2").await.unwrap();
    assert_eq!(res.status(), 200);
    let list: serde_json::Value = res.json().await.unwrap();
    assert_eq!(list["waiting"], 3, "{list}");
    let ids: Vec<_> = list["shown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["event_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["evt_w1", "evt_w2"], "{list}");
    let res = admin(&app, "?tenat=acme").await.unwrap();
    assert_eq!(res.status(), 400);

    // A store whose deliveries all live in PostgreSQL has no such list.
    let plain = console_app(Backend::Redis, &sink, "").await;
    let operator = Operator::sign_in(&plain).await;
    let (_, page) = operator.get("/console/events").await;
    assert!(!page.contains("Waiting in Redis Streams"), "{page}");
    let (status, _) = operator.get("/console/events?list=waiting").await;
    assert_eq!(status, 400);
    assert_eq!(admin(&plain, "").await.unwrap().status(), 404);
}

const ADMIN_TOKEN: &str = "admin-token-for-stream-tests-0123";

/// `hookline events redeliver` (and the admin API) on a non-critical event
/// whose deliveries went through the streams: the one that still waits is
/// named as waiting there, and goes out as it is; for the one its handler
/// acknowledged, the streams keep nothing to redeliver from, and the error
/// says so instead of claiming that no handler matched the event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_redeliver_says_where_a_stream_delivery_waits_or_that_none_is_kept() {
    let sink = Sink::start(vec![]);
    let extra = format!(
        "\n[admin]\ntoken = \"{ADMIN_TOKEN}\"\n\n{}",
        unanswered_handler("waits")
    );
    let app = app(&sink.url, &extra).await;
    let w = Webhook::new("stripe", "acme", "evt_redo", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    sink.wait_for(1, Duration::from_secs(10)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let redeliver = |handler: Option<&str>| {
        let mut args = vec!["events", "redeliver", "stripe", "acme", "evt_redo"];
        args.extend(handler.map(|h| ["--handler", h]).into_iter().flatten());
        args.extend(["--config", config.to_str().unwrap()]);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(&args)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };

    let (code, _, err) = redeliver(Some("billing"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("stripe/acme/evt_redo has no delivery to billing on record")
            && err.contains("Redis Streams")
            && err.contains("keep nothing of it once its handlers acknowledged it"),
        "{err}"
    );
    assert!(!err.contains("did not match it"), "{err}");
    for handler in [Some("waits"), None] {
        let (code, out, err) = redeliver(handler);
        assert_eq!(code, Some(0), "{err}");
        let to = handler.map(|h| format!(" to {h}")).unwrap_or_default();
        assert_eq!(
            out.trim(),
            format!("requeued 0 deliveries: stripe/acme/evt_redo has 1 delivery{to} waiting in Redis Streams; they go out as they are")
        );
    }
    // Nothing was requeued: billing got the event once.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1);

    // The admin API answers the same: 404 for what cannot be, 409 for
    // what is under way.
    let post = |handler: &str| {
        app.client
            .post(format!(
                "{}/admin/events/stripe/acme/evt_redo/redeliver?handler={handler}",
                app.address
            ))
            .bearer_auth(ADMIN_TOKEN)
            .send()
    };
    let res = post("billing").await.unwrap();
    assert_eq!(res.status(), 404);
    assert!(res.text().await.unwrap().contains("Redis Streams"));
    let res = post("waits").await.unwrap();
    assert_eq!(res.status(), 409);
    let body = res.text().await.unwrap();
    assert!(
        body.contains("1 delivery to waits waiting in Redis Streams"),
        "{body}"
    );
}
