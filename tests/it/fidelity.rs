//! Issue 23's engine, through a real receiver on every backend: a retry
//! that rewrites only its delivery envelope is a duplicate (the
//! fingerprint), a real change of content is still a conflict, each item of
//! a batch is its own event, an empty batch is answered 200 with nothing
//! recorded, an object where a batch belongs is a batch of one, and the
//! event type may sit under either of two names.
//!
//! The provider here is a test definition of hookline's own (an HMAC of the
//! body, the ID and type in the JSON), configured with `batch` and
//! `fingerprint`; the providers' own traffic is proven by the capture
//! corpus.

use crate::common;

use std::time::Duration;

use common::sink::Sink;
use common::{test_config, AppOptions, Backend, TestApp, HANDLER_SECRET};
use hmac::{Hmac, Mac};
use sha2::Sha256;

const DEFINITION: &str = r#"
kind = "test-events"
title = "Test events (hookline's engine tests)"

[signature]
scheme = "hmac"
header = "X-Signature"
encoding = "hex"
signed_content = "{body}"

[event_id]
json_pointer = "/id"

[event_type]
json_pointer = ["/eventType", "/type"]
"#;

const SECRET: &str = "test-events-secret";

/// A receiver with one route, `/webhooks/events/acme`, configured with
/// `route_extra`, and a handler that takes everything.
async fn app(backend: Backend, sink: &Sink, route_extra: &str) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path().join("definitions");
    std::fs::create_dir(&defs).unwrap();
    std::fs::write(defs.join("test-events.toml"), DEFINITION).unwrap();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[providers.events]\nkind = \"test-events\"\ncritical = [\"*\"]\n{route_extra}\n\
         [providers.events.tenants.acme]\nsecrets = [\"{SECRET}\"]\n\
         [delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\n\
         [handlers.all]\nurl = \"{}\"\nevents = [\"events:*\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        sink.url
    );
    let (text, guard) = test_config(&opts, dir.path()).await;
    let text = format!("providers_dir = \"{}\"\n{text}", defs.display());
    common::spawn_text(text, backend, guard, dir).await
}

/// POST `body` signed as the test definition says.
async fn post(app: &TestApp, body: &str) -> (u16, serde_json::Value) {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    let res = app
        .client
        .post(format!("{}/webhooks/events/acme", app.address))
        .header("Content-Type", "application/json")
        .header("X-Signature", hex::encode(mac.finalize().into_bytes()))
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or_default())
}

fn statuses(answer: &serde_json::Value) -> Vec<(String, String)> {
    answer["events"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|e| {
            (
                e["event_id"].as_str().unwrap().to_owned(),
                e["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// What the handler got, by event ID, in arrival order.
async fn delivered(sink: &Sink, n: usize) -> Vec<(String, Vec<u8>)> {
    sink.wait_for(n, Duration::from_secs(15)).await;
    // Anything more would come within a few polls.
    tokio::time::sleep(Duration::from_millis(400)).await;
    sink.received()
        .into_iter()
        .map(|r| (r.header("x-hookline-event-id").unwrap().to_owned(), r.body))
        .collect()
}

async fn a_retry_that_rewrites_its_envelope_is_a_duplicate(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(
        backend,
        &sink,
        "[providers.events.fingerprint]\nignore = [\"/attempts\", \"/meta/attempt\"]",
    )
    .await;
    let first =
        r#"{"id":"e1","type":"video.ready","data":{"x":1},"attempts":[],"meta":{"attempt":1}}"#;
    let (code, answer) = post(&app, first).await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("accepted")));
    // The provider's retry: the same event, its envelope rewritten (and
    // its members reordered, as a re-serialization may).
    let retry = r#"{"meta":{"attempt":2},"attempts":[{"status":500}],"id":"e1","type":"video.ready","data":{"x":1}}"#;
    let (code, answer) = post(&app, retry).await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("duplicate")));
    // A change of content under the same ID is still a conflict.
    let changed =
        r#"{"id":"e1","type":"video.ready","data":{"x":2},"attempts":[],"meta":{"attempt":3}}"#;
    let (code, answer) = post(&app, changed).await;
    assert_eq!(
        (code, answer["code"].as_str()),
        (422, Some("event_id_conflict"))
    );
    assert_eq!(app.inventory().await.quarantined, 1);
    // The handler got the event once, as it first came, byte for byte.
    let got = delivered(&sink, 1).await;
    assert_eq!(got, vec![("e1".to_owned(), first.as_bytes().to_vec())]);
}

async fn each_item_of_a_batch_is_its_own_event(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, "batch = \"/events\"").await;
    let a = r#"{"id":"a","type":"message"}"#;
    let b = r#"{"id":"b","type":"follow"}"#;
    let c = r#"{"id":"c","type":"message"}"#;
    let (code, answer) = post(
        &app,
        &format!(r#"{{"destination":"U1","events":[{a}, {b}]}}"#),
    )
    .await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("accepted")));
    assert_eq!(
        statuses(&answer),
        pairs(&[("a", "accepted"), ("b", "accepted")])
    );
    // The provider's retry of the whole batch: a duplicate item by item.
    let (code, answer) = post(
        &app,
        &format!(r#"{{"destination":"U1","events":[{a}, {b}]}}"#),
    )
    .await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("duplicate")));
    // A batch whose first item was seen does not hide the others.
    let (code, answer) = post(
        &app,
        &format!(r#"{{"destination":"U1","events":[{b},{c}]}}"#),
    )
    .await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("accepted")));
    assert_eq!(
        statuses(&answer),
        pairs(&[("b", "duplicate"), ("c", "accepted")])
    );
    // LINE's Verify button: an empty batch, answered 200, nothing recorded.
    let before = app.inventory().await;
    let (code, answer) = post(&app, r#"{"destination":"U1","events":[]}"#).await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("accepted")));
    assert_eq!(statuses(&answer), pairs(&[]));
    assert_eq!(app.inventory().await, before);
    // Each item delivered once, as its own bytes, with its own type.
    let mut got = delivered(&sink, 3).await;
    got.sort();
    assert_eq!(
        got,
        vec![
            ("a".to_owned(), a.as_bytes().to_vec()),
            ("b".to_owned(), b.as_bytes().to_vec()),
            ("c".to_owned(), c.as_bytes().to_vec()),
        ]
    );
    assert_eq!(app.inventory().await.processed_events, 3);
}

async fn a_changed_item_is_a_conflict_and_the_rest_of_its_batch_is_recorded(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, "batch = \"\"").await;
    let (code, _) = post(&app, r#"[{"id":"a","eventType":"t","v":1}]"#).await;
    assert_eq!(code, 200);
    let (code, answer) = post(
        &app,
        r#"[{"id":"a","eventType":"t","v":2},{"id":"d","eventType":"t"}]"#,
    )
    .await;
    assert_eq!(
        (code, answer["code"].as_str()),
        (422, Some("event_id_conflict"))
    );
    let mut got: Vec<String> = delivered(&sink, 2)
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    got.sort();
    assert_eq!(got, ["a", "d"]);
    assert_eq!(app.inventory().await.quarantined, 1);
    // The same batch again: still the conflict, and `d` a duplicate.
    let (code, _) = post(
        &app,
        r#"[{"id":"a","eventType":"t","v":2},{"id":"d","eventType":"t"}]"#,
    )
    .await;
    assert_eq!(code, 422);
    assert_eq!(app.inventory().await.processed_events, 2);
}

/// CloudEvents' single mode (one object where the batch belongs), and a
/// type read from whichever of `/eventType` or `/type` is there.
async fn an_object_where_a_batch_belongs_is_a_batch_of_one(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, "batch = \"\"").await;
    let single =
        r#"{"specversion":"1.0","id":"ce-1","type":"Microsoft.Storage.BlobCreated","source":"/s"}"#;
    let (code, answer) = post(&app, single).await;
    assert_eq!((code, answer["status"].as_str()), (200, Some("accepted")));
    assert_eq!(statuses(&answer), pairs(&[("ce-1", "accepted")]));
    let got = sink.wait_for(1, Duration::from_secs(15)).await;
    assert_eq!(
        got[0].header("x-hookline-event-type"),
        Some("Microsoft.Storage.BlobCreated")
    );
    assert_eq!(got[0].body, single.as_bytes());
}

backend_tests!(
    a_retry_that_rewrites_its_envelope_is_a_duplicate,
    each_item_of_a_batch_is_its_own_event,
    a_changed_item_is_a_conflict_and_the_rest_of_its_batch_is_recorded,
    an_object_where_a_batch_belongs_is_a_batch_of_one,
);
