//! The store contract: one set of tests that drives the `IngestStore`,
//! `DeliveryQueue` and `RecordStore` traits (not HTTP) on every backend: embedded, redis and
//! cluster. A backend is correct when it passes them all.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use common::store::{open_store, TestStore, CRITICAL_TYPE, PLAIN_TYPE};
use common::Backend;
use hookline::store::delivery::{
    AttemptRecord, DeliveryFilter, DeliveryState, LeaseFrom, Leased, Next, Place,
};
use hookline::store::listing::{EventFilter, EventRecord};
use hookline::store::{
    ClaimOutcome, CommitOutcome, DedupRecord, EventKey, OwnerToken, RecordOutcome,
};

const WINDOW: Duration = Duration::from_secs(3600);
const TTL: Duration = Duration::from_secs(30);

fn key(event_id: &str) -> EventKey {
    common::key("stripe", "acme", event_id)
}

async fn owned(
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

fn attempt(n: u32, status: u16, body: &str) -> AttemptRecord {
    AttemptRecord {
        attempt: n,
        started_ms: hookline::store::now_ms(),
        status: Some(status),
        latency: Duration::from_millis(3),
        response_body: body.into(),
        error: None,
    }
}

async fn leases_finish_and_a_lost_lease_cannot_finish(backend: Backend) {
    let s = open_store(backend).await;
    let (ingest, queue) = (s.store.ingest(), s.store.queue());
    let records = s.store.records();
    let ev = s.event("evt_queue", CRITICAL_TYPE, "a");
    let owner = owned(&s, &ev, TTL).await;
    let outcome = ingest
        .commit(&ev, &owner, WINDOW, common::handlers(&["h1", "h2"]))
        .await
        .unwrap();
    assert_eq!(outcome, CommitOutcome::Accepted);
    assert_eq!(records.depth().await.unwrap().pending, 2);

    let lease = Duration::from_millis(300);
    let mut held = records
        .lease("w1", 10, lease, LeaseFrom::Every)
        .await
        .unwrap();
    assert_eq!(held.len(), 2);
    assert!(
        records
            .lease("w2", 10, lease, LeaseFrom::Every)
            .await
            .unwrap()
            .is_empty(),
        "held by w1"
    );
    held.sort_by(|a, b| a.handler.cmp(&b.handler));
    assert_eq!(held[0].body, ev.body().clone());
    assert_eq!(held[0].attempts, 0);
    // NUL in a handler's answer is kept visible, not refused.
    let done = queue
        .finish(&held[0], "w1", &attempt(1, 200, "ok\0"), Next::Delivered)
        .await
        .unwrap();
    assert!(done);
    let Place::Row(id) = held[0].place else {
        panic!("{:?}", held[0].place)
    };
    let attempts = records.attempts(id).await.unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].status, Some(200));
    assert_eq!(attempts[0].response_body.as_deref(), Some("ok\u{FFFD}"));

    // w1 stalls past its lease: w2 takes the delivery, and w1's late
    // outcome is refused.
    tokio::time::sleep(lease + Duration::from_millis(200)).await;
    let retaken = records
        .lease("w2", 10, lease, LeaseFrom::Every)
        .await
        .unwrap();
    assert_eq!(retaken.len(), 1);
    assert_eq!(retaken[0].handler, "h2");
    let late = queue
        .finish(&held[1], "w1", &attempt(1, 200, ""), Next::Delivered)
        .await
        .unwrap();
    assert!(!late, "a lost lease cannot finish");
    let dead = queue
        .finish(&retaken[0], "w2", &attempt(1, 410, "gone"), Next::Dead)
        .await
        .unwrap();
    assert!(dead);
    let depth = records.depth().await.unwrap();
    assert_eq!((depth.pending, depth.dead), (0, 1));
    let listed = records
        .list(&DeliveryFilter {
            state: Some(DeliveryState::Dead),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!((listed.len(), listed[0].last_status), (1, Some(410)));

    // Requeued: due now, attempts reset.
    let filter = DeliveryFilter {
        state: Some(DeliveryState::Dead),
        ..Default::default()
    };
    assert_eq!(records.requeue(&filter).await.unwrap(), 1);
    assert_eq!(records.depth().await.unwrap().pending, 1);
    let again = records
        .lease("w3", 10, lease, LeaseFrom::Every)
        .await
        .unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 0));
}

async fn deliveries_list_newest_first_by_keyset_and_are_counted(backend: Backend) {
    let s = open_store(backend).await;
    for n in 0..5 {
        let event_type = if n % 2 == 0 {
            PLAIN_TYPE
        } else {
            CRITICAL_TYPE
        };
        let ev = s.event(&format!("evt_page_{n}"), event_type, "body");
        let owner = owned(&s, &ev, TTL).await;
        let outcome = s
            .store
            .ingest()
            .commit(&ev, &owner, WINDOW, common::handlers(&["h1", "h2"]))
            .await
            .unwrap();
        assert_eq!(outcome, CommitOutcome::Accepted);
    }
    let records = s.store.records();
    let mut page = DeliveryFilter {
        newest_first: true,
        limit: Some(4),
        ..Default::default()
    };
    let mut seen = Vec::new();
    loop {
        let rows = records.list(&page).await.unwrap();
        if rows.is_empty() {
            break;
        }
        assert!(rows.len() <= 4);
        page.before_id = rows.last().map(|d| d.id);
        seen.extend(rows);
    }
    let ids: Vec<i64> = seen.iter().map(|d| d.id).collect();
    let mut descending = ids.clone();
    descending.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(ids, descending, "newest first, no row twice");
    assert_eq!(ids.len(), 10, "every page together is every row");
    assert_eq!(seen[0].event_id, "evt_page_4", "the newest first");
    let payload = records.payload(seen[0].id).await.unwrap().unwrap();
    assert_eq!(payload.event_id, "evt_page_4");
    assert_eq!(
        payload.body,
        s.event("evt_page_4", PLAIN_TYPE, "body").body().clone()
    );
    assert!(records.payload(-1).await.unwrap().is_none());

    let count = |f: DeliveryFilter| async move { records.count(&f).await.unwrap() };
    assert_eq!(count(DeliveryFilter::default()).await, 10);
    let plain = DeliveryFilter {
        event_type: Some(hookline::ids::EventType::parse(PLAIN_TYPE).unwrap()),
        handler: Some(hookline::lookup::handler("h1").unwrap()),
        ..Default::default()
    };
    assert_eq!(count(plain).await, 3);
    let future = DeliveryFilter {
        since_ms: Some(Utc::now().timestamp_millis() + 60_000),
        ..Default::default()
    };
    assert_eq!(count(future).await, 0);
    let past = DeliveryFilter {
        until_ms: Some(Utc::now().timestamp_millis() + 60_000),
        ..Default::default()
    };
    assert_eq!(count(past).await, 10);
    let depth = records.depth_by_handler().await.unwrap();
    let pending: Vec<(&str, u64)> = depth
        .iter()
        .map(|h| (h.handler.as_str(), h.depth.pending))
        .collect();
    assert_eq!(pending, [("h1", 5), ("h2", 5)]);
}

async fn accepted_and_conflicting_events_list_newest_first_by_keyset(backend: Backend) {
    let s = open_store(backend).await;
    let ingest = s.store.ingest();
    let records = s.store.records();
    for n in 0..3 {
        let ev = s.event(&format!("evt_acc_{n}"), CRITICAL_TYPE, "body");
        let owner = owned(&s, &ev, TTL).await;
        let outcome = ingest.commit(&ev, &owner, WINDOW, &[]).await.unwrap();
        assert_eq!(outcome, CommitOutcome::Accepted);
    }
    let forged = s.event("evt_acc_1", CRITICAL_TYPE, "another body");
    records.quarantine(&forged).await.unwrap();
    records.quarantine(&forged).await.unwrap();

    let mut filter = EventFilter {
        limit: Some(2),
        ..Default::default()
    };
    let first = records
        .list_events(EventRecord::Accepted, &filter)
        .await
        .unwrap();
    let ids: Vec<&str> = first.iter().map(|e| e.event_id.as_str()).collect();
    assert_eq!(ids, ["evt_acc_2", "evt_acc_1"], "newest first");
    assert_eq!(first[0].event_type, CRITICAL_TYPE);
    assert_eq!(
        first[0].body_bytes,
        s.event("evt_acc_2", CRITICAL_TYPE, "body").body().len() as i64
    );
    filter.before_id = Some(first[1].id);
    let rest = records
        .list_events(EventRecord::Accepted, &filter)
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].event_id, "evt_acc_0");

    let conflicts = records
        .list_events(EventRecord::Conflict, &EventFilter::default())
        .await
        .unwrap();
    assert_eq!(conflicts.len(), 1);
    assert_eq!(
        (conflicts[0].event_id.as_str(), conflicts[0].copies),
        ("evt_acc_1", 2)
    );
    let other_tenant = EventFilter {
        tenant: Some(hookline::lookup::tenant("globex").unwrap()),
        ..Default::default()
    };
    assert!(records
        .list_events(EventRecord::Accepted, &other_tenant)
        .await
        .unwrap()
        .is_empty());
}

/// A lease for some handlers takes only theirs, merged in due order up to
/// its limit; a lease from every handler takes the rest; and a delivery
/// handed back is due again at once, for anyone, with no attempt counted.
async fn a_lease_skips_handlers_and_takes_back_what_is_handed_back(backend: Backend) {
    let s = open_store(backend).await;
    let (ingest, records) = (s.store.ingest(), s.store.records());
    for (id, handlers) in [
        ("evt_skip_1", &["h1", "h2", "h3"][..]),
        ("evt_skip_2", &["h1", "h2"][..]),
    ] {
        let ev = s.event(id, CRITICAL_TYPE, "a");
        let owner = owned(&s, &ev, TTL).await;
        ingest
            .commit(&ev, &owner, WINDOW, common::handlers(handlers))
            .await
            .unwrap();
        // Distinct due times, so due order is one order.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let lease = Duration::from_secs(30);
    let taken = |held: &[Leased]| -> Vec<(String, String)> {
        held.iter()
            .map(|d| (d.event_id.to_string(), d.handler.to_string()))
            .collect()
    };
    let pair = |e: &str, h: &str| (e.to_string(), h.to_string());
    let held = records
        .lease("w1", 10, lease, LeaseFrom::Only(common::handlers(&["h2"])))
        .await
        .unwrap();
    let mut h2 = taken(&held);
    h2.sort();
    assert_eq!(h2, [pair("evt_skip_1", "h2"), pair("evt_skip_2", "h2")]);
    let back = held.iter().find(|d| d.event_id == "evt_skip_1").unwrap();
    let mut two = taken(
        &records
            .lease(
                "w1",
                2,
                lease,
                LeaseFrom::Only(common::handlers(&["h1", "h3"])),
            )
            .await
            .unwrap(),
    );
    two.sort();
    assert_eq!(
        two,
        [pair("evt_skip_1", "h1"), pair("evt_skip_1", "h3")],
        "the earliest due of both handlers, no more than asked"
    );
    assert!(records
        .lease("w1", 10, lease, LeaseFrom::Only(&[]))
        .await
        .unwrap()
        .is_empty());
    records.give_back(back, "someone-else").await.unwrap();
    assert!(
        records
            .lease("w2", 10, lease, LeaseFrom::Only(common::handlers(&["h2"])))
            .await
            .unwrap()
            .is_empty(),
        "only the holder can hand it back"
    );
    records.give_back(back, "w1").await.unwrap();
    let mut again = taken(
        &records
            .lease("w2", 10, lease, LeaseFrom::Every)
            .await
            .unwrap(),
    );
    again.sort();
    assert_eq!(
        again,
        [pair("evt_skip_1", "h2"), pair("evt_skip_2", "h1")],
        "what was handed back, and what no lease had taken"
    );
}

backend_tests!(
    a_lease_skips_handlers_and_takes_back_what_is_handed_back,
    claim_then_commit_makes_later_copies_duplicates,
    another_body_is_a_conflict_and_its_copies_are_counted,
    a_stale_owner_can_neither_complete_nor_release,
    a_released_claim_is_free_again_and_records_nothing,
    pending_deliveries_outlive_a_released_claim_with_their_body,
    leases_finish_and_a_lost_lease_cannot_finish,
    deliveries_list_newest_first_by_keyset_and_are_counted,
    accepted_and_conflicting_events_list_newest_first_by_keyset,
);
