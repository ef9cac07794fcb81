//! Issue 29: Apple App Store Server Notifications V2 (`scheme = "x5c"`)
//! through the server, on every backend. The notification is the one
//! Apple's `SignedDataVerifier` accepted in `tests/vectors/apple-app-store`
//! (a test chain with Apple's marker OIDs): a tenant that configures the
//! test root receives it once, with the event ID and type of the signed
//! payload; its retry is a duplicate; a tenant that keeps Apple's bundled
//! root refuses it, and nothing is fetched for either.

use crate::common;

use std::time::Duration;

use common::cert_host::vectors_file;
use common::sink::Sink;
use common::{spawn_app_with, AppOptions, Backend, Webhook, HANDLER_SECRET};
use serde_json::Value;

const BUNDLE_ID: &str = "com.example.acme";
const NOTIFICATION_UUID: &str = "002e14d5-51f5-4503-b5a8-c3a1af68eb20";

fn notification(tenant: &str, body: &str) -> Webhook {
    Webhook {
        path: format!("/webhooks/apple/{tenant}"),
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.as_bytes().to_vec(),
    }
}

async fn apple_notifications_chain_to_the_configured_root(backend: Backend) {
    let vectors: Value =
        serde_json::from_str(&vectors_file("apple-app-store", "vectors.json")).unwrap();
    let body = vectors["cases"][0]["body"].as_str().unwrap().to_owned();
    let root = vectors_file("apple-app-store", "root.pem");
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[providers.apple]\nkind = \"apple-app-store\"\n\
         [providers.apple.tenants.acme]\nsecrets = ['''{root}''', \"{BUNDLE_ID}\"]\n\
         [providers.apple.tenants.apple-root]\nsecrets = [\"{BUNDLE_ID}\"]\n\
         [handlers.store]\nurl = \"{}\"\nevents = [\"apple:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    let app = spawn_app_with(opts).await;

    let (status, answer) = app.send_json(&notification("acme", &body)).await;
    assert_eq!(
        (status, answer["status"].as_str()),
        (200, Some("accepted")),
        "{answer}"
    );
    let (status, answer) = app.send_json(&notification("acme", &body)).await;
    assert_eq!(
        (status, answer["status"].as_str()),
        (200, Some("duplicate")),
        "{answer}"
    );

    // The same notification for a tenant trusting Apple's root only.
    let (status, answer) = app.send_json(&notification("apple-root", &body)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (401, Some("invalid_signature")),
        "{answer}"
    );

    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(
        got[0].header("x-hookline-event-id"),
        Some(NOTIFICATION_UUID)
    );
    assert_eq!(got[0].header("x-hookline-event-type"), Some("DID_RENEW"));
    assert_eq!(got[0].body, body.as_bytes(), "the original bytes");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1, "delivered once");
}

backend_tests!(apple_notifications_chain_to_the_configured_root);
