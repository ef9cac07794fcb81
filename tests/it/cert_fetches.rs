//! Issue 24: a certificate is fetched before its signature can be checked,
//! so forged SNS and PayPal requests could make hookline fetch without
//! bound. Counted at the local server that stands in for the providers'
//! hosts, on every backend:
//!
//! - many requests naming one URL whose fetch fails cause one fetch
//!   (failures are remembered for a minute);
//! - many requests naming as many URLs cause at most the provider's burst
//!   of new fetches (then one per 6 s), and another provider still gets
//!   its own;
//! - at most four fetches are in flight at once;
//! - a PayPal certificate URL with another path, a query or a fragment is
//!   never fetched.

use crate::common;

use std::time::{Duration, Instant};

use common::cert_host::{
    app_and_certificate_host, base, fetches, rfc3339, sns_fields, sns_signed, status_and_code,
    vector, vectors_file, TOPIC,
};
use common::sink::Reply;
use common::{now, Backend, TestApp, Webhook};
use hookline::http::fetch_cache::{NEW_FETCH_BURST, NEW_FETCH_PERIOD};
use serde_json::json;

fn notification(route: &str, id: &str, cert: &str) -> Webhook {
    let mut w = sns_signed(
        sns_fields(
            json!({"Type": "Notification", "MessageId": id, "TopicArn": TOPIC,
            "Message": "{}", "Timestamp": rfc3339(now())}),
        ),
        cert,
    );
    w.path = format!("/webhooks/{route}/acme");
    w
}

/// Send every request at once; their (status, code).
async fn send_all(app: &TestApp, requests: Vec<Webhook>) -> Vec<(u16, String)> {
    let answers = requests.iter().map(|w| status_and_code(app, w));
    futures::future::join_all(answers).await
}

async fn forged_requests_cause_a_bounded_number_of_fetches(backend: Backend) {
    let (app, sink, _pki) = app_and_certificate_host(backend, "aws-sns").await;
    sink.always(Reply::Status(404));
    let started = Instant::now();

    // Twenty requests naming one URL that fails: one fetch, every one 503.
    let gone = format!("{}/gone.pem", base(&sink));
    let same = (0..20)
        .map(|i| notification("aws-sns", &format!("m-same-{i}"), &gone))
        .collect();
    for answer in send_all(&app, same).await {
        assert_eq!(answer, (503, "fetch_failed".into()));
    }
    assert_eq!(
        fetches(&sink, "/gone.pem").len(),
        1,
        "the failure is remembered"
    );

    // Forty requests naming forty URLs: at most the burst, and the rest
    // are answered 503 without a fetch.
    let many = (0..40)
        .map(|i| {
            let cert = format!("{}/c{i}.pem", base(&sink));
            notification("aws-sns", &format!("m-many-{i}"), &cert)
        })
        .collect();
    for answer in send_all(&app, many).await {
        assert_eq!(answer, (503, "fetch_failed".into()));
    }
    let refills = started.elapsed().as_secs_f64() / NEW_FETCH_PERIOD.as_secs_f64();
    let allowed = NEW_FETCH_BURST as usize + refills.ceil() as usize;
    let fetched = fetches(&sink, "/").len();
    assert!(
        (NEW_FETCH_BURST as usize..=allowed).contains(&fetched),
        "{fetched} fetches, at most {allowed} allowed"
    );

    app.assert_nothing_recorded().await;

    // Another provider has a budget of its own: PayPal's vector still
    // verifies, its certificate fetched now.
    sink.always(Reply::Body(200, vectors_file("paypal", "test-cert.pem")));
    let cert = format!("{}/v1/notifications/certs/CERT-1", base(&sink));
    let paypal = vector("paypal", "valid transmission signature", "paypal", &cert);
    assert_eq!(app.send_json(&paypal).await.0, 200);
    assert_eq!(fetches(&sink, "/v1/").len(), 1);
}

async fn at_most_four_fetches_are_in_flight(backend: Backend) {
    let (app, sink, _pki) = app_and_certificate_host(backend, "aws-sns").await;
    let slow = Duration::from_secs(2);
    sink.always(Reply::Slow(slow, 404));
    let eight = (0..8)
        .map(|i| {
            let cert = format!("{}/slow{i}.pem", base(&sink));
            notification("aws-sns", &format!("m-slow-{i}"), &cert)
        })
        .collect();
    for answer in send_all(&app, eight).await {
        assert_eq!(answer, (503, "fetch_failed".into()));
    }
    // A fifth fetch can only start once one of the first four ended.
    let mut at: Vec<Instant> = sink.received().iter().map(|r| r.at).collect();
    at.sort();
    assert!(at.len() >= 4, "{} fetches", at.len());
    for pair in at.windows(5) {
        let gap = pair[4] - pair[0];
        assert!(gap >= slow - Duration::from_millis(100), "{gap:?}");
    }
}

async fn a_paypal_certificate_url_is_only_where_paypal_serves_them(backend: Backend) {
    let (app, sink, _pki) = app_and_certificate_host(backend, "paypal").await;
    let good = format!("{}/v1/notifications/certs/CERT-1", base(&sink));
    for cert in [
        format!("{}/v1/oauth2/token", base(&sink)),
        format!("{good}?x=1"),
        format!("{good}#x"),
        format!("{good}/more"),
        format!("{}/v1/notifications/certs/other", base(&sink)),
    ] {
        let w = vector("paypal", "valid transmission signature", "paypal", &cert);
        assert_eq!(
            status_and_code(&app, &w).await,
            (401, "invalid_signature".into()),
            "{cert}"
        );
    }
    assert!(sink.received().is_empty(), "{:?}", fetches(&sink, "/"));
    // Ten forged requests naming the right URL, each with a wrong
    // signature: one fetch, then the certificate from the cache.
    let mut forged = vector("paypal", "valid transmission signature", "paypal", &good);
    for (k, v) in &mut forged.headers {
        if k.eq_ignore_ascii_case("PAYPAL-TRANSMISSION-SIG") {
            *v = "AAAA".into();
        }
    }
    for _ in 0..10 {
        assert_eq!(
            status_and_code(&app, &forged).await,
            (401, "invalid_signature".into())
        );
    }
    assert_eq!(fetches(&sink, "/v1/").len(), 1);
}

backend_tests!(
    forged_requests_cause_a_bounded_number_of_fetches,
    at_most_four_fetches_are_in_flight,
    a_paypal_certificate_url_is_only_where_paypal_serves_them,
);
