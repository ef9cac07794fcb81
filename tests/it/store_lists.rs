//! The store contract's lists, on every backend: deliveries and events
//! (accepted, conflicting) newest first by keyset pages, their counts and
//! filters, as the console and the admin API page through them.

use crate::common;
use crate::store_contract::{owned, TTL, WINDOW};

use chrono::Utc;
use common::store::{open_store, CRITICAL_TYPE, PLAIN_TYPE};
use common::Backend;
use hookline::store::delivery::DeliveryFilter;
use hookline::store::listing::{EventFilter, EventRecord};
use hookline::store::CommitOutcome;

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

backend_tests!(
    deliveries_list_newest_first_by_keyset_and_are_counted,
    accepted_and_conflicting_events_list_newest_first_by_keyset,
);
