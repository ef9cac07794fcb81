//! The shape of hookline's answers, on every backend, read off the wire: a
//! problem's `title` is its status line's reason phrase (issue 10: the 422
//! said "Unprocessable Entity" on one and "Unprocessable Content" on the
//! other); a method the webhook route does not take is 405 with `Allow`
//! (issue 10: it was 404); every unknown route is a problem document.

use crate::common;

use std::time::Duration;

use common::raw::{read_head, read_response, send_partial, RawResponse};
use common::{spawn_app, spawn_app_with, AppOptions, Backend, TestApp, Webhook};

/// Send `w` (or just a method and path) over a bare socket.
async fn raw(app: &TestApp, method: &str, w: &Webhook) -> RawResponse {
    let mut headers: Vec<(&str, String)> = w
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    headers.push(("Content-Length", w.body.len().to_string()));
    let mut conn = send_partial(app.port, method, &w.path, &headers, &w.body).await;
    let limit = Duration::from_secs(5);
    match method {
        "HEAD" => read_head(&mut conn, limit).await,
        _ => read_response(&mut conn, limit).await,
    }
    .expect("an answer")
}

fn assert_title_is_the_status_line(res: &RawResponse, status: u16, reason: &str) {
    assert_eq!(res.status_line, format!("HTTP/1.1 {status} {reason}"));
    assert_eq!(res.header("Content-Type"), Some("application/problem+json"));
    let problem = res.json();
    assert_eq!(problem["title"], reason, "{problem}");
    assert_eq!(problem["status"], status, "{problem}");
}

async fn a_problem_title_is_its_status_line(backend: Backend) {
    let mut opts = AppOptions::new(backend);
    opts.max_body_bytes = 1024;
    let app = spawn_app_with(opts).await;
    let original = Webhook::new("stripe", "acme", "evt_t", "charge.succeeded", "a");
    let changed = Webhook::new("stripe", "acme", "evt_t", "charge.succeeded", "b");
    assert_eq!(raw(&app, "POST", &original).await.status, 200);
    let res = raw(&app, "POST", &changed).await;
    assert_title_is_the_status_line(&res, 422, "Unprocessable Content");
    assert_eq!(res.json()["code"], "event_id_conflict");

    let mut big = original.clone();
    big.body = vec![b'x'; 2048];
    let res = raw(&app, "POST", &big).await;
    assert_title_is_the_status_line(&res, 413, "Content Too Large");

    let mut forged = original.clone();
    forged.headers.retain(|(k, _)| k != "Stripe-Signature");
    let res = raw(&app, "POST", &forged).await;
    assert_title_is_the_status_line(&res, 401, "Unauthorized");

    let mut unknown = original.clone();
    unknown.path = "/webhooks/nobody/acme".into();
    let res = raw(&app, "POST", &unknown).await;
    assert_title_is_the_status_line(&res, 404, "Not Found");
    assert_eq!(res.json()["code"], "unknown_provider");

    unknown.path = "/nowhere".into();
    let res = raw(&app, "GET", &unknown).await;
    assert_title_is_the_status_line(&res, 404, "Not Found");
    assert_eq!(res.json()["code"], "not_found");

    // Under /webhooks only `/{provider}` and `/{provider}/{tenant}` are
    // routes; a segment is read as the router decodes it.
    for path in [
        "/webhooks",
        "/webhooks/",
        "/webhooks/stripe/",
        "/webhooks//acme",
        "/webhooks/stripe/acme/extra",
    ] {
        unknown.path = path.into();
        let res = raw(&app, "POST", &unknown).await;
        assert_title_is_the_status_line(&res, 404, "Not Found");
        assert_eq!(res.json()["code"], "not_found", "{path}");
    }
    let mut encoded = original.clone();
    encoded.path = "/webhooks/str%69pe/acme".into();
    let res = raw(&app, "POST", &encoded).await;
    assert_eq!(res.status, 200, "{}: {}", encoded.path, res.status_line);
    assert_eq!(res.json()["provider"], "stripe", "{}", res.json());
}

async fn a_method_the_webhook_route_does_not_take_is_405_with_allow(backend: Backend) {
    let app = spawn_app(backend).await;
    for path in [
        "/webhooks/stripe/acme",
        "/webhooks/stripe",
        "/webhooks/slack/acme",
    ] {
        for method in ["GET", "HEAD", "PUT", "DELETE"] {
            let w = Webhook {
                path: path.into(),
                headers: vec![],
                body: vec![],
            };
            let res = raw(&app, method, &w).await;
            assert_eq!(res.status, 405, "{method} {path}: {res:?}");
            assert_eq!(res.header("Allow"), Some("POST"), "{method} {path}");
            if method != "HEAD" {
                assert_title_is_the_status_line(&res, 405, "Method Not Allowed");
                assert_eq!(res.json()["code"], "method_not_allowed");
            }
        }
    }
    // The provider and tenant are still checked first.
    let w = Webhook {
        path: "/webhooks/stripe/initech".into(),
        headers: vec![],
        body: vec![],
    };
    assert_eq!(raw(&app, "GET", &w).await.json()["code"], "unknown_tenant");
    assert_eq!(app.inventory().await, Default::default());
    assert_eq!(
        app.metric(
            "hookline_requests_total{outcome=\"method_not_allowed\",provider=\"stripe\",tenant=\"acme\"}"
        )
        .await,
        4.0
    );
}

/// Holding a request's payload until its answer is sent (so that a body
/// left unread closes the connection) must not close connections whose
/// body was read whole: a provider's keep-alive connection serves many
/// events.
async fn a_connection_is_kept_alive_across_answers(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", app.port))
        .await
        .unwrap();
    for (n, salt) in ["a", "a", "b"].iter().enumerate() {
        let w = Webhook::new("stripe", "acme", "evt_ka", "charge.succeeded", salt);
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
            w.path,
            w.body.len()
        );
        for (k, v) in &w.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        tokio::io::AsyncWriteExt::write_all(&mut conn, head.as_bytes())
            .await
            .unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut conn, &w.body)
            .await
            .unwrap();
        let res = read_response(&mut conn, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("answer {n} on the same connection"));
        let want = ["accepted", "duplicate", "event_id_conflict"][n];
        let got = res.json();
        assert!(got["status"] == want || got["code"] == want, "{n}: {got}");
    }
}

backend_tests!(
    a_connection_is_kept_alive_across_answers,
    a_problem_title_is_its_status_line,
    a_method_the_webhook_route_does_not_take_is_405_with_allow,
);
