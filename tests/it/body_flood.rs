//! Issue 24: one client must not take the whole body buffer. Four
//! connections that each sent only `Content-Length: max_body_bytes` used
//! to reserve all of `server.max_buffered_bytes` before a byte arrived,
//! and every other client got `503 buffer_full`. With real sockets, on
//! every backend, a flood from one client (127.0.0.2) beside a
//! well-behaved one (127.0.0.1) that keeps getting 200:
//!
//! - headers only: each holds its first chunk (16 KiB), not what it
//!   declared, and the client as a whole at most its share
//!   (`max_buffered_bytes_per_peer`, by default an eighth of the budget and
//!   at least one largest body): past it, its connections are refused;
//! - bodies sent all but their last byte: the client holds at most its
//!   share, the others keep the rest.

use crate::common;

use std::time::{Duration, Instant};

use common::raw::{read_response, send_partial_from};
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use tokio::net::TcpStream;

const MAX_BODY: usize = 64 * 1024;
/// Room for four bodies at the cap; one client's share (the default, an
/// eighth but at least one body) is one.
const BUFFERED: usize = 4 * MAX_BODY;
const FLOOD: usize = 16;
const FLOODER: [u8; 4] = [127, 0, 0, 2];

async fn app(backend: Backend) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.max_body_bytes = MAX_BODY;
    opts.server_extra = format!("body_timeout = \"5s\"\nmax_buffered_bytes = {BUFFERED}\n");
    spawn_app_with(opts).await
}

async fn buffered(app: &TestApp) -> f64 {
    app.metric("hookline_buffered_bytes").await
}

/// Wait (up to 3 s) until `/metrics` shows `bytes` held.
async fn wait_buffered(app: &TestApp, bytes: usize) {
    let start = Instant::now();
    while buffered(app).await != bytes as f64 && start.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `FLOOD` connections from [`FLOODER`], one after the other, each
/// declaring a full body and sending `sent` bytes of it, for which the
/// server holds `holds` bytes; those refused at once are answered here
/// (503 `buffer_full`), the others are returned, still open.
async fn flood(app: &TestApp, sent: usize, holds: usize) -> (Vec<TcpStream>, usize) {
    let declared = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Content-Length", MAX_BODY.to_string()),
    ];
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..FLOOD {
        let mut conn = send_partial_from(
            FLOODER,
            app.port,
            "POST",
            "/webhooks/stripe/acme",
            &declared,
            &vec![b'x'; sent],
        )
        .await;
        match read_response(&mut conn, Duration::from_millis(300)).await {
            Some(res) => {
                assert_eq!(
                    (res.status, res.json()["code"].as_str()),
                    (503, Some("buffer_full")),
                    "{res:?}"
                );
                refused += 1;
            }
            None => {
                open.push(conn);
                // Held before the next one comes.
                wait_buffered(app, open.len() * holds).await;
            }
        }
    }
    (open, refused)
}

/// The well-behaved client: `n` signed webhooks, each answered 200 at
/// once.
async fn well_behaved(app: &TestApp, tag: &str, n: usize) {
    for i in 0..n {
        let salt = "y".repeat(if i == 0 { 40 * 1024 } else { 10 });
        let w = Webhook::new(
            "stripe",
            "acme",
            &format!("evt_{tag}_{i}"),
            "charge.succeeded",
            &salt,
        );
        let (status, body) = app.send_json(&w).await;
        assert_eq!(
            (status, body["status"].as_str()),
            (200, Some("accepted")),
            "{body}"
        );
    }
}

async fn a_header_only_flood_from_one_client_leaves_room_for_others(backend: Backend) {
    let app = app(backend).await;
    let (open, refused) = flood(&app, 0, 16 * 1024).await;
    // Each holds 16 KiB; the client's share (one 64 KiB body) holds four.
    assert_eq!((open.len(), refused), (4, FLOOD - 4));
    wait_buffered(&app, MAX_BODY).await;
    assert_eq!(buffered(&app).await, MAX_BODY as f64);
    well_behaved(&app, "headers", 20).await;
    drop(open);
    wait_buffered(&app, 0).await;
}

async fn bodies_held_back_by_one_client_take_only_its_share(backend: Backend) {
    let app = app(backend).await;
    let (open, refused) = flood(&app, MAX_BODY - 1, MAX_BODY).await;
    // One body at the cap fills the share: the rest are refused.
    assert_eq!((open.len(), refused), (1, FLOOD - 1));
    wait_buffered(&app, MAX_BODY).await;
    well_behaved(&app, "bodies", 20).await;
    assert_eq!(
        app.metric("hookline_requests_refused_total{reason=\"buffer_full\"}")
            .await,
        (FLOOD - 1) as f64
    );
    drop(open);
}

backend_tests!(
    a_header_only_flood_from_one_client_leaves_room_for_others,
    bodies_held_back_by_one_client_take_only_its_share,
);
