//! The `rsa-cert-url` family (AWS SNS, PayPal) and SNS's subscription
//! handshake through the HTTP server. What a provider's host would serve
//! (the signing certificate, the `SubscribeURL`) is served by a local HTTPS
//! sink with a throwaway CA, trusted through `[tls] ca_file`, and each
//! provider's `fetch_hosts` is `localhost`.
//!
//! The signed requests are the committed vectors, checked by the
//! providers' own SDKs, with their certificate URL pointed at the sink (the
//! URL is not signed); SNS messages that must be signed now (a
//! `SubscribeURL` on the sink, a stale timestamp) are signed here with the
//! vectors' test key, the way the vectors' generator signs them.

use crate::common;

use base64::Engine as _;
use common::cert_host::{
    accepted, app_and_certificate_host, base, fetches, rfc3339, sns_fields, sns_signed,
    status_and_code, vector, vectors_file, TOPIC, V2_NOTIFICATION, WEBHOOK_ID,
};
use common::sink::Reply;
use common::{now, Backend, Webhook};
use serde_json::{json, Map, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sns_vectors_verify_with_a_certificate_fetched_once() {
    let (app, sink, _pki) = app_and_certificate_host(Backend::Embedded, "aws-sns").await;
    let cert = format!("{}/SimpleNotificationService-test.pem", base(&sink));
    let v2 = vector("aws-sns", V2_NOTIFICATION, "old-sns", &cert);
    let body = accepted(&app, &v2).await;
    assert_eq!(body["event_id"], "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324");
    // The same message signed as SignatureVersion 1, to another tenant
    // that subscribed the same topic (the same ID with another body would
    // be a conflict for one tenant).
    let mut v1 = vector(
        "aws-sns",
        "SignatureVersion 1 (RSA-SHA1) notification",
        "old-sns",
        &cert,
    );
    v1.path = "/webhooks/old-sns/v1".into();
    accepted(&app, &v1).await;

    // A tampered message and a tampered signature: refused.
    let tampered = vector("aws-sns", "Message changed after signing", "old-sns", &cert);
    assert_eq!(
        status_and_code(&app, &tampered).await,
        (401, "invalid_signature".into())
    );
    let mut msg: Map<String, Value> = serde_json::from_slice(&v1.body).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut sig = b64.decode(msg["Signature"].as_str().unwrap()).unwrap();
    sig[10] ^= 1;
    msg.insert("Signature".into(), b64.encode(sig).into());
    v1.body = serde_json::to_vec(&msg).unwrap();
    assert_eq!(
        status_and_code(&app, &v1).await,
        (401, "invalid_signature".into())
    );

    assert_eq!(
        fetches(&sink, "/SimpleNotificationService-test.pem"),
        ["GET /SimpleNotificationService-test.pem"],
        "one fetch for four requests naming the certificate"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_url_that_fails_a_cheap_check_is_never_fetched() {
    let (app, sink, _pki) = app_and_certificate_host(Backend::Embedded, "aws-sns").await;
    let port = base(&sink).rsplit(':').next().unwrap().to_owned();
    for cert in [
        // The same server, by a name that is not on the allow-list.
        format!("https://127.0.0.1:{port}/SimpleNotificationService-test.pem"),
        format!("http://localhost:{port}/SimpleNotificationService-test.pem"),
        // Not a .pem path, as AWS's validator requires.
        format!("https://localhost:{port}/SimpleNotificationService-test"),
    ] {
        let w = vector("aws-sns", V2_NOTIFICATION, "old-sns", &cert);
        assert_eq!(
            status_and_code(&app, &w).await,
            (401, "invalid_signature".into()),
            "{cert}"
        );
    }
    // Signed two hours ago: SNS's tolerance is 70 minutes.
    let cert = format!("{}/SimpleNotificationService-test.pem", base(&sink));
    let stale = sns_signed(
        sns_fields(
            json!({"Type": "Notification", "MessageId": "m-stale", "TopicArn": TOPIC,
            "Message": "{}", "Timestamp": rfc3339(now() - 7200)}),
        ),
        &cert,
    );
    assert_eq!(
        status_and_code(&app, &stale).await,
        (401, "timestamp_out_of_tolerance".into())
    );
    // Validly shaped, of a topic the tenant did not subscribe.
    let other = sns_signed(
        sns_fields(json!({"Type": "Notification", "MessageId": "m-other",
            "TopicArn": "arn:aws:sns:us-east-1:123456789012:someone-elses", "Message": "{}",
            "Timestamp": rfc3339(now())})),
        &cert,
    );
    assert_eq!(
        status_and_code(&app, &other).await,
        (401, "invalid_signature".into())
    );
    assert!(sink.received().is_empty(), "{:?}", fetches(&sink, "/"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_that_cannot_be_fetched_is_a_503_to_retry() {
    let (app, sink, _pki) = app_and_certificate_host(Backend::Embedded, "aws-sns").await;
    sink.always(Reply::Status(404));
    let cert = format!("{}/gone.pem", base(&sink));
    let w = vector("aws-sns", V2_NOTIFICATION, "old-sns", &cert);
    let res = app.send(&w).await;
    assert_eq!(res.status(), 503);
    assert!(res.headers().contains_key("retry-after"));
    let problem: Value = res.json().await.unwrap();
    assert_eq!(problem["code"], "fetch_failed");
    // A failure is remembered for a minute (FAILURE_TTL): a retry within
    // it is answered 503 without fetching again; the provider's later
    // retries fetch again (tests/it/cert_fetches.rs counts the fetches).
    sink.always(Reply::Body(200, vectors_file("aws-sns", "test-cert.pem")));
    let res = app.send(&w).await;
    assert_eq!(res.status(), 503);
    assert!(res.headers().contains_key("retry-after"));
    assert_eq!(fetches(&sink, "/gone.pem").len(), 1);
    // Another URL is fetched, its certificate used.
    let w = vector(
        "aws-sns",
        V2_NOTIFICATION,
        "old-sns",
        &format!("{}/back.pem", base(&sink)),
    );
    let (status, _) = app.send_json(&w).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paypal_vectors_verify_through_the_server() {
    let (app, sink, _pki) = app_and_certificate_host(Backend::Embedded, "paypal").await;
    let cert = format!("{}/v1/notifications/certs/CERT-1", base(&sink));
    let good = vector("paypal", "valid transmission signature", "paypal", &cert);
    let body = accepted(&app, &good).await;
    assert_eq!(body["event_id"], "WH-58D329510W468432D-8HN650336L201105X");
    let name = "one body byte changed (the CRC32 no longer matches)";
    let tampered = vector("paypal", name, "paypal", &cert);
    assert_eq!(
        status_and_code(&app, &tampered).await,
        (401, "invalid_signature".into())
    );
    // Signed for this tenant's webhook, sent to a tenant with another one.
    let mut other = good.clone();
    other.path = "/webhooks/paypal/other".into();
    assert_eq!(
        status_and_code(&app, &other).await,
        (401, "invalid_signature".into())
    );
    assert_eq!(fetches(&sink, "/v1/").len(), 1);
}

async fn sns_subscription_is_confirmed_only_once_verified_and_is_never_an_event(backend: Backend) {
    let (app, sink, _pki) = app_and_certificate_host(backend, "aws-sns").await;
    let cert = format!("{}/SimpleNotificationService-test.pem", base(&sink));
    let subscribe = format!(
        "{}/?Action=ConfirmSubscription&TopicArn={TOPIC}&Token=2336412f37fb",
        base(&sink)
    );
    let confirmation = |url: &str| {
        sns_fields(
            json!({"Type": "SubscriptionConfirmation", "MessageId": "m-confirm",
            "Token": "2336412f37fb", "TopicArn": TOPIC, "SubscribeURL": url,
            "Message": "You have chosen to subscribe to the topic.",
            "Timestamp": rfc3339(now())}),
        )
    };

    // Signed, but its SubscribeURL changed after signing: refused, and
    // nothing is fetched from the URL it names.
    let mut forged = sns_signed(confirmation(&subscribe), &cert);
    let evil = format!("{}/?Action=ConfirmSubscription&TopicArn=evil", base(&sink));
    let mut msg: Map<String, Value> = serde_json::from_slice(&forged.body).unwrap();
    msg.insert("SubscribeURL".into(), evil.clone().into());
    forged.body = serde_json::to_vec(&msg).unwrap();
    assert_eq!(
        status_and_code(&app, &forged).await,
        (401, "invalid_signature".into())
    );
    assert!(fetches(&sink, "/?").is_empty());

    // Validly signed, but its SubscribeURL is on no allowed host.
    let port = base(&sink).rsplit(':').next().unwrap().to_owned();
    let elsewhere = format!("https://127.0.0.1:{port}/?Action=ConfirmSubscription");
    let refused = sns_signed(confirmation(&elsewhere), &cert);
    assert_eq!(
        status_and_code(&app, &refused).await,
        (403, "handshake_refused".into())
    );
    assert!(fetches(&sink, "/?").is_empty());

    // Signed as SNS signs it: the SubscribeURL is fetched, then 200.
    let res = app.send(&sns_signed(confirmation(&subscribe), &cert)).await;
    assert_eq!(res.status(), 200);
    let path = subscribe.trim_start_matches(&base(&sink)).to_owned();
    assert_eq!(fetches(&sink, "/?"), [format!("GET {path}")]);
    let answered = "hookline_handshakes_total{kind=\"sns-subscription\",outcome=\"answered\",provider=\"aws-sns\"}";
    assert_eq!(app.metric(answered).await, 1.0);

    // None of it left a key, a row or a delivery.
    app.assert_nothing_recorded().await;

    // The route's notifications are events.
    let event = sns_signed(
        sns_fields(
            json!({"Type": "Notification", "MessageId": "m-event", "TopicArn": TOPIC,
            "Subject": "Order placed", "Message": "{\"order\":1}", "Timestamp": rfc3339(now())}),
        ),
        &cert,
    );
    assert_eq!(accepted(&app, &event).await["event_id"], "m-event");
    assert_eq!(app.inventory().await.dedup_keys, 1);
}

backend_tests!(sns_subscription_is_confirmed_only_once_verified_and_is_never_an_event);

/// Junk where a signature, its certificate URL or its time should be: a
/// 401, never a panic or a 500, and nothing fetched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_401_and_fetch_nothing() {
    let (app, sink, _pki) = app_and_certificate_host(Backend::Embedded, "aws-sns").await;
    let cert = format!("{}/c.pem", base(&sink));
    let good = json!({"Type": "Notification", "MessageId": "m", "TopicArn": TOPIC,
        "Message": "x", "Timestamp": rfc3339(now()), "SignatureVersion": "2",
        "Signature": "AAAA", "SigningCertURL": cert});
    let with = |key: &str, value: Value| {
        let mut msg = good.as_object().unwrap().clone();
        msg.insert(key.into(), value);
        Value::Object(msg).to_string()
    };
    let bodies = [
        String::new(),
        "not json".into(),
        "[]".into(),
        "null".into(),
        with("Signature", json!("***")),
        with("Signature", json!(7)),
        with("SignatureVersion", json!("3")),
        with("SigningCertURL", json!("")),
        with("SigningCertURL", json!(["x"])),
        with("Timestamp", json!("yesterday")),
        with("Type", json!("SomethingElse")),
        with("TopicArn", json!(null)),
        with("Message", json!({"nested": true})),
    ];
    for body in bodies {
        let w = Webhook {
            path: "/webhooks/aws-sns/acme".into(),
            headers: Vec::new(),
            body: body.clone().into_bytes(),
        };
        let (status, code) = status_and_code(&app, &w).await;
        assert_eq!(status, 401, "{body}: {code}");
    }
    let headers = |drop: &str, replace: (&str, &str)| {
        let mut h: Vec<(String, String)> = [
            ("PAYPAL-AUTH-ALGO", "SHA256withRSA"),
            ("PAYPAL-CERT-URL", cert.as_str()),
            ("PAYPAL-TRANSMISSION-ID", "69cd13f0"),
            ("PAYPAL-TRANSMISSION-TIME", "2023-11-14T22:13:18Z"),
            ("PAYPAL-TRANSMISSION-SIG", "AAAA"),
        ]
        .into_iter()
        .filter(|(k, _)| *k != drop)
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        for (k, v) in &mut h {
            if k == replace.0 {
                *v = replace.1.to_owned();
            }
        }
        h
    };
    for (drop, replace) in [
        ("PAYPAL-TRANSMISSION-SIG", ("", "")),
        ("PAYPAL-CERT-URL", ("", "")),
        ("PAYPAL-TRANSMISSION-TIME", ("", "")),
        ("", ("PAYPAL-AUTH-ALGO", "SHA1withRSA")),
        ("", ("PAYPAL-TRANSMISSION-SIG", "not base64!")),
        ("", ("PAYPAL-TRANSMISSION-TIME", "tomorrow")),
        ("", ("PAYPAL-CERT-URL", "ftp://localhost/c")),
    ] {
        let w = Webhook {
            path: "/webhooks/paypal/acme".into(),
            headers: headers(drop, replace),
            body: b"{}".to_vec(),
        };
        let (status, code) = status_and_code(&app, &w).await;
        assert_eq!(status, 401, "{drop} {replace:?}: {code}");
    }
    assert!(sink.received().is_empty(), "{:?}", fetches(&sink, "/"));
}

/// What an operator can get wrong is a configuration error naming the key:
/// a secret that is no topic ARN, `fetch_hosts` that allow too much or on a
/// kind that fetches nothing.
#[test]
fn check_config_names_what_is_wrong() {
    let problems = |provider: &str| {
        let text = format!("[store]\nkind = \"embedded\"\n{provider}");
        match hookline::config::from_toml_str("t.toml", &text) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    let err = problems(
        "[providers.sns]\nkind = \"aws-sns\"\n[providers.sns.tenants.t]\nsecrets = [\"orders\"]\n",
    );
    assert!(err.contains("providers.sns.tenants.t.secrets[0]"), "{err}");
    assert!(
        err.contains("topic ARN") && !err.contains("\"orders\""),
        "{err}"
    );
    let err = problems(&format!("[providers.sns]\nkind = \"aws-sns\"\nfetch_hosts = [\"*.com\"]\n[providers.sns.tenants.t]\nsecrets = [\"{TOPIC}\"]\n"));
    assert!(err.contains("providers.sns.fetch_hosts"), "{err}");
    let err = problems("[providers.gh]\nkind = \"github\"\nfetch_hosts = [\"localhost\"]\n[providers.gh.tenants.t]\nsecrets = [\"s\"]\n");
    assert!(
        err.contains("providers.gh.fetch_hosts") && err.contains("fetches nothing"),
        "{err}"
    );
    let ok = problems(&format!("[providers.pp]\nkind = \"paypal\"\n[providers.pp.tenants.t]\nsecrets = [\"{WEBHOOK_ID}\"]\n"));
    assert_eq!(ok, "");
}
