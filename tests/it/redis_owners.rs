//! Owners of one dedup key on the `redis` store, through the store's API
//! on a Redis of the test's own: a stale owner can neither complete nor
//! release a newer claim, and owners committing one event at once record
//! it once.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use hookline::config::{self, Settings};
use hookline::store::{ClaimOutcome, CommitOutcome, Store};

use crate::redis_store::CRITICAL;
use common::servers::{config_text, redis_store_section, RedisServer};
use common::store::verified;
use common::{TestDatabase, Webhook};

pub(crate) async fn store_on(redis: &RedisServer) -> (Store, Arc<Settings>, TestDatabase) {
    let db = TestDatabase::create().await;
    let store = redis_store_section(
        &format!("redis_url = \"{}\"", redis.url()),
        &db.url,
        "hookline",
        "2s",
    );
    let settings = config::from_toml_str("t.toml", &config_text(&store, CRITICAL, "5s")).unwrap();
    Store::migrate(&settings.store).await.unwrap();
    let store = Store::connect(&settings.store).await.unwrap();
    (store, Arc::new(settings), db)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_owner_can_neither_complete_nor_release_a_newer_claim() {
    let redis = RedisServer::start();
    let (store, settings, _db) = store_on(&redis).await;
    let ttl = Duration::from_millis(100);
    let window = Duration::from_secs(60);
    for (id, event_type) in [
        ("evt_s1", "customer.created"),
        ("evt_s2", "payment_intent.succeeded"),
    ] {
        let ev = verified(
            &settings,
            &Webhook::new("stripe", "acme", id, event_type, "a"),
        );
        let ClaimOutcome::Owned(stale) = store.claim(&ev, ttl).await.unwrap() else {
            panic!("first claim owns")
        };
        match store.claim(&ev, ttl).await.unwrap() {
            ClaimOutcome::InProgress { retry_after } => assert!(retry_after <= ttl),
            other => panic!("expected in progress, got {other:?}"),
        }
        tokio::time::sleep(ttl * 2).await;
        let ClaimOutcome::Owned(fresh) = store.claim(&ev, ttl * 50).await.unwrap() else {
            panic!("the expired claim is taken over")
        };
        // The stale owner's release must not free the newer claim.
        store.release(&ev, &stale).await.unwrap();
        assert!(matches!(
            store.claim(&ev, ttl).await.unwrap(),
            ClaimOutcome::InProgress { .. }
        ));
        let late = store.commit(&ev, &stale, window, &[]).await.unwrap();
        if ev.is_critical() {
            // Its row went in first: the row is the truth, and the newer
            // owner finds it and answers duplicate.
            assert_eq!(late, CommitOutcome::Accepted);
            assert_eq!(
                store.commit(&ev, &fresh, window, &[]).await.unwrap(),
                CommitOutcome::Duplicate
            );
        } else {
            assert_eq!(late, CommitOutcome::NotOwner);
            assert_eq!(
                store.commit(&ev, &fresh, window, &[]).await.unwrap(),
                CommitOutcome::Accepted
            );
        }
        assert_eq!(
            store.claim(&ev, ttl).await.unwrap(),
            ClaimOutcome::Duplicate
        );
    }
    assert_eq!(store.inventory().await.unwrap().processed_events, 1);
}

/// PostgreSQL writes are group-committed: concurrent commits share one
/// statement. When several owners of one event (expired claims, e.g. after
/// Redis lost its keys) commit at once, in one statement or several, one
/// row and one set of deliveries result, and every other owner is told
/// duplicate or conflict against the body that won.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_of_one_event_committing_at_once_record_it_once() {
    let redis = RedisServer::start();
    let db = TestDatabase::create().await;
    // One group-commit statement at a time (the default, said here because
    // the test depends on it): the commits below queue up behind one
    // another into shared statements.
    let section = format!(
        "{}write_concurrency = 1\n",
        redis_store_section(
            &format!("redis_url = \"{}\"", redis.url()),
            &db.url,
            "hookline",
            "5s"
        )
    );
    let settings = config::from_toml_str("t.toml", &config_text(&section, CRITICAL, "5s")).unwrap();
    Store::migrate(&settings.store).await.unwrap();
    let store = Store::connect(&settings.store).await.unwrap();
    let ttl = Duration::from_millis(1);
    let mut owners = Vec::new();
    for i in 0..12 {
        // Two bodies for one ID: a conflict in the making.
        let salt = if i % 3 == 0 { "b" } else { "a" };
        let ev = verified(
            &settings,
            &Webhook::new(
                "stripe",
                "acme",
                "evt_many_owners",
                "payment_intent.succeeded",
                salt,
            ),
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
        let ClaimOutcome::Owned(owner) = store.claim(&ev, ttl).await.unwrap() else {
            panic!("each expired claim is taken over")
        };
        owners.push((ev, owner));
    }
    let window = Duration::from_secs(60);
    let outcomes = futures::future::join_all(
        owners
            .iter()
            .map(|(ev, owner)| store.commit(ev, owner, window, common::handlers(&["h1", "h2"]))),
    )
    .await;
    let outcomes: Vec<CommitOutcome> = outcomes.into_iter().map(Result::unwrap).collect();
    let winners: Vec<usize> = (0..outcomes.len())
        .filter(|&i| outcomes[i] == CommitOutcome::Accepted)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one acceptance: {outcomes:?}");
    let won = &owners[winners[0]].0;
    for ((ev, _), outcome) in owners.iter().zip(&outcomes) {
        if *outcome == CommitOutcome::Accepted {
            continue;
        }
        let expected = if ev.body() == won.body() {
            CommitOutcome::Duplicate
        } else {
            CommitOutcome::Conflict
        };
        assert_eq!(*outcome, expected);
    }
    let row = store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_many_owners"))
        .await
        .unwrap()
        .expect("the row");
    assert_eq!(row.body, won.body().to_vec());
    assert_eq!(store.inventory().await.unwrap().processed_events, 1);
    let deliveries = store
        .records()
        .list(&hookline::store::delivery::DeliveryFilter {
            event_id: Some(hookline::lookup::event_id("evt_many_owners").unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut handlers: Vec<&str> = deliveries.iter().map(|d| d.handler.as_str()).collect();
    handlers.sort();
    assert_eq!(handlers, ["h1", "h2"]);
}
