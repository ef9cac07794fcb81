//! The ingest protocol driven directly, without HTTP (issue 23's layout):
//! what `hookline::ingest` decides for one event, a batch, and a held
//! suspected replay, on every backend. The HTTP layer only maps these
//! outcomes to statuses (`tests/it/answers.rs`, `tests/it/fidelity.rs`).

use crate::common;

use std::sync::Arc;

use common::store::{open_store, CRITICAL_TYPE};
use common::{Backend, Webhook};
use hookline::ingest::{Ingest, Refusal, ReleaseError, Status};
use hookline::metrics::Metrics;

fn ingest(s: &common::store::TestStore) -> Ingest {
    Ingest::new(
        s.settings.clone(),
        s.store.clone(),
        Arc::new(Metrics::new()),
    )
}

async fn one_event_is_accepted_then_a_duplicate_then_a_conflict(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = ingest(&s);
    let ev = s.event("evt_i1", CRITICAL_TYPE, "a");
    assert_eq!(
        ingest.event(ev.clone()).await.unwrap().status,
        Status::Accepted
    );
    assert_eq!(ingest.event(ev).await.unwrap().status, Status::Duplicate);
    let changed = s.event("evt_i1", CRITICAL_TYPE, "b");
    assert!(matches!(
        ingest.event(changed).await,
        Err(Refusal::Conflict)
    ));
    assert_eq!(s.store.inventory().await.unwrap().quarantined, 1);
}

/// Copies of one ID within a batch never race for its claim: the first is
/// decided, then the others against it.
async fn a_batch_decides_a_repeated_id_after_its_first_copy(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = ingest(&s);
    let a = s.event("evt_b1", CRITICAL_TYPE, "a");
    let b = s.event("evt_b2", CRITICAL_TYPE, "a");
    let a_changed = s.event("evt_b1", CRITICAL_TYPE, "z");
    let outcome = ingest.batch(vec![a.clone(), b, a.clone(), a_changed]).await;
    let got: Vec<_> = outcome
        .items
        .iter()
        .map(|i| (i.event_id.to_string(), i.result.as_ref().ok().copied()))
        .collect();
    assert_eq!(
        got,
        [
            ("evt_b1".to_owned(), Some(Status::Accepted)),
            ("evt_b2".to_owned(), Some(Status::Accepted)),
            ("evt_b1".to_owned(), Some(Status::Duplicate)),
            ("evt_b1".to_owned(), None),
        ]
    );
    assert!(matches!(outcome.into_answer(), Err(Refusal::Conflict)));
    assert_eq!(s.store.inventory().await.unwrap().processed_events, 2);
}

/// A body accepted under one ID, seen under another: held, not recorded as
/// an event, then released and recorded.
async fn a_suspected_replay_is_held_then_released(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = ingest(&s);
    let original = Webhook::new("generic", "acme", "g-1", CRITICAL_TYPE, "x");
    let mut resend = original.clone();
    for (k, v) in &mut resend.headers {
        if k.eq_ignore_ascii_case("X-Event-Id") {
            *v = "g-2".into();
        }
    }
    let status = |w: &Webhook| {
        let ev = s.verified(w);
        let ingest = ingest.clone();
        async move { ingest.event(ev).await.unwrap().status }
    };
    assert_eq!(status(&original).await, Status::Accepted);
    assert_eq!(status(&resend).await, Status::Held);
    assert_eq!(status(&resend).await, Status::Held);
    let key = common::key("generic", "acme", "g-2");
    assert_eq!(
        s.store.records().held(&key).await.unwrap().unwrap().copies,
        2
    );
    assert!(s
        .store
        .records()
        .processed_event(&common::key("generic", "acme", "g-2"))
        .await
        .unwrap()
        .is_none());
    assert_eq!(ingest.release(&key).await.unwrap(), Status::Accepted);
    assert!(s
        .store
        .records()
        .processed_event(&common::key("generic", "acme", "g-2"))
        .await
        .unwrap()
        .is_some());
    assert!(matches!(
        ingest.release(&key).await,
        Err(ReleaseError::AlreadyReleased { .. })
    ));
    assert!(matches!(
        ingest.release(&common::key("generic", "acme", "g-3")).await,
        Err(ReleaseError::NotHeld(_))
    ));
}

backend_tests!(
    one_event_is_accepted_then_a_duplicate_then_a_conflict,
    a_batch_decides_a_repeated_id_after_its_first_copy,
    a_suspected_replay_is_held_then_released,
);
