//! A `Content-Encoding: gzip` body is verified decoded, under the body
//! caps: Stream signs the uncompressed JSON of a gzipped webhook. Through
//! HTTP, on every backend: a gzipped Stream event is accepted under its
//! `X-Webhook-Id` and delivered as JSON; a signature over the compressed
//! bytes is refused; a small body that inflates past `max_body_bytes` is
//! 413 and holds no memory afterwards.

use crate::common;

use std::io::Write;

use common::{spawn_app_with, AppOptions, Backend, TestApp};
use flate2::write::GzEncoder;
use flate2::Compression;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const SECRET: &str = "stream-api-secret-for-the-gzip-tests";
const MAX_BODY: usize = 64 * 1024;

async fn app(backend: Backend) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.max_body_bytes = MAX_BODY;
    opts.extra = format!(
        "[providers.stream]\nkind = \"stream\"\ncritical = [\"*\"]\n\
         [providers.stream.tenants.acme]\nsecrets = [\"{SECRET}\"]\n"
    );
    spawn_app_with(opts).await
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn hmac_hex(data: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(data);
    hex::encode(mac.finalize().into_bytes())
}

async fn post(app: &TestApp, id: &str, signature: &str, body: Vec<u8>) -> reqwest::Response {
    app.client
        .post(format!("{}/webhooks/stream/acme", app.address))
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .header("X-Webhook-Id", id)
        .header("X-Signature", signature)
        .body(body)
        .send()
        .await
        .expect("request")
}

async fn a_gzip_body_is_verified_decoded(backend: Backend) {
    let app = app(backend).await;
    let json =
        br#"{"type":"message.new","cid":"messaging:fun","created_at":"2023-11-14T22:13:18.123Z"}"#;
    let res = post(&app, "wh-gzip-1", &hmac_hex(json), gzip(json)).await;
    assert_eq!(res.status(), 200, "{:?}", res.text().await);
    let answer: serde_json::Value = res.json().await.unwrap();
    assert_eq!(answer["event_id"], "wh-gzip-1");
    assert_eq!(answer["status"], "accepted");

    // The same bytes signed as they travel (compressed) do not verify.
    let compressed = gzip(json);
    let res = post(&app, "wh-gzip-2", &hmac_hex(&compressed), compressed).await;
    assert_eq!(res.status(), 401);
}

async fn a_gzip_bomb_is_refused_at_the_body_cap(backend: Backend) {
    let app = app(backend).await;
    let mut big = b"{\"type\":\"message.new\",\"pad\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'a', 4 * MAX_BODY));
    big.extend_from_slice(b"\"}");
    let bomb = gzip(&big);
    assert!(bomb.len() < MAX_BODY, "the compressed body fits the cap");
    let res = post(&app, "wh-bomb", &hmac_hex(&big), bomb).await;
    assert_eq!(res.status(), 413);
    let problem: serde_json::Value = res.json().await.unwrap();
    assert_eq!(problem["code"], "payload_too_large");
    // Nothing stays held once the refusal is answered.
    let start = std::time::Instant::now();
    while app.metric("hookline_buffered_bytes").await != 0.0
        && start.elapsed() < std::time::Duration::from_secs(5)
    {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(app.metric("hookline_buffered_bytes").await, 0.0);
}

backend_tests!(
    a_gzip_body_is_verified_decoded,
    a_gzip_bomb_is_refused_at_the_body_cap,
);
