//! The external URL that URL-signed schemes (Twilio, Square, ...) sign, on
//! every backend (issue 11): `server.public_url` + path + query when set;
//! otherwise the request's own scheme and host, which `Forwarded` /
//! `X-Forwarded-*` replace only from a peer in `server.trusted_proxies`.
//! The tests' requests all come from 127.0.0.1, which is the "proxy" when
//! it is trusted and an ordinary sender when it is not.

use crate::common;

use common::{spawn_text, test_config, AppOptions, Backend, TestApp};
use hookline::provider::{sender_headers, Definitions};

/// A provider that signs the URL it called, then the body.
const DEFINITION: &str = r#"
kind = "url-signed"
title = "Signs the URL"
[signature]
scheme = "hmac"
header = "X-Url-Signature"
encoding = "base64"
signed_content = "{url}{body}"
[event_id]
header = "X-Event-Id"
"#;

const SECRET: &str = "url-signed-secret";
const ROUTE: &str = "/webhooks/urlsig/acme?AccountSid=AC1&b=two";

/// An app with the `urlsig` route and `server` lines in `[server]`.
async fn app(backend: Backend, server: &str) -> (TestApp, tempfile::TempDir) {
    let defs = tempfile::tempdir().unwrap();
    std::fs::write(defs.path().join("url-signed.toml"), DEFINITION).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(backend);
    opts.server_extra = server.to_owned();
    opts.extra = format!(
        "[providers.urlsig]\nkind = \"url-signed\"\n[providers.urlsig.tenants.acme]\nsecrets = [\"{SECRET}\"]\n"
    );
    let (text, guard) = test_config(&opts, dir.path()).await;
    // A top-level key goes before the first table.
    let text = format!("providers_dir = \"{}\"\n{text}", defs.path().display());
    (spawn_text(text, backend, guard, dir).await, defs)
}

/// POST an event signed over `signed_url`, with `extra` headers; the status.
async fn post(app: &TestApp, signed_url: &str, extra: &[(&str, &str)], id: &str) -> u16 {
    let defs = definitions();
    let def = defs.get("url-signed").unwrap();
    let key = def.decode_secret(SECRET).unwrap();
    let body = br#"{"amount":1}"#;
    let headers = sender_headers(def, &key, body, id, None, common::now(), signed_url).unwrap();
    let mut req = app
        .client
        .post(format!("{}{ROUTE}", app.address))
        .body(body.to_vec());
    for (k, v) in headers {
        req = req.header(k, v);
    }
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap().status().as_u16()
}

/// The built-in definitions and [`DEFINITION`], loaded as `providers_dir`
/// loads them.
fn definitions() -> Definitions {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("url-signed.toml"), DEFINITION).unwrap();
    Definitions::load(Some(dir.path())).unwrap()
}

const FORWARDED: &[(&str, &str)] = &[
    ("X-Forwarded-Proto", "https"),
    ("X-Forwarded-Host", "hooks.example.com"),
];
const PUBLIC: &str = "https://hooks.example.com/webhooks/urlsig/acme?AccountSid=AC1&b=two";

async fn public_url_is_the_base_whatever_the_request_says(backend: Backend) {
    let (app, _defs) = app(
        backend,
        "public_url = \"https://hooks.example.com/\"\ntrusted_proxies = [\"127.0.0.1\"]",
    )
    .await;
    let own = format!("http://127.0.0.1:{}{ROUTE}", app.port);
    assert_eq!(post(&app, PUBLIC, &[], "e1").await, 200);
    assert_eq!(post(&app, &own, &[], "e2").await, 401, "not the public URL");
    // Even a trusted proxy's headers do not override public_url.
    let elsewhere = [("X-Forwarded-Host", "other.example.com")];
    assert_eq!(post(&app, PUBLIC, &elsewhere, "e3").await, 200);
}

async fn a_trusted_proxy_says_which_url_was_called(backend: Backend) {
    let (app, _defs) = app(backend, "trusted_proxies = [\"127.0.0.0/8\"]").await;
    assert_eq!(post(&app, PUBLIC, FORWARDED, "e1").await, 200);
    let standard = [(
        "Forwarded",
        "for=192.0.2.1;proto=https;host=\"hooks.example.com\"",
    )];
    assert_eq!(post(&app, PUBLIC, &standard, "e2").await, 200);
    // Without forwarded headers: the request's own scheme and Host.
    let own = format!("http://127.0.0.1:{}{ROUTE}", app.port);
    assert_eq!(post(&app, &own, &[], "e3").await, 200);
    assert_eq!(post(&app, PUBLIC, &[], "e4").await, 401);
}

async fn an_untrusted_peer_cannot_choose_the_signed_url(backend: Backend) {
    let (app, _defs) = app(backend, "trusted_proxies = [\"10.0.0.0/8\"]").await;
    // The sender claims the public URL through forwarded headers: ignored.
    assert_eq!(post(&app, PUBLIC, FORWARDED, "e1").await, 401);
    let standard = [("Forwarded", "proto=https;host=hooks.example.com")];
    assert_eq!(post(&app, PUBLIC, &standard, "e2").await, 401);
    // What it really called verifies, headers or not.
    let own = format!("http://127.0.0.1:{}{ROUTE}", app.port);
    assert_eq!(post(&app, &own, FORWARDED, "e3").await, 200);
    assert_eq!(app.inventory().await.dedup_keys, 1);
}

backend_tests!(
    public_url_is_the_base_whatever_the_request_says,
    a_trusted_proxy_says_which_url_was_called,
    an_untrusted_peer_cannot_choose_the_signed_url,
);
