//! The store contract: one set of tests that drives the `IngestStore`,
//! `DeliveryQueue` and `RecordStore` traits (not HTTP) on every backend: embedded, redis and
//! cluster. A backend is correct when it passes them all, with the leases
//! of `store_leases.rs` and the lists of `store_lists.rs`.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use common::store::{open_store, TestStore, CRITICAL_TYPE, PLAIN_TYPE};
use common::Backend;
use hookline::store::delivery::DeliveryFilter;
use hookline::store::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, OwnerToken, RecordOutcome,
};

pub(crate) const WINDOW: Duration = Duration::from_secs(3600);
pub(crate) const TTL: Duration = Duration::from_secs(30);

fn key(event_id: &str) -> EventKey {
    common::key("stripe", "acme", event_id)
}

pub(crate) async fn owned(
    s: &TestStore,
    ev: &hookline::provider::VerifiedWebhook,
    ttl: Duration,
) -> OwnerToken {
    match s
        .store
        .ingest()
        .claim(ev, OwnerToken::new(), ttl)
        .await
        .unwrap()
    {
        ClaimOutcome::Owned(owner) => owner,
        other => panic!("expected to own the key, got {other:?}"),
    }
}

async fn claim_then_commit_makes_later_copies_duplicates(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let ev = s.event("evt_life", PLAIN_TYPE, "a");
    assert_eq!(
        ingest.dedup_record(&key("evt_life")).await.unwrap(),
        DedupRecord::Absent
    );
    let owner = owned(&s, &ev, TTL).await;
    // While it is held, a copy is told how long the claim may still last.
    match ingest.claim(&ev, OwnerToken::new(), TTL).await.unwrap() {
        ClaimOutcome::InProgress { retry_after } => {
            assert!(retry_after > TTL - Duration::from_secs(5) && retry_after <= TTL)
        }
        other => panic!("expected in progress, got {other:?}"),
    }
    assert!(matches!(
        ingest.dedup_record(&key("evt_life")).await.unwrap(),
        DedupRecord::InProgress { .. }
    ));
    let outcome = ingest.commit(&ev, &owner, WINDOW, &[]).await.unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
    assert_eq!(
        ingest.claim(&ev, OwnerToken::new(), TTL).await.unwrap(),
        ClaimOutcome::Duplicate
    );
    // Kept for the window, and the record says until when.
    match ingest.dedup_record(&key("evt_life")).await.unwrap() {
        DedupRecord::Completed { kept_until } => {
            let left = (kept_until - Utc::now()).num_seconds();
            assert!((3590..=3600).contains(&left), "kept {left} s more");
        }
        other => panic!("expected completed, got {other:?}"),
    }
    let inv = ingest.inventory().await.unwrap();
    assert_eq!(
        (inv.dedup_keys, inv.processed_events),
        (1, 0),
        "not critical"
    );
}

async fn another_body_is_a_conflict_and_its_copies_are_counted(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let records = s.store.records();
    let original = s.event("evt_conflict", CRITICAL_TYPE, "original");
    let changed = s.event("evt_conflict", CRITICAL_TYPE, "changed");
    let owner = owned(&s, &original, TTL).await;
    // In progress or completed, another body under the ID is a conflict.
    let claim = ingest
        .claim(&changed, OwnerToken::new(), TTL)
        .await
        .unwrap();
    assert_eq!(claim, ClaimOutcome::Conflict);
    let outcome = ingest.commit(&original, &owner, WINDOW, &[]).await.unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
    let claim = ingest
        .claim(&changed, OwnerToken::new(), TTL)
        .await
        .unwrap();
    assert_eq!(claim, ClaimOutcome::Conflict);
    for _ in 0..3 {
        records.quarantine(&changed).await.unwrap();
    }
    let copies = records.quarantined(&key("evt_conflict")).await.unwrap();
    assert_eq!(copies.len(), 1, "identical copies share a record");
    let copy = &copies[0];
    assert_eq!(copy.copies, 3);
    assert_eq!(copy.body, changed.body().to_vec());
    assert_eq!(copy.body_sha256, changed.body_sha256().to_vec());
    assert!(copy.first_seen_at <= copy.last_seen_at);
    assert!((Utc::now() - copy.last_seen_at).num_seconds() < 60);
    assert_eq!(ingest.inventory().await.unwrap().quarantined, 3);
    let row = records
        .processed_event(&key("evt_conflict"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.body, original.body().to_vec(), "the original stands");
    assert!((Utc::now() - row.received_at).num_seconds() < 60);
    assert_eq!(row.content_type.as_deref(), Some("application/json"));
}

async fn a_stale_owner_can_neither_complete_nor_release(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let ev = s.event("evt_stale", PLAIN_TYPE, "a");
    let short = Duration::from_millis(200);
    let stale = owned(&s, &ev, short).await;
    tokio::time::sleep(short * 2).await;
    let fresh = owned(&s, &ev, TTL).await;
    ingest.release(&ev, &stale).await.unwrap();
    assert!(
        matches!(
            ingest.claim(&ev, OwnerToken::new(), TTL).await.unwrap(),
            ClaimOutcome::InProgress { .. }
        ),
        "a stale release must not free the newer claim"
    );
    let late = ingest.commit(&ev, &stale, WINDOW, &[]).await.unwrap();
    assert_eq!(late, CommitOutcome::NotOwner);
    assert!(matches!(
        ingest.dedup_record(&key("evt_stale")).await.unwrap(),
        DedupRecord::InProgress { .. }
    ));
    let outcome = ingest.commit(&ev, &fresh, WINDOW, &[]).await.unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
}

async fn a_released_claim_is_free_again_and_records_nothing(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let records = s.store.records();
    let ev = s.event("evt_release", CRITICAL_TYPE, "a");
    let owner = owned(&s, &ev, TTL).await;
    ingest.release(&ev, &owner).await.unwrap();
    assert_eq!(
        ingest.dedup_record(&key("evt_release")).await.unwrap(),
        DedupRecord::Absent
    );
    owned(&s, &ev, TTL).await;
    assert!(records
        .processed_event(&key("evt_release"))
        .await
        .unwrap()
        .is_none());
}

/// Issue 9, defect 1, at the store: deliveries recorded before the key
/// completes outlive a released claim and keep their body.
async fn pending_deliveries_outlive_a_released_claim_with_their_body(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let records = s.store.records();
    let original = s.event("evt_pending", CRITICAL_TYPE, "amount 100");
    let forged = s.event("evt_pending", CRITICAL_TYPE, "amount 999999");
    let owner = owned(&s, &original, TTL).await;
    let recorded = ingest
        .record_pending(&original, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(recorded, RecordOutcome::Recorded);
    ingest.release(&original, &owner).await.unwrap();

    let owner = owned(&s, &forged, TTL).await;
    let recorded = ingest
        .record_pending(&forged, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(recorded, RecordOutcome::Conflict);
    let outcome = ingest
        .commit(&forged, &owner, WINDOW, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(outcome, CommitOutcome::Conflict);
    assert!(records
        .processed_event(&key("evt_pending"))
        .await
        .unwrap()
        .is_none());
    // The original was handed to the handler but never completed: its key
    // is free for its own retry, which completes it and writes its row.
    let owner = owned(&s, &original, TTL).await;
    let outcome = ingest
        .commit(&original, &owner, WINDOW, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
    let row = records
        .processed_event(&key("evt_pending"))
        .await
        .unwrap()
        .expect("the original's row");
    assert_eq!(row.body_sha256, original.body_sha256().to_vec());
    assert_eq!(
        ingest.claim(&forged, OwnerToken::new(), TTL).await.unwrap(),
        ClaimOutcome::Conflict
    );

    // A non-critical event's deliveries guard its body the same way, even
    // once its dedup window has passed.
    let plain = s.event("evt_plain", PLAIN_TYPE, "a");
    let owner = owned(&s, &plain, TTL).await;
    let short = Duration::from_millis(100);
    let outcome = ingest
        .commit(&plain, &owner, short, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
    tokio::time::sleep(short * 3).await;
    let other = s.event("evt_plain", PLAIN_TYPE, "b");
    let owner = owned(&s, &other, TTL).await;
    let outcome = ingest
        .commit(&other, &owner, WINDOW, common::handlers(&["billing"]))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        CommitOutcome::Conflict,
        "the handler got the first body"
    );
    let queued = s
        .store
        .records()
        .list(&DeliveryFilter::default())
        .await
        .unwrap();
    assert_eq!(
        queued.len(),
        2,
        "one delivery per event, none for the forgery"
    );
}

backend_tests!(
    claim_then_commit_makes_later_copies_duplicates,
    another_body_is_a_conflict_and_its_copies_are_counted,
    a_stale_owner_can_neither_complete_nor_release,
    a_released_claim_is_free_again_and_records_nothing,
    pending_deliveries_outlive_a_released_claim_with_their_body,
);
