//! Provider handshakes through the HTTP server, on every backend: answered
//! as the provider expects, and never an event (no dedup key, row or
//! delivery), while the same route's events still are.

use crate::common;

use std::time::Duration;

use common::sink::Sink;
use common::{headers_for, now, secret, spawn_app_with, AppOptions, Backend, Webhook};

/// Slack's example challenge (https://api.slack.com/events/url_verification).
const CHALLENGE: &str = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P";

fn url_verification(tenant_secret: &str) -> Webhook {
    let body = format!(
        r#"{{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"{CHALLENGE}","type":"url_verification"}}"#
    );
    Webhook {
        path: "/webhooks/slack/acme".into(),
        headers: headers_for("slack", tenant_secret, body.as_bytes(), "", "", now()),
        body: body.into_bytes(),
    }
}

async fn slack_url_verification_is_answered_and_is_never_an_event(backend: Backend) {
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[handlers.everything]\nurl = \"{}\"\nevents = [\"slack:*\"]\nsigning_secret = \"whsec_aGFuZHNoYWtlLXRlc3Qta2V5\"\n[delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    let app = spawn_app_with(opts).await;

    let res = app.send(&url_verification(&secret("slack", "acme"))).await;
    assert_eq!(res.status(), 200);
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("content-type").as_deref(), Some("text/plain"));
    assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
    assert_eq!(res.text().await.unwrap(), CHALLENGE);

    // Signed with another tenant's secret: refused before any echo.
    let forged = app
        .send(&url_verification(&secret("slack", "globex")))
        .await;
    assert_eq!(forged.status(), 401);
    let problem: serde_json::Value = forged.json().await.unwrap();
    assert_eq!(problem["code"], "invalid_signature");

    // Neither left a key, a row or a delivery.
    app.assert_nothing_recorded().await;
    assert!(sink.received().is_empty());

    // The same route's events are still events, and reach the handler: the
    // handshake's absence from the store is not for want of a handler.
    let event = Webhook::new("slack", "acme", "Ev1", "app_mention", "x");
    let (status, body) = app.send_json(&event).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    assert_eq!(sink.wait_for(1, Duration::from_secs(5)).await.len(), 1);
    assert_eq!(app.inventory().await.dedup_keys, 1);
}

backend_tests!(slack_url_verification_is_answered_and_is_never_an_event);
