//! Crashes, with the real binary and SIGKILL: nothing acknowledged is lost.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::procs::{config, free_port, post, serve, try_post, wait_ready, KeysGuard, Proc};
use common::sink::{Reply, Sink};
use common::{Backend, StoreGuard, Webhook};

/// A receiver alone (it answers, it never delivers) on a fresh store: the
/// sink its handler points at, the config, the process and its port, and
/// what keeps the store.
type LoneReceiver = (Sink, std::path::PathBuf, Proc, u16, (StoreGuard, KeysGuard));

async fn lone_receiver(backend: Backend, dir: &std::path::Path) -> LoneReceiver {
    let sink = Sink::start(vec![]);
    let (config, db, keys) = config(
        backend,
        dir,
        &sink,
        "[delivery]\npoll_interval = \"50ms\"\n",
    )
    .await;
    let port = free_port();
    let proc = serve(&config, "receiver", port);
    wait_ready(port).await;
    (sink, config, proc, port, (db, keys))
}

async fn receiver_killed_after_2xx_delivers_after_restart(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (sink, config, receiver, port, _guards) = lone_receiver(backend, dir.path()).await;
    let w = Webhook::new("stripe", "acme", "evt_kill9", "charge.succeeded", "x");
    let (status, body) = post(port, &w).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    receiver.kill9();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        sink.received().is_empty(),
        "nothing was delivered before the kill"
    );
    // Restarted, the process finds the recorded delivery and sends it.
    let port = free_port();
    let _restarted = serve(&config, "all", port);
    wait_ready(port).await;
    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].body, w.body);
    // And the provider's retry is a duplicate, not a second delivery.
    let (_, body) = post(port, &w).await;
    assert_eq!(body["status"], "duplicate");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1);
}

async fn worker_killed_mid_delivery_has_its_lease_recovered(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    // The first call hangs: the worker is killed while it waits.
    let sink = Sink::start(vec![Reply::Slow(Duration::from_secs(30), 200)]);
    let (config, _db, _keys) = config(
        backend,
        dir.path(),
        &sink,
        "[delivery]\npoll_interval = \"50ms\"\nlease = \"2s\"\n",
    )
    .await;
    let port = free_port();
    let _receiver = serve(&config, "receiver", port);
    wait_ready(port).await;
    let worker = serve(&config, "workers", 0);
    let w = Webhook::new("stripe", "acme", "evt_midway", "charge.succeeded", "x");
    assert_eq!(post(port, &w).await.0, 200);
    sink.wait_for(1, Duration::from_secs(10)).await;
    worker.kill9();
    let killed_at = std::time::Instant::now();
    // Another worker takes the delivery over once the dead one's lease ends.
    let _worker2 = serve(&config, "workers", 0);
    let got = sink.wait_for(2, Duration::from_secs(15)).await;
    assert_eq!(got[1].body, w.body);
    assert_eq!(
        got[1].header("webhook-id"),
        got[0].header("webhook-id"),
        "same idempotency key"
    );
    assert!(killed_at.elapsed() < Duration::from_secs(10));
}

/// Killed while concurrent requests are in the store's hands (writes
/// grouped into shared transactions and statements): every event answered
/// 2xx is delivered after the restart, and its retry is a duplicate.
async fn receiver_killed_under_load_keeps_every_acceptance(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (sink, config, receiver, port, _guards) = lone_receiver(backend, dir.path()).await;
    // Eight clients post new events as fast as they are answered, until
    // the process dies under them, once 40 were accepted.
    let answered = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..8)
        .map(|c| {
            let answered = answered.clone();
            tokio::spawn(async move {
                let mut accepted = Vec::new();
                for i in 0.. {
                    let id = format!("evt_load_{c}_{i}");
                    let w = Webhook::new("stripe", "acme", &id, "charge.succeeded", "x");
                    match try_post(port, &w).await {
                        Some((200, _)) => {
                            accepted.push(w);
                            answered.fetch_add(1, Ordering::SeqCst);
                        }
                        Some((status, body)) => panic!("{id}: {status} {body}"),
                        None => break,
                    }
                }
                accepted
            })
        })
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while answered.load(Ordering::SeqCst) < 40 {
        assert!(std::time::Instant::now() < deadline, "too few answers");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    receiver.kill9();
    let mut accepted = Vec::new();
    for client in clients {
        accepted.extend(client.await.unwrap());
    }
    // Restarted, every acceptance is delivered (some events may have been
    // recorded without their answer getting out: those are delivered too).
    let port = free_port();
    let _restarted = serve(&config, "all", port);
    wait_ready(port).await;
    // Counting arrivals is not enough: those recorded without their
    // answer count too, and may arrive before an accepted one.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let got = loop {
        let got = sink.received();
        let all = accepted
            .iter()
            .all(|w| got.iter().any(|r| r.body == w.body));
        if all || std::time::Instant::now() >= deadline {
            break got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let delivered: std::collections::HashSet<&[u8]> =
        got.iter().map(|r| r.body.as_slice()).collect();
    for w in &accepted {
        assert!(
            delivered.contains(w.body.as_slice()),
            "answered 2xx, never delivered: {}",
            String::from_utf8_lossy(&w.body)
        );
        let (status, body) = post(port, w).await;
        assert_eq!((status, body["status"].as_str()), (200, Some("duplicate")));
    }
}

backend_tests!(
    receiver_killed_after_2xx_delivers_after_restart,
    receiver_killed_under_load_keeps_every_acceptance,
    worker_killed_mid_delivery_has_its_lease_recovered,
);

// The same crashes with the suite's events delivered from Redis Streams.
stream_tests!(
    receiver_killed_after_2xx_delivers_after_restart,
    receiver_killed_under_load_keeps_every_acceptance,
    worker_killed_mid_delivery_has_its_lease_recovered,
);
