//! The verdict log (issue 14): one entry per verified request with what it
//! was answered, written off the request path, listed newest first by
//! keyset, filtered by outcome and time, pruned by age; never a request
//! that failed verification. On every backend.

use crate::common;

use std::time::Duration;

use common::console::{console_app_critical, Operator};
use common::sink::{Reply, Sink};
use common::store::open_store;
use common::{Backend, TestApp, Webhook};
use hookline::store::listing::{EventFilter, RequestVerdict, VerdictEntry, VerdictFilter};

fn entry(event_id: &str, verdict: RequestVerdict, received_ms: i64) -> VerdictEntry {
    VerdictEntry {
        provider: "stripe".into(),
        tenant: "acme".into(),
        event_id: event_id.into(),
        event_type: "invoice.paid".into(),
        verdict,
        body_sha256: vec![7; 32],
        body_bytes: 42,
        received_ms,
    }
}

fn outcome(verdict: RequestVerdict) -> VerdictFilter {
    VerdictFilter {
        verdict: Some(verdict),
        ..Default::default()
    }
}

async fn verdicts_list_newest_first_filtered_and_are_pruned_by_age(backend: Backend) {
    let s = open_store(backend).await;
    let records = s.store.records();
    let t0 = 1_790_000_000_000;
    use RequestVerdict::*;
    let batch: Vec<_> = [
        ("evt_1", Accepted),
        ("evt_1", Duplicate),
        ("evt_2", Accepted),
        ("evt_1", Conflict),
        ("evt_1", Duplicate),
        ("evt_3", Replay),
    ]
    .iter()
    .enumerate()
    .map(|(n, (id, v))| entry(id, *v, t0 + n as i64 * 1000))
    .collect();
    records.log_verdicts(&batch[..3]).await.unwrap();
    records.log_verdicts(&batch[3..]).await.unwrap();

    let all = records.list_verdicts(&Default::default()).await.unwrap();
    let seen: Vec<_> = all
        .iter()
        .map(|v| (v.event_id.as_str(), v.verdict.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("evt_3", "replay"),
            ("evt_1", "duplicate"),
            ("evt_1", "conflict"),
            ("evt_2", "accepted"),
            ("evt_1", "duplicate"),
            ("evt_1", "accepted"),
        ],
        "newest first"
    );
    assert_eq!(
        (all[0].body_sha256.as_slice(), all[0].body_bytes),
        (&[7u8; 32][..], 42)
    );

    let mut dups = outcome(Duplicate);
    dups.event.limit = Some(1);
    let first = records.list_verdicts(&dups).await.unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].received_ms, t0 + 4000);
    dups.event.before_id = Some(first[0].id);
    let next = records.list_verdicts(&dups).await.unwrap();
    assert_eq!(
        next.iter().map(|v| v.received_ms).collect::<Vec<_>>(),
        [t0 + 1000],
        "the next page, by keyset"
    );

    let window = VerdictFilter {
        since_ms: Some(t0 + 2000),
        until_ms: Some(t0 + 4000),
        event: EventFilter {
            event_id: Some(hookline::lookup::event_id("evt_1").unwrap()),
            ..Default::default()
        },
        ..Default::default()
    };
    let in_window = records.list_verdicts(&window).await.unwrap();
    assert_eq!(in_window.len(), 1);
    assert_eq!(in_window[0].verdict, "conflict");

    assert_eq!(records.prune_verdicts(t0 + 3000).await.unwrap(), 3);
    let left = records.list_verdicts(&Default::default()).await.unwrap();
    assert_eq!(left.len(), 3);
    assert!(left.iter().all(|v| v.received_ms >= t0 + 3000));
}

/// The verdicts the receiver logged for `event_id`, newest first, once
/// there are `n` of them (the writer is off the request path).
async fn logged(app: &TestApp, event_id: &str, n: usize) -> Vec<String> {
    let filter = VerdictFilter {
        event: EventFilter {
            event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
            ..Default::default()
        },
        ..Default::default()
    };
    for _ in 0..250 {
        let rows = app.store.records().list_verdicts(&filter).await.unwrap();
        if rows.len() >= n {
            return rows.into_iter().map(|v| v.verdict).collect();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {n} verdicts for {event_id}");
}

async fn the_receiver_logs_each_verified_request_and_the_console_lists_duplicates(
    backend: Backend,
) {
    let sink = Sink::start(vec![Reply::Status(200)]);
    // Nothing critical, and a handler for stripe only: a github event has
    // no handler, so its dedup key is all the stores keep of it.
    let app = console_app_critical(backend, &sink, "", "[]").await;
    let w = Webhook::new("stripe", "acme", "evt_dup", "invoice.paid", "one");
    assert_eq!(app.send_json(&w).await.0, 200);
    assert_eq!(app.send_json(&w).await.1["status"], "duplicate");
    let other = Webhook::new("stripe", "acme", "evt_dup", "invoice.paid", "two");
    assert_eq!(app.send_json(&other).await.0, 422);
    let mut forged = Webhook::new("stripe", "acme", "evt_forged", "invoice.paid", "x");
    forged.body.extend_from_slice(b" ");
    assert_eq!(app.send_json(&forged).await.0, 401);
    let bare = Webhook::new("github", "acme", "evt_bare", "push", "b");
    assert_eq!(app.send_json(&bare).await.0, 200);

    assert_eq!(
        logged(&app, "evt_dup", 3).await,
        ["conflict", "duplicate", "accepted"]
    );
    assert_eq!(logged(&app, "evt_bare", 1).await, ["accepted"]);
    let forged_rows = app
        .store
        .records()
        .list_verdicts(&VerdictFilter {
            event: EventFilter {
                event_id: Some(hookline::lookup::event_id("evt_forged").unwrap()),
                ..Default::default()
            },
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(forged_rows.is_empty(), "a forgery is never logged");
    assert_eq!(app.metric("hookline_verdict_log_dropped_total").await, 0.0);

    let op = Operator::sign_in(&app).await;
    let (status, page) = op
        .get("/console/events?list=requests&outcome=duplicate")
        .await;
    assert_eq!(status, 200);
    assert!(
        page.contains("evt_dup") && page.contains("badge duplicate"),
        "{page}"
    );
    assert!(!page.contains("evt_bare"), "only duplicates");
    assert!(page.len() < 100 * 1024);
    let (status, page) = op
        .get("/console/events?list=requests&provider=github")
        .await;
    assert_eq!(status, 200);
    assert!(page.contains("evt_bare"), "a handler-less event is listed");
    let (status, _) = op.get("/console/events?list=requests&outcome=lost").await;
    assert_eq!(status, 400);
    let (status, _) = op.get("/console/events?list=requests&state=dead").await;
    assert_eq!(status, 400, "a deliveries-only filter is refused");
}

backend_tests!(
    verdicts_list_newest_first_filtered_and_are_pruned_by_age,
    the_receiver_logs_each_verified_request_and_the_console_lists_duplicates,
);
