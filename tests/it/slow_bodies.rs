//! Issue 9, defect 2: a slow body must not pin memory. With real sockets,
//! on every backend: senders that declare a body, send all but a byte and
//! go silent fill `server.max_buffered_bytes`; the next request is refused
//! 503 + `Retry-After` before its body is read; the silent ones are answered
//! 408 and closed by `server.body_timeout`; then the receiver takes
//! requests again. Each refusal is counted in `/metrics`.

use crate::common;

use std::time::{Duration, Instant};

use common::raw::{closed_within, read_response, send_partial};
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};

const MAX_BODY: usize = 64 * 1024;
/// Room for exactly four bodies at the cap.
const BUFFERED: usize = 4 * MAX_BODY;
const BODY_TIMEOUT: Duration = Duration::from_secs(2);

/// Every sender here is 127.0.0.1, one client: its share is the whole
/// budget, so that these tests reach the global cap (tests/it/body_flood.rs
/// tests the per-client share).
async fn app(backend: Backend) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.max_body_bytes = MAX_BODY;
    opts.server_extra = format!(
        "body_timeout = \"2s\"\nmax_buffered_bytes = {BUFFERED}\n\
         max_buffered_bytes_per_peer = {BUFFERED}\n"
    );
    spawn_app_with(opts).await
}

/// Wait (up to 3 s) until `/metrics` shows `bytes` of bodies held, so the
/// next step starts once the senders' bodies have arrived. It does not
/// assert: the steps after it say what went wrong.
async fn wait_buffered(app: &TestApp, bytes: usize) {
    let start = Instant::now();
    while app.metric("hookline_buffered_bytes").await != bytes as f64
        && start.elapsed() < Duration::from_secs(3)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn slow_bodies_are_cut_and_cannot_fill_memory(backend: Backend) {
    let app = app(backend).await;
    let declared = |n: usize| {
        vec![
            ("Content-Type", "application/json".to_owned()),
            ("Content-Length", n.to_string()),
        ]
    };
    let opened = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..4 {
        let body = vec![b'x'; MAX_BODY - 1];
        let conn = send_partial(
            app.port,
            "POST",
            "/webhooks/stripe/acme",
            &declared(MAX_BODY),
            &body,
        )
        .await;
        slow.push(conn);
    }
    wait_buffered(&app, BUFFERED).await;

    // The budget is spoken for: the next request is refused at once, its
    // body never read (none is sent, and the answer still comes).
    let mut next = send_partial(
        app.port,
        "POST",
        "/webhooks/stripe/acme",
        &declared(1000),
        b"",
    )
    .await;
    let refused = read_response(&mut next, Duration::from_secs(1))
        .await
        .expect("refused before the body was read, not after a timeout");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.json()["code"], "buffer_full");
    let retry_after: u64 = refused.header("Retry-After").unwrap().parse().unwrap();
    assert!(
        (1..=2).contains(&retry_after),
        "within body_timeout: {retry_after}"
    );
    assert!(closed_within(&mut next, Duration::from_secs(3)).await);

    // The silent senders are answered 408 once body_timeout has passed,
    // and their connections closed: nothing pins the memory any longer.
    for conn in &mut slow {
        let res = read_response(conn, BODY_TIMEOUT + Duration::from_secs(3))
            .await
            .expect("a slow body is answered");
        assert_eq!(res.status, 408, "{res:?}");
        assert_eq!(res.json()["code"], "body_timeout");
        assert!(
            closed_within(conn, Duration::from_secs(3)).await,
            "closed after 408"
        );
    }
    assert!(
        opened.elapsed() >= BODY_TIMEOUT,
        "not cut before the deadline"
    );
    wait_buffered(&app, 0).await;

    // And the receiver takes requests again.
    let w = Webhook::new("stripe", "acme", "evt_after_slow", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    let refused = |reason: &str| format!("hookline_requests_refused_total{{reason=\"{reason}\"}}");
    assert_eq!(app.metric(&refused("buffer_full")).await, 1.0);
    assert_eq!(app.metric(&refused("body_timeout")).await, 4.0);
    assert_eq!(app.inventory().await.dedup_keys, 1, "only the real event");
}

/// A chunked body declares nothing: its reservation starts at 16 KiB and
/// doubles as it outgrows it (never past `max_body_bytes`), and the cap
/// still holds.
async fn a_chunked_body_grows_its_reservation_within_the_cap(backend: Backend) {
    let app = app(backend).await;
    let chunked = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Transfer-Encoding", "chunked".to_owned()),
    ];
    let chunk = |n: usize| {
        let mut c = format!("{n:x}\r\n").into_bytes();
        c.extend(std::iter::repeat_n(b'x', n));
        c.extend_from_slice(b"\r\n");
        c
    };
    // Three senders send 60 KiB each, then go silent: 64 KiB held each.
    let mut slow = Vec::new();
    for _ in 0..3 {
        let conn = send_partial(
            app.port,
            "POST",
            "/webhooks/stripe/acme",
            &chunked,
            &chunk(60 * 1024),
        )
        .await;
        slow.push(conn);
    }
    wait_buffered(&app, 3 * MAX_BODY).await;
    // A fourth sends 20 KiB (32 KiB held), a fifth 10 KiB (16 KiB held):
    // 240 KiB of 256.
    let mut fourth = send_partial(
        app.port,
        "POST",
        "/webhooks/stripe/acme",
        &chunked,
        &chunk(20 * 1024),
    )
    .await;
    wait_buffered(&app, 3 * MAX_BODY + 32 * 1024).await;
    let fifth = send_partial(
        app.port,
        "POST",
        "/webhooks/stripe/acme",
        &chunked,
        &chunk(10 * 1024),
    )
    .await;
    wait_buffered(&app, 3 * MAX_BODY + 48 * 1024).await;
    // 20 KiB more make the fourth 40 KiB, which needs 64 KiB held: past
    // the cap.
    tokio::io::AsyncWriteExt::write_all(&mut fourth, &chunk(20 * 1024))
        .await
        .unwrap();
    let res = read_response(&mut fourth, Duration::from_secs(1))
        .await
        .expect("refused as it grew past the cap");
    assert_eq!(
        (res.status, res.json()["code"].as_str()),
        (503, Some("buffer_full"))
    );
    assert!(res.header("Retry-After").is_some());
    assert!(
        closed_within(&mut fourth, Duration::from_secs(3)).await,
        "closed, its body left unread"
    );
    slow.push(fifth);
    for conn in &mut slow {
        let res = read_response(conn, BODY_TIMEOUT + Duration::from_secs(3))
            .await
            .expect("a slow body is answered");
        assert_eq!(res.status, 408, "{res:?}");
    }
    wait_buffered(&app, 0).await;
}

backend_tests!(
    slow_bodies_are_cut_and_cannot_fill_memory,
    a_chunked_body_grows_its_reservation_within_the_cap,
);
