//! The HTTP contract, black-box, on every backend: accept, duplicate,
//! concurrency, conflicts, authentication before state, tenant isolation,
//! and the order of checks with their status codes and problem documents.

use crate::common;

use common::{
    headers_for, now, secret, spawn_app, spawn_app_with, AppOptions, Backend, Webhook, ROUTES,
};

/// Assert an RFC 9457 problem document with this status and code.
async fn assert_problem(res: reqwest::Response, status: u16, code: &str) -> serde_json::Value {
    assert_eq!(res.status().as_u16(), status, "status for {code}");
    assert_eq!(
        res.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/problem+json"),
        "content type for {code}"
    );
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status);
    assert!(
        body["type"].as_str().is_some_and(|t| t.ends_with(code)),
        "{body}"
    );
    assert!(
        body["title"].is_string() && body["detail"].is_string(),
        "{body}"
    );
    body
}

async fn every_provider_accepts_then_reports_duplicate(backend: Backend) {
    let app = spawn_app(backend).await;
    for (route, _) in ROUTES {
        let id = format!("{route}-evt-1");
        let w = Webhook::new(route, "acme", &id, "thing.happened", "first");
        let res = app.send(&w).await;
        assert_eq!(res.status(), 200, "{route}");
        assert!(res.headers().get("Webhook-Duplicate").is_none());
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(
            body,
            serde_json::json!({"status": "accepted", "provider": route, "tenant": "acme", "event_id": id}),
            "{route}"
        );
        // The provider retries the very same request.
        let res = app.send(&w).await;
        assert_eq!(res.status(), 200, "{route}");
        assert_eq!(res.headers().get("Webhook-Duplicate").unwrap(), "true");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["status"], "duplicate", "{route}");
        let row = app
            .store
            .records()
            .processed_event(&common::key(route, "acme", &id))
            .await
            .unwrap();
        let row =
            row.unwrap_or_else(|| panic!("{route}: critical event has no processed_event row"));
        assert_eq!(
            row.body, w.body,
            "{route}: the stored body is the exact raw bytes"
        );
        assert_eq!(row.event_type, "thing.happened", "{route}");
    }
    assert_eq!(app.inventory().await.processed_events, ROUTES.len() as u64);
}

async fn default_tenant_route(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut w = Webhook::new("stripe", "default", "evt_default", "charge.succeeded", "x");
    w.path = "/webhooks/stripe".into();
    let (status, body) = app.send_json(&w).await;
    assert_eq!(status, 200);
    assert_eq!(body["tenant"], "default");
}

async fn concurrent_requests_for_one_event_are_accepted_once(backend: Backend) {
    let app = std::sync::Arc::new(spawn_app(backend).await);
    let w = Webhook::new(
        "stripe",
        "acme",
        "evt_race",
        "payment_intent.succeeded",
        "same",
    );
    let mut tasks = Vec::new();
    for _ in 0..50 {
        let (app, w) = (app.clone(), w.clone());
        tasks.push(tokio::spawn(async move {
            let res = app.send(&w).await;
            let status = res.status().as_u16();
            let retry_after = res.headers().get("Retry-After").is_some();
            let body: serde_json::Value = res.json().await.unwrap();
            (status, retry_after, body)
        }));
    }
    let (mut accepted, mut duplicate, mut in_progress) = (0, 0, 0);
    for t in tasks {
        match t.await.unwrap() {
            (200, _, b) if b["status"] == "accepted" => accepted += 1,
            (200, _, b) if b["status"] == "duplicate" => duplicate += 1,
            (409, true, b) if b["code"] == "in_progress" => in_progress += 1,
            other => panic!("unexpected answer {other:?}"),
        }
    }
    assert_eq!(
        accepted, 1,
        "duplicate {duplicate}, in_progress {in_progress}"
    );
    assert_eq!(accepted + duplicate + in_progress, 50);
    if backend == Backend::Embedded {
        // Its claim and commit are one write: no copy sees the key held.
        assert_eq!(in_progress, 0, "the key was seen IN_PROGRESS");
    }
    assert_eq!(app.inventory().await.processed_events, 1);
}

async fn same_id_with_another_body_is_a_conflict_and_the_original_stands(backend: Backend) {
    let app = spawn_app(backend).await;
    let original = Webhook::new(
        "stripe",
        "acme",
        "evt_conflict",
        "charge.succeeded",
        "original",
    );
    let forged_copy = Webhook::new(
        "stripe",
        "acme",
        "evt_conflict",
        "charge.succeeded",
        "changed",
    );
    assert_eq!(app.send_json(&original).await.0, 200);
    let body = assert_problem(app.send(&forged_copy).await, 422, "event_id_conflict").await;
    assert!(body["detail"].as_str().unwrap().contains("different body"));
    let row = app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", "evt_conflict"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.body, original.body, "the original stands");
    let inv = app.inventory().await;
    assert_eq!(inv.quarantined, 1, "the conflicting request is kept");
    assert_eq!(inv.processed_events, 1);
    // The original is still a plain duplicate; the conflict repeats as such.
    let (status, body) = app.send_json(&original).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("duplicate")));
    assert_problem(app.send(&forged_copy).await, 422, "event_id_conflict").await;
    assert_eq!(
        app.inventory().await.quarantined,
        2,
        "every conflicting request is counted"
    );
}

async fn failed_verification_leaves_no_trace(backend: Backend) {
    let app = spawn_app(backend).await;
    let good = Webhook::new("stripe", "acme", "evt_target", "charge.succeeded", "real");

    let mut wrong_secret = good.clone();
    wrong_secret.headers = headers_for(
        "stripe",
        "not-the-secret",
        &good.body,
        "evt_target",
        "charge.succeeded",
        now(),
    );
    assert_problem(app.send(&wrong_secret).await, 401, "invalid_signature").await;

    let mut other_tenant = good.clone();
    other_tenant.headers = headers_for(
        "stripe",
        &secret("stripe", "globex"),
        &good.body,
        "evt_target",
        "charge.succeeded",
        now(),
    );
    assert_problem(app.send(&other_tenant).await, 401, "invalid_signature").await;

    let mut tampered = good.clone();
    tampered.body = common::body_for("stripe", "evt_target", "charge.succeeded", "attacker");
    assert_problem(app.send(&tampered).await, 401, "invalid_signature").await;

    for skew in [-3600, 3600] {
        let mut stale = good.clone();
        stale.headers = headers_for(
            "stripe",
            &secret("stripe", "acme"),
            &good.body,
            "evt_target",
            "charge.succeeded",
            now() + skew,
        );
        assert_problem(app.send(&stale).await, 401, "timestamp_out_of_tolerance").await;
    }

    let mut unsigned = good.clone();
    unsigned.headers.retain(|(k, _)| k != "Stripe-Signature");
    assert_problem(app.send(&unsigned).await, 401, "missing_signature").await;

    let mut malformed = good.clone();
    for h in malformed
        .headers
        .iter_mut()
        .filter(|(k, _)| k == "Stripe-Signature")
    {
        h.1 = "not a signature".into();
    }
    assert_problem(app.send(&malformed).await, 401, "invalid_signature").await;

    assert_eq!(
        app.inventory().await,
        Default::default(),
        "no key, row or quarantine entry"
    );
    // Nobody pre-claimed the ID: the real event is accepted.
    let (status, body) = app.send_json(&good).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
}

async fn tenants_are_isolated(backend: Backend) {
    let app = spawn_app(backend).await;
    let acme = Webhook::new("github", "acme", "same-delivery-id", "push", "a");
    let mut acme_secret_on_globex = acme.clone();
    acme_secret_on_globex.path = "/webhooks/github/globex".into();
    assert_problem(
        app.send(&acme_secret_on_globex).await,
        401,
        "invalid_signature",
    )
    .await;
    // The same event ID is independent per tenant.
    let globex = Webhook::new("github", "globex", "same-delivery-id", "push", "a");
    assert_eq!(app.send_json(&acme).await.1["status"], "accepted");
    assert_eq!(app.send_json(&globex).await.1["status"], "accepted");
    assert!(app
        .store
        .records()
        .processed_event(&common::key("github", "acme", "same-delivery-id"))
        .await
        .unwrap()
        .is_some());
    assert!(app
        .store
        .records()
        .processed_event(&common::key("github", "globex", "same-delivery-id"))
        .await
        .unwrap()
        .is_some());
}

async fn unknown_provider_and_tenant_are_404(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut w = Webhook::new("stripe", "acme", "evt_x", "t", "x");
    w.path = "/webhooks/paypal/acme".into();
    assert_problem(app.send(&w).await, 404, "unknown_provider").await;
    w.path = "/webhooks/paypal".into();
    assert_problem(app.send(&w).await, 404, "unknown_provider").await;
    w.path = "/webhooks/stripe/initech".into();
    assert_problem(app.send(&w).await, 404, "unknown_tenant").await;
    assert_eq!(app.inventory().await, Default::default());
}

async fn oversize_body_is_413_before_anything_else(backend: Backend) {
    let mut opts = AppOptions::new(backend);
    opts.max_body_bytes = 1024;
    let app = spawn_app_with(opts).await;
    // Unsigned and oversize: the size check comes first.
    let res = app
        .client
        .post(format!("{}/webhooks/stripe/acme", app.address))
        .body(vec![b'x'; 4096])
        .send()
        .await
        .unwrap();
    assert_problem(res, 413, "payload_too_large").await;
    // Without a Content-Length (chunked), the cap still holds while reading.
    let chunks = futures::stream::iter((0..8).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 512])));
    let res = app
        .client
        .post(format!("{}/webhooks/stripe/acme", app.address))
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_problem(res, 413, "payload_too_large").await;
    // A signed event just under the cap is fine.
    let w = Webhook::new("stripe", "acme", "evt_small", "t", "x");
    assert!(w.body.len() < 1024);
    assert_eq!(app.send_json(&w).await.0, 200);
}

async fn missing_or_unparseable_event_id_is_400(backend: Backend) {
    let app = spawn_app(backend).await;
    let sign = |route: &str, body: &[u8], id: &str| {
        let headers = headers_for(route, &secret(route, "acme"), body, id, "t", now());
        Webhook {
            path: format!("/webhooks/{route}/acme"),
            headers,
            body: body.to_vec(),
        }
    };
    let no_id = sign(
        "stripe",
        br#"{"object":"event","type":"charge.succeeded"}"#,
        "",
    );
    assert_problem(app.send(&no_id).await, 400, "missing_event_id").await;
    let not_json = sign("stripe", b"id=evt_1&type=x", "");
    assert_problem(app.send(&not_json).await, 400, "malformed_payload").await;
    let object_id = sign("stripe", br#"{"id":{"nested":true}}"#, "");
    assert_problem(app.send(&object_id).await, 400, "malformed_payload").await;
    // Control characters, NUL above all, can never be stored: a retry
    // could never succeed, so the answer is a 4xx, not a 503.
    for body in [
        &br#"{"id":"evt_\u0000nul","type":"charge.succeeded"}"#[..],
        br#"{"id":"evt_ok","type":"charge.\u0000succeeded"}"#,
        br#"{"id":"evt_ok","type":"charge\nsucceeded"}"#,
    ] {
        let control = sign("stripe", body, "");
        assert_problem(app.send(&control).await, 400, "malformed_payload").await;
    }
    let mut no_delivery = sign("github", br#"{"zen":"x"}"#, "d-1");
    no_delivery
        .headers
        .retain(|(k, _)| k != "X-GitHub-Delivery");
    assert_problem(app.send(&no_delivery).await, 400, "missing_event_id").await;
    assert_eq!(app.inventory().await, Default::default());
}

async fn health_endpoints(backend: Backend) {
    let app = spawn_app(backend).await;
    for path in ["/healthz", "/readyz"] {
        let res = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
    }
    let res = app
        .client
        .get(format!("{}/nope", app.address))
        .send()
        .await
        .unwrap();
    assert_problem(res, 404, "not_found").await;
}

backend_tests!(
    every_provider_accepts_then_reports_duplicate,
    default_tenant_route,
    concurrent_requests_for_one_event_are_accepted_once,
    same_id_with_another_body_is_a_conflict_and_the_original_stands,
    failed_verification_leaves_no_trace,
    tenants_are_isolated,
    unknown_provider_and_tenant_are_404,
    oversize_body_is_413_before_anything_else,
    missing_or_unparseable_event_id_is_400,
    health_endpoints,
);
