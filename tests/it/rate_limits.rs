//! Issue 9, item 10: ingest rate limits per provider+tenant, on every
//! backend. Past the burst, a tenant is answered 429 + `Retry-After` before
//! its body is read; another tenant of the same provider is unaffected;
//! the bucket refills.

use crate::common;

use std::time::Duration;

use common::raw::{read_response, send_partial};
use common::{spawn_app_with, AppOptions, Backend, Webhook};

async fn a_noisy_tenant_is_limited_and_the_others_are_not(backend: Backend) {
    let mut opts = AppOptions::new(backend);
    // Two at once, then one every two seconds: slow enough that no token
    // comes back while the test sends its burst, even on a busy machine.
    opts.provider_extra = "rate_limit = \"30/m\"\nrate_burst = 2\n".into();
    let app = spawn_app_with(opts).await;
    let event = |tenant: &str, n: u32| {
        Webhook::new(
            "stripe",
            tenant,
            &format!("evt_{tenant}_{n}"),
            "charge.succeeded",
            "x",
        )
    };
    for n in 0..2 {
        let (status, body) = app.send_json(&event("acme", n)).await;
        assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    }
    // Over the burst: refused from the head alone, its body never sent.
    let mut over = send_partial(
        app.port,
        "POST",
        "/webhooks/stripe/acme",
        &[("Content-Length", "5000".to_owned())],
        b"",
    )
    .await;
    let res = read_response(&mut over, Duration::from_secs(1))
        .await
        .expect("answered before the body");
    assert_eq!(res.status, 429, "{res:?}");
    assert_eq!(res.status_line, "HTTP/1.1 429 Too Many Requests");
    assert_eq!(res.json()["code"], "rate_limited");
    let retry_after: u64 = res.header("Retry-After").unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry_after), "{retry_after}");
    let res = app.send(&event("acme", 2)).await;
    assert_eq!(res.status(), 429);

    // Another tenant of the same provider has a bucket of its own.
    for n in 0..2 {
        assert_eq!(app.send_json(&event("globex", n)).await.0, 200);
    }
    // And acme's refills.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (status, body) = app.send_json(&event("acme", 3)).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));

    assert_eq!(
        app.metric("hookline_requests_refused_total{reason=\"rate_limited\"}")
            .await,
        2.0
    );
    assert_eq!(
        app.metric(
            "hookline_requests_total{outcome=\"rate_limited\",provider=\"stripe\",tenant=\"acme\"}"
        )
        .await,
        2.0
    );
    assert_eq!(app.inventory().await.dedup_keys, 5, "refused left no state");
}

backend_tests!(a_noisy_tenant_is_limited_and_the_others_are_not);
