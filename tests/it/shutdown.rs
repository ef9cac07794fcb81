//! `Application::run(shutdown)` takes its shutdown from outside, on every
//! backend: cancelling the token stops taking connections, lets a request
//! already in flight finish and be recorded, and then `run` returns.

use crate::common;

use std::time::Duration;

use hookline::app::Application;
use hookline::config;
use hookline::store::Store;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use common::raw::{read_response, send_partial};
use common::{test_config, AppOptions, Backend, Webhook};

async fn cancelling_the_token_drains_then_stops(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(backend);
    opts.server_extra = "shutdown_timeout = \"5s\"".into();
    let (text, _guard) = test_config(&opts, dir.path()).await;
    let settings = config::from_toml_str("test.toml", &text).unwrap();
    Store::migrate(&settings.store).await.unwrap();
    let store = Store::connect(&settings.store).await.unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let app = Application::with_listener(settings, store.clone(), listener);
    let port = app.port().unwrap();
    let shutdown = CancellationToken::new();
    let running = tokio::spawn(app.run(shutdown.clone()));

    // A request in flight when the token is cancelled: all but its last
    // byte sent.
    let w = Webhook::new("stripe", "acme", "evt_in_flight", "charge.succeeded", "x");
    let mut headers: Vec<(&str, String)> = w
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    headers.push(("Content-Length", w.body.len().to_string()));
    let (head, last) = w.body.split_at(w.body.len() - 1);
    let mut conn = send_partial(port, "POST", &w.path, &headers, head).await;
    // Long enough for the server to accept the connection and start reading
    // the request even on a loaded machine: one still in the listen backlog
    // when the listener closes is reset, which is not what this tests.
    tokio::time::sleep(Duration::from_millis(1000)).await;

    shutdown.cancel();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "no new connection once stopping"
    );
    conn.write_all(last).await.unwrap();
    let res = read_response(&mut conn, Duration::from_secs(5))
        .await
        .expect("the request in flight is answered");
    assert_eq!(res.status, 200, "{res:?}");
    assert_eq!(res.json()["status"], "accepted");

    let stopped = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("run returns once drained");
    stopped.unwrap().unwrap();
    assert!(store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_in_flight"))
        .await
        .unwrap()
        .is_some());
    // Nothing left behind in the shared Redis.
    let settings = config::from_toml_str("test.toml", &text).unwrap();
    common::drop_keys(&settings, backend);
}

backend_tests!(cancelling_the_token_drains_then_stops);
