//! The dedup lifecycle at the store boundary, on every backend: claims
//! expire, stale owners cannot finish, released keys are free again.

use crate::common;

use std::time::Duration;

use common::store::verified;
use common::{spawn_app, Backend, Webhook};
use hookline::store::{ClaimOutcome, CommitOutcome};

async fn expired_claim_is_reclaimable_and_stale_owner_cannot_complete(backend: Backend) {
    let app = spawn_app(backend).await;
    let w = Webhook::new("stripe", "acme", "evt_crash", "charge.succeeded", "x");
    let ev = verified(&app.settings, &w);
    let ttl = Duration::from_millis(300);
    let window = Duration::from_secs(3600);

    let ClaimOutcome::Owned(first) = app.store.claim(&ev, ttl).await.unwrap() else {
        panic!("first claim must own the key");
    };
    // While the first owner lives, others are told to come back.
    match app.store.claim(&ev, ttl).await.unwrap() {
        ClaimOutcome::InProgress { retry_after } => assert!(retry_after <= ttl),
        other => panic!("expected in progress, got {other:?}"),
    }
    // The first owner "crashes"; its claim expires.
    tokio::time::sleep(ttl + Duration::from_millis(200)).await;
    let ClaimOutcome::Owned(second) = app.store.claim(&ev, ttl * 20).await.unwrap() else {
        panic!("an expired claim must be re-claimable");
    };
    assert_ne!(first, second);
    // The stale owner wakes up and tries to finish.
    let stale = app.store.commit(&ev, &first, window, &[]).await.unwrap();
    if backend == Backend::Embedded {
        // Ownership is checked in the transaction that would write: nothing written.
        assert_eq!(stale, CommitOutcome::NotOwner);
    }
    // On the redis store a critical row is written before the Redis
    // completion, so the stale owner's insert may win the row (Accepted);
    // on every backend it cannot complete the key over the newer claim.
    assert!(
        matches!(
            app.store.claim(&ev, ttl).await.unwrap(),
            ClaimOutcome::InProgress { .. }
        ),
        "a stale owner must not complete over the new owner's claim"
    );
    app.store.release(&ev, &first).await.unwrap();
    assert!(
        matches!(
            app.store.claim(&ev, ttl).await.unwrap(),
            ClaimOutcome::InProgress { .. }
        ),
        "a stale release must not free the new owner's key"
    );
    // The new owner completes; the event is accepted and recorded once.
    let fresh = app.store.commit(&ev, &second, window, &[]).await.unwrap();
    let accepted = [stale, fresh]
        .iter()
        .filter(|o| **o == CommitOutcome::Accepted)
        .count();
    assert_eq!(accepted, 1, "stale {stale:?}, fresh {fresh:?}");
    assert_eq!(
        app.store.claim(&ev, ttl).await.unwrap(),
        ClaimOutcome::Duplicate
    );
    assert_eq!(app.inventory().await.processed_events, 1);
}

async fn released_claim_is_free_again(backend: Backend) {
    let app = spawn_app(backend).await;
    let w = Webhook::new("github", "acme", "delivery-1", "push", "x");
    let ev = verified(&app.settings, &w);
    let ttl = Duration::from_secs(30);
    let ClaimOutcome::Owned(owner) = app.store.claim(&ev, ttl).await.unwrap() else {
        panic!("owned");
    };
    app.store.release(&ev, &owner).await.unwrap();
    assert!(matches!(
        app.store.claim(&ev, ttl).await.unwrap(),
        ClaimOutcome::Owned(_)
    ));
    assert_eq!(
        app.inventory().await.processed_events,
        0,
        "a released claim records nothing"
    );
}

async fn completed_key_suppresses_for_the_window_only(backend: Backend) {
    let app = spawn_app(backend).await;
    let w = Webhook::new("slack", "acme", "Ev1", "app_mention", "x");
    let ev = verified(&app.settings, &w);
    let ttl = Duration::from_secs(30);
    let ClaimOutcome::Owned(owner) = app.store.claim(&ev, ttl).await.unwrap() else {
        panic!("owned");
    };
    let window = Duration::from_millis(300);
    assert_eq!(
        app.store.commit(&ev, &owner, window, &[]).await.unwrap(),
        CommitOutcome::Accepted
    );
    assert_eq!(
        app.store.claim(&ev, ttl).await.unwrap(),
        ClaimOutcome::Duplicate
    );
    tokio::time::sleep(window + Duration::from_millis(200)).await;
    // The window passed: the key may be claimed again, but the durable row
    // still makes the critical event a duplicate, forever.
    let ClaimOutcome::Owned(again) = app.store.claim(&ev, ttl).await.unwrap() else {
        panic!("the window has passed; the key is free");
    };
    assert_eq!(
        app.store.commit(&ev, &again, window, &[]).await.unwrap(),
        CommitOutcome::Duplicate
    );
    assert_eq!(app.inventory().await.processed_events, 1);
}

backend_tests!(
    expired_claim_is_reclaimable_and_stale_owner_cannot_complete,
    released_claim_is_free_again,
    completed_key_suppresses_for_the_window_only,
);
