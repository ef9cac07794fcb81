//! What a completed dedup key costs Redis (issue 25's target: under 150
//! bytes): its `MEMORY USAGE` and encoding, and the growth of `used_memory`
//! per key, the measure the target names, on a Redis of the test's own.

use crate::common;
use crate::redis_owners::store_on;

use std::time::Duration;

use hookline::store::{ClaimOutcome, CommitOutcome, OneStep};

use common::servers::RedisServer;
use common::store::verified;
use common::Webhook;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_key_takes_under_150_bytes() {
    let redis = RedisServer::start();
    let (store, settings, _db) = store_on(&redis).await;
    // A real Stripe event ID (28 characters) under the default prefix.
    let id = "evt_1MqqbKLt4dXK03v50fH9vyar";
    let ev = verified(
        &settings,
        &Webhook::new("stripe", "acme", id, "payment_intent.succeeded", "a"),
    );
    let ClaimOutcome::Owned(owner) = store.claim(&ev, Duration::from_secs(5)).await.unwrap() else {
        panic!("owns")
    };
    let key = hookline::store::redis_dedup_key("hookline", "stripe", "acme", id);
    let usage = |key: &[u8]| redis::cmd("MEMORY").arg("USAGE").arg(key).clone();
    let in_progress: u64 = redis.cmd(&usage(&key)).await;
    let window = Duration::from_secs(30 * 24 * 3600);
    assert_eq!(
        store.commit(&ev, &owner, window, &[]).await.unwrap(),
        CommitOutcome::Accepted
    );
    let completed: u64 = redis.cmd(&usage(&key)).await;
    let encoding: String = redis
        .cmd(redis::cmd("OBJECT").arg("ENCODING").arg(&key))
        .await;
    eprintln!(
        "key {} bytes; MEMORY USAGE completed {completed} B, in progress {in_progress} B",
        key.len()
    );
    assert_eq!(key.len(), 27, "fits a 32-byte allocation");
    assert_eq!(encoding, "int", "the completed value is kept as an integer");
    assert!(completed < 150, "{completed} bytes");
}

/// Issue 25's measure: the growth of `used_memory` per completed key, which
/// counts what `MEMORY USAGE` leaves out (the expiry entry, the hash
/// tables' slots, allocator rounding). 10,000 completed keys of real-length
/// Stripe IDs on a Redis of the test's own; `bench/run` measures a million
/// by default (`BENCH_MEMORY_KEYS`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn used_memory_grows_under_150_bytes_per_completed_key() {
    use futures::stream::{self, StreamExt};
    const KEYS: usize = 10_000;
    let redis = RedisServer::start();
    let (store, settings, _db) = store_on(&redis).await;
    let used_memory = || async {
        let info: String = redis.cmd(redis::cmd("INFO").arg("memory")).await;
        info.lines()
            .find_map(|l| l.strip_prefix("used_memory:")?.trim().parse::<u64>().ok())
            .expect("used_memory")
    };
    let window = Duration::from_secs(30 * 24 * 3600);
    // Warm up: the scripts loaded, the connection's buffers allocated.
    let warm = verified(
        &settings,
        &Webhook::new("stripe", "acme", "evt_warm", "t", "w"),
    );
    store.claim_committed(&warm, window, &[]).await.unwrap();
    let before = used_memory().await;
    // Signed once per key with definitions loaded once (Webhook::new loads
    // them for every request).
    let defs = hookline::provider::Definitions::load(None).unwrap();
    let def = defs.get("stripe").unwrap();
    let secret = def
        .decode_secret(&common::secret("stripe", "acme"))
        .unwrap();
    let events: Vec<_> = (0..KEYS)
        .map(|i| {
            // 28 characters, like evt_1MqqbKLt4dXK03v50fH9vyar.
            let id = format!("evt_1MqqbKLt4dXK{i:012}");
            let body = common::body_for("stripe", &id, "t", "a");
            let headers = hookline::provider::sender_headers(
                def,
                &secret,
                &body,
                &id,
                Some("t"),
                common::now(),
                "",
            )
            .unwrap();
            let w = Webhook {
                path: "/webhooks/stripe/acme".into(),
                headers,
                body,
            };
            verified(&settings, &w)
        })
        .collect();
    stream::iter(events)
        .for_each_concurrent(64, |ev| {
            let store = store.clone();
            async move {
                let recorded = store.claim_committed(&ev, window, &[]).await.unwrap();
                assert_eq!(recorded, Some(OneStep::Commit(CommitOutcome::Accepted)));
            }
        })
        .await;
    // Let serverCron finish rehashing the grown tables: until then both
    // the old and the new bucket arrays are counted.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let per_key = (used_memory().await - before) as f64 / KEYS as f64;
    eprintln!("used_memory grew {per_key:.1} B per completed key over {KEYS} keys");
    assert!(per_key < 150.0, "{per_key:.1} bytes per key");
}
