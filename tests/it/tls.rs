//! TLS against real local peers, with a throwaway CA made in the test:
//! deliveries to an HTTPS handler trusted through `[tls] ca_file` (and
//! refused, with the reason recorded, without it); a handler that requires
//! a client certificate; hookline itself serving HTTPS from `[server.tls]`.

use crate::common;

use std::time::Duration;

use common::pki::Pki;
use common::sink::Sink;
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::store::delivery::DeliveryFilter;

async fn app_delivering_to(sink: &Sink, extra_handler: &str, tls: &str) -> TestApp {
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = format!(
        "{tls}\n[handlers.secure]\nurl = \"{}\"\nevents = [\"github:*\"]\n\
         signing_secret = \"whsec_aGFuZHNoYWtlLXRlc3Qta2V5\"\n{extra_handler}\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    spawn_app_with(opts).await
}

/// The deliveries' last errors once the first attempt has been recorded.
async fn first_errors(app: &TestApp) -> Vec<Option<String>> {
    for _ in 0..250 {
        let views = app
            .store
            .records()
            .list(&DeliveryFilter::default())
            .await
            .unwrap();
        if !views.is_empty() && views.iter().all(|v| v.attempts > 0) {
            return views.into_iter().map(|v| v.last_error).collect();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no attempt was recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_handler_is_delivered_to_when_its_ca_is_trusted() {
    let pki = Pki::new();
    let sink = Sink::start_tls(pki.server_config(false));
    let trusted = format!("[tls]\nca_file = \"{}\"", pki.path("ca.pem"));
    let app = app_delivering_to(&sink, "", &trusted).await;
    let (status, _) = app
        .send_json(&Webhook::new("github", "acme", "d-tls-1", "push", "a"))
        .await;
    assert_eq!(status, 200);
    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].header("x-hookline-event-type"), Some("push"));
    assert_eq!(got[0].header("x-hookline-event-id"), Some("d-tls-1"));

    // Without the CA: nothing arrives, and the attempt says why.
    let untrusting = Sink::start_tls(pki.server_config(false));
    let app = app_delivering_to(&untrusting, "", "").await;
    let (status, _) = app
        .send_json(&Webhook::new("github", "acme", "d-tls-2", "push", "b"))
        .await;
    assert_eq!(status, 200);
    let errors = first_errors(&app).await;
    let error = errors[0].clone().unwrap_or_default();
    assert!(error.contains("certificate"), "{error}");
    assert!(untrusting.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_that_requires_a_client_certificate_gets_one() {
    let pki = Pki::new();
    let trusted = format!("[tls]\nca_file = \"{}\"", pki.path("ca.pem"));
    let sink = Sink::start_tls(pki.server_config(true));
    let identity = format!(
        "client_cert_file = \"{}\"\nclient_key_file = \"{}\"",
        pki.path("client.pem"),
        pki.path("client.key")
    );
    let app = app_delivering_to(&sink, &identity, &trusted).await;
    app.send_json(&Webhook::new("github", "acme", "d-mtls-1", "push", "a"))
        .await;
    assert_eq!(sink.wait_for(1, Duration::from_secs(10)).await.len(), 1);

    // The same handler without a client certificate is refused by it.
    let strict = Sink::start_tls(pki.server_config(true));
    let app = app_delivering_to(&strict, "", &trusted).await;
    app.send_json(&Webhook::new("github", "acme", "d-mtls-2", "push", "b"))
        .await;
    let errors = first_errors(&app).await;
    assert!(errors[0].is_some(), "{errors:?}");
    assert!(strict.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hookline_serves_https_from_server_tls() {
    let pki = Pki::new();
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = format!(
        "[server.tls]\ncert_file = \"{}\"\nkey_file = \"{}\"\n",
        pki.path("server.pem"),
        pki.path("server.key")
    );
    let app = spawn_app_with(opts).await;
    let base = app.address.replace("http://127.0.0.1", "https://localhost");
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&pki.ca).unwrap())
        .build()
        .unwrap();
    let w = Webhook::new("github", "acme", "d-in-1", "push", "a");
    let mut req = client
        .post(format!("{base}{}", w.path))
        .body(w.body.clone());
    for (k, v) in &w.headers {
        req = req.header(k, v);
    }
    let res = req.send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.version(), reqwest::Version::HTTP_2, "h2 by ALPN");
    // Plain HTTP on the TLS port gets no answer.
    let plain = reqwest::Client::new()
        .get(format!("{}/healthz", app.address))
        .timeout(Duration::from_secs(2))
        .send()
        .await;
    assert!(!plain.is_ok_and(|r| r.status().is_success()));
}
