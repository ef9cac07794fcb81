//! The store contract's leases, on every backend: a leased delivery is held
//! by one worker until it finishes, gives it back or loses the lease; a
//! lease can skip handlers and take back what was handed back.

use crate::common;
use crate::store_contract::{owned, TTL, WINDOW};

use std::time::Duration;

use common::store::{open_store, CRITICAL_TYPE};
use common::Backend;
use hookline::store::delivery::{
    AttemptRecord, DeliveryFilter, DeliveryState, LeaseFrom, Leased, Next, Place,
};
use hookline::store::CommitOutcome;

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
    leases_finish_and_a_lost_lease_cannot_finish,
    a_lease_skips_handlers_and_takes_back_what_is_handed_back,
);
