//! The embedded store's write lane (`src/store/batching/lane.rs`, its
//! writes in `src/store/embedded/writes.rs`): writes that queue together
//! share a transaction, and one that fails does not take the others down
//! with it.

use crate::common;

use std::time::Duration;

use common::store::{open_store, CRITICAL_TYPE};
use common::Backend;
use hookline::store::delivery::{AttemptRecord, LeaseFrom, Next};
use hookline::store::{ClaimOutcome, CommitOutcome, DedupRecord, OwnerToken};
use sqlx::{Connection, SqliteConnection};

const TTL: Duration = Duration::from_secs(30);
const WINDOW: Duration = Duration::from_secs(3600);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_write_does_not_fail_the_others_queued_with_it() {
    let s = open_store(Backend::Embedded).await;
    let (ingest, queue) = (s.store.ingest(), s.store.queue());
    let records = s.store.records();
    // Ten accepted events, their deliveries leased to a worker.
    for i in 0..10 {
        let ev = s.event(&format!("evt_done_{i}"), CRITICAL_TYPE, "a");
        let ClaimOutcome::Owned(owner) = ingest.claim(&ev, OwnerToken::new(), TTL).await.unwrap()
        else {
            panic!("a new event is owned")
        };
        let committed = ingest
            .commit(&ev, &owner, WINDOW, common::handlers(&["h"]))
            .await
            .unwrap();
        assert_eq!(committed, CommitOutcome::Accepted);
    }
    let leased = records
        .lease("w1", 10, Duration::from_secs(60), LeaseFrom::Every)
        .await
        .unwrap();
    assert_eq!(leased.len(), 10);

    // Every outcome now fails: its attempt row has nowhere to go.
    let file = match &s.settings.store {
        hookline::config::StoreSettings::Embedded(e) => e.path.clone(),
        other => panic!("an embedded store, not {other:?}"),
    };
    let mut other = SqliteConnection::connect(&format!("sqlite:{}", file.display()))
        .await
        .unwrap();
    sqlx::query("DROP TABLE delivery_attempt")
        .execute(&mut other)
        .await
        .unwrap();
    other.close().await.unwrap();

    // Outcomes and new claims submitted at once queue together.
    let attempt = AttemptRecord {
        attempt: 1,
        started_ms: hookline::store::now_ms(),
        status: Some(200),
        latency: Duration::from_millis(3),
        response_body: String::new(),
        error: None,
    };
    let events: Vec<_> = (0..20)
        .map(|i| s.event(&format!("evt_new_{i}"), CRITICAL_TYPE, "b"))
        .collect();
    let outcomes = futures::future::join_all(
        leased
            .iter()
            .map(|d| queue.finish(d, "w1", &attempt, Next::Delivered)),
    );
    let claims = futures::future::join_all(
        events
            .iter()
            .map(|ev| ingest.claim(ev, OwnerToken::new(), TTL)),
    );
    let (outcomes, claims) = tokio::join!(outcomes, claims);

    for outcome in outcomes {
        assert!(
            outcome.is_err(),
            "the outcome cannot be written: {outcome:?}"
        );
    }
    for (ev, claim) in events.iter().zip(claims) {
        assert!(
            matches!(claim, Ok(ClaimOutcome::Owned(_))),
            "{}: {claim:?}",
            ev.event_id().as_str()
        );
        // And it was kept: the key is held.
        let key = common::key("stripe", "acme", ev.event_id().as_str());
        assert!(matches!(
            ingest.dedup_record(&key).await.unwrap(),
            DedupRecord::InProgress { .. }
        ));
    }
}
