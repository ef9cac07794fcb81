//! Issue 29: Circle, whose signing key is fetched by the ID a notification
//! names, from Circle's API, with the tenant's API key (`scheme =
//! "ecdsa-key-id"`). A local HTTPS server with a test certificate for
//! `api.circle.com` stands in for the key endpoint, reached through a local
//! `CONNECT` proxy, so the built-in definition's own URL and host list are
//! what is exercised. On every backend:
//!
//! - a notification signed with the key its `X-Circle-Key-Id` names is
//!   accepted and delivered; a second one naming the same key ID causes no
//!   second fetch; the fetch carries the API key as `Authorization: Bearer`;
//! - a key ID the endpoint does not know (404) is refused 401
//!   `invalid_signature`, and remembered: naming it again fetches nothing;
//! - a flood of forged key IDs makes at most the tenant's budget of
//!   fetches; past it the answer is 503 + `Retry-After` (`fetch_failed`,
//!   counted), never 2xx, and nothing is delivered.

use crate::common;

use std::time::Duration;

use base64::Engine as _;
use common::cert_host::{fetches, vectors_file};
use common::connect_proxy::ConnectProxy;
use common::pki::Pki;
use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, Webhook, HANDLER_SECRET};
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::{json, Value};

const HOST: &str = "api.circle.com";
const KEYS_PATH: &str = "/v2/notifications/publicKey/";
/// The key ID of `test-key.pem` in Circle's vectors.
const KEY_ID: &str = "879dc113-5ca4-4ff7-a6b7-54652083fcf8";
/// The tenant's API key in Circle's vectors.
const API_KEY: &str = "TEST_API_KEY:0c6e3b8a1f2d4e5a9b7c:2d9f4a6b8c1e3f5a7b9d";
/// `CREDENTIALED_FETCH_BURST` in src/http/fetch_cache.rs.
const BUDGET: usize = 5;

fn vectors() -> Value {
    serde_json::from_str(&vectors_file("circle", "vectors.json")).unwrap()
}

fn notification(tenant: &str, key_id: &str, id: &str, ty: &str) -> Webhook {
    let key = SigningKey::from_pkcs8_pem(&vectors_file("circle", "test-key.pem")).unwrap();
    let body = serde_json::to_vec(&json!({
        "subscriptionId": "3d7c5e1a-9b2f-4a6c-8d0e-f1a2b3c4d5e6", "notificationId": id,
        "notificationType": ty, "notification": {"id": "c8e1f4a2", "state": "COMPLETE"},
        "timestamp": "2026-11-25T18:00:00.000Z", "version": 2}))
    .unwrap();
    let signature: Signature = key.sign(&body);
    let signature = base64::engine::general_purpose::STANDARD.encode(signature.to_der());
    Webhook {
        path: format!("/webhooks/circle/{tenant}"),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("X-Circle-Signature".into(), signature),
            ("X-Circle-Key-Id".into(), key_id.into()),
        ],
        body,
    }
}

async fn circle_keys_are_fetched_with_the_api_key_once_and_within_a_budget(backend: Backend) {
    let pki = Pki::new();
    let keys = Sink::start_tls(pki.server_config_for(&[HOST]));
    let url = format!("https://{HOST}{KEYS_PATH}{KEY_ID}");
    let answer = vectors()["certs"][&url].as_str().unwrap().to_owned();
    keys.always(Reply::Routes(vec![(
        format!("{KEYS_PATH}{KEY_ID}"),
        answer,
    )]));
    let port = url::Url::parse(&keys.url).unwrap().port().unwrap();
    let proxy = ConnectProxy::routed(vec![(HOST.into(), ([127, 0, 0, 1], port).into())]).await;
    // The receiver runs in this process (nextest gives each test its own).
    std::env::set_var("HTTPS_PROXY", &proxy.url);
    std::env::set_var("NO_PROXY", "127.0.0.1,localhost");

    let handler = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.routes = false;
    opts.extra = format!(
        "[tls]\nca_file = {:?}\n\
         [providers.circle]\nkind = \"circle\"\n\
         [providers.circle.tenants.acme]\nsecrets = [\"{API_KEY}\"]\n\
         [providers.circle.tenants.flood]\nsecrets = [\"{API_KEY}\"]\n\
         [handlers.all]\nurl = \"{}\"\nevents = [\"circle:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        pki.path("ca.pem"),
        handler.url
    );
    let app = spawn_app_with(opts).await;
    let send = |w: Webhook| {
        let app = &app;
        async move {
            let (status, body) = app.send_json(&w).await;
            let what = body["status"].as_str().or(body["code"].as_str());
            (status, what.unwrap_or_default().to_owned())
        }
    };

    // Two notifications naming the same key: one fetch, with the API key.
    let first = notification("acme", KEY_ID, "n-1", "transactions.inbound");
    assert_eq!(send(first).await, (200, "accepted".into()));
    let second = notification("acme", KEY_ID, "n-2", "transactions.outbound");
    assert_eq!(send(second).await, (200, "accepted".into()));
    let fetched = keys.received();
    assert_eq!(
        fetches(&keys, KEYS_PATH).len(),
        1,
        "the key is cached by ID"
    );
    assert_eq!(fetched[0].uri, format!("{KEYS_PATH}{KEY_ID}"));
    let bearer = format!("Bearer {API_KEY}");
    assert_eq!(fetched[0].header("authorization"), Some(bearer.as_str()));
    assert_eq!(proxy.asked(), [format!("{HOST}:443")]);

    // An unknown key ID: 404 from the endpoint, a verification failure,
    // remembered.
    let unknown = "00000000-0000-4000-8000-000000000000";
    for i in 0..3 {
        let w = notification("acme", unknown, &format!("u-{i}"), "transactions.inbound");
        assert_eq!(send(w).await, (401, "invalid_signature".into()));
    }
    assert_eq!(fetches(&keys, KEYS_PATH).len(), 2, "the 404 is remembered");

    // A flood of forged key IDs for one tenant: at most its budget of
    // fetches, then 503 + Retry-After; the other tenant is unaffected.
    let mut refused = 0;
    for i in 0..(BUDGET + 4) {
        let id = format!("{i:08}-1111-4111-8111-111111111111");
        let w = notification("flood", &id, &format!("f-{i}"), "transactions.inbound");
        let answer = app.send(&w).await;
        let status = answer.status().as_u16();
        assert!(matches!(status, 401 | 503), "never accepted: {status}");
        if status == 503 {
            assert!(answer.headers().contains_key("retry-after"));
            let body: Value = answer.json().await.unwrap();
            assert_eq!(body["code"], "fetch_failed");
            refused += 1;
        }
    }
    assert_eq!(refused, 4, "past the budget");
    assert_eq!(fetches(&keys, KEYS_PATH).len(), 2 + BUDGET);
    let counted = app
        .metric("hookline_requests_total{outcome=\"fetch_failed\",provider=\"circle\",tenant=\"flood\"}")
        .await;
    assert_eq!(counted, 4.0);
    let third = notification("acme", KEY_ID, "n-3", "transactions.inbound");
    assert_eq!(send(third).await, (200, "accepted".into()));

    // Only the genuine notifications are delivered.
    let got = handler.wait_for(3, Duration::from_secs(10)).await;
    let mut ids: Vec<&str> = got
        .iter()
        .filter_map(|r| r.header("x-hookline-event-id"))
        .collect();
    ids.sort();
    assert_eq!(ids, ["n-1", "n-2", "n-3"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(handler.received().len(), 3);
}

backend_tests!(circle_keys_are_fetched_with_the_api_key_once_and_within_a_budget);
