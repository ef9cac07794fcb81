//! Crashes, with the real binary and SIGKILL: nothing acknowledged is lost.

mod common;

use std::time::Duration;

use common::procs::{config, free_port, post, serve, wait_ready};
use common::sink::{Reply, Sink};
use common::{Backend, Webhook};

async fn receiver_killed_after_2xx_delivers_after_restart(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(vec![]);
    let (config, _db, _keys) = config(
        backend,
        dir.path(),
        &sink,
        "[delivery]\npoll_interval = \"50ms\"\n",
    )
    .await;
    let port = free_port();
    // A receiver alone: it answers, it never delivers.
    let receiver = serve(&config, "receiver", port);
    wait_ready(port).await;
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

backend_tests!(
    receiver_killed_after_2xx_delivers_after_restart,
    worker_killed_mid_delivery_has_its_lease_recovered,
);
