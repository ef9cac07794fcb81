//! Issue 24: about 1,500 TCP connections that never finish a TLS handshake
//! delayed every real HTTPS request to a median of 5.6 s (actix's defaults:
//! 256 handshakes in flight per worker, 3 s to finish one), and Slack or
//! Zoom give up after 3 s. On every backend, hookline serving
//! `[server.tls]` with its default limits (`server.max_tls_handshakes`,
//! `server.tls_handshake_timeout`): a flood that keeps 1,500 stalled
//! connections open, reopening each as the server drops it, beside a real
//! client whose signed webhooks, each on a new connection, are answered
//! well under 3 s.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::pki::Pki;
use common::{spawn_app_with, AppOptions, Backend, Webhook};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const STALLED: usize = 1500;

/// Keep one stalled connection open until `stop`: connect, send the first
/// bytes of a TLS record and nothing more, wait for the server to drop it,
/// again.
async fn stall(port: u16, stop: Arc<AtomicBool>, open: Arc<AtomicUsize>) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut conn) = TcpStream::connect(("127.0.0.1", port)).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        // A handshake record's header, promising a ClientHello that never
        // comes.
        let _ = conn.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00]).await;
        open.fetch_add(1, Ordering::Relaxed);
        let mut buf = [0u8; 64];
        loop {
            let read = tokio::time::timeout(Duration::from_millis(200), conn.read(&mut buf)).await;
            match read {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                _ if stop.load(Ordering::Relaxed) => break,
                _ => {}
            }
        }
        open.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn stalled_handshakes_do_not_delay_real_requests(backend: Backend) {
    let pki = Pki::new();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[server.tls]\ncert_file = \"{}\"\nkey_file = \"{}\"\n",
        pki.path("server.pem"),
        pki.path("server.key")
    );
    let app = spawn_app_with(opts).await;
    let base = app.address.replace("http://127.0.0.1", "https://localhost");
    // A new connection (and handshake) per request, as a provider makes.
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&pki.ca).unwrap())
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let open = Arc::new(AtomicUsize::new(0));
    let flood: Vec<_> = (0..STALLED)
        .map(|_| tokio::spawn(stall(app.port, stop.clone(), open.clone())))
        .collect();
    let start = Instant::now();
    while open.load(Ordering::Relaxed) < STALLED && start.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        open.load(Ordering::Relaxed) >= STALLED * 9 / 10,
        "the flood is up"
    );

    // Ten webhooks, over more than one handshake timeout, so that the
    // flood reconnects meanwhile.
    let mut slowest = Duration::ZERO;
    for i in 0..10 {
        let w = Webhook::new("github", "acme", &format!("d-flood-{i}"), "push", "a");
        let mut req = client
            .post(format!("{base}{}", w.path))
            .body(w.body.clone());
        for (k, v) in &w.headers {
            req = req.header(k, v);
        }
        let sent = Instant::now();
        let res = req.send().await.expect("answered");
        let took = sent.elapsed();
        assert_eq!(res.status(), 200);
        slowest = slowest.max(took);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for task in flood {
        let _ = task.await;
    }
    assert!(
        slowest < Duration::from_secs(2),
        "the slowest webhook took {slowest:?} beside {STALLED} stalled handshakes"
    );
}

backend_tests!(stalled_handshakes_do_not_delay_real_requests);
