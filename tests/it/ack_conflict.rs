//! Issue 9, defect 1: with `ack = "handlers"`, a claim released after the
//! acknowledgement deadline must not forget the body the handlers got. A
//! later copy of the event ID with another body is a conflict (422,
//! quarantined), never an acceptance, and `processed_event` always describes
//! the body the handlers received.

use crate::common;

use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{headers_for, now, secret, spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};
use sha2::{Digest, Sha256};

const EVENT_ID: &str = "evt_X";
use common::HANDLER_SECRET;

/// A Stripe event for `amount`, signed for stripe/acme.
fn payment(amount: u64) -> Webhook {
    let body = serde_json::to_vec(&serde_json::json!({
        "id": EVENT_ID,
        "object": "event",
        "type": "payment_intent.succeeded",
        "data": {"object": {"amount": amount, "currency": "usd"}},
    }))
    .unwrap();
    let headers = headers_for(
        "stripe",
        &secret("stripe", "acme"),
        &body,
        EVENT_ID,
        "payment_intent.succeeded",
        now(),
    );
    Webhook {
        path: "/webhooks/stripe/acme".into(),
        headers,
        body,
    }
}

/// `ack = "handlers"` with a 1 s deadline (every route is critical in the
/// suite), and one handler that answers 200 after 2 s.
async fn app(backend: Backend, sink: &Sink) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"1s\"\n".into();
    // A handler's timeout must stay below in_progress_ttl with ack = "handlers".
    opts.in_progress_ttl = "10s";
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\ntimeout = \"4s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n\n[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\nlease = \"10s\"\n",
        sink.url
    );
    spawn_app_with(opts).await
}

async fn wait_delivered(app: &TestApp) {
    for _ in 0..300 {
        let rows = app
            .store
            .records()
            .list(&DeliveryFilter {
                event_id: Some(hookline::lookup::event_id(EVENT_ID).unwrap()),
                ..Default::default()
            })
            .await
            .unwrap();
        if rows.iter().any(|d| d.state == DeliveryState::Delivered) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the handler never acknowledged {EVENT_ID}");
}

async fn a_changed_body_after_a_released_claim_is_a_conflict(backend: Backend) {
    let sink = Sink::start(vec![]);
    sink.always(Reply::Slow(Duration::from_secs(2), 200));
    let app = app(backend, &sink).await;
    let original = payment(100);
    let forged = payment(999_999);

    let (status, body) = app.send_json(&original).await;
    assert_eq!((status, &body["code"]), (503, &"not_acknowledged".into()));
    // The handler acknowledges the original body after the deadline.
    wait_delivered(&app).await;

    let (status, body) = app.send_json(&forged).await;
    assert_eq!(
        (status, &body["code"]),
        (422, &"event_id_conflict".into()),
        "a changed body under an acknowledged event ID: {body}"
    );
    assert_eq!(app.inventory().await.quarantined, 1, "the copy is kept");
    if let Some(row) = app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", EVENT_ID))
        .await
        .unwrap()
    {
        assert_eq!(row.body, original.body, "the row is the handlers' body");
    }

    // The provider retries the original: accepted, and the row holds the
    // body the handler got.
    let (status, body) = app.send_json(&original).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["status"] == "accepted" || body["status"] == "duplicate",
        "{body}"
    );
    let row = app
        .store
        .records()
        .processed_event(&common::key("stripe", "acme", EVENT_ID))
        .await
        .unwrap()
        .expect("the original is recorded");
    assert_eq!(row.body, original.body);
    assert_eq!(row.body_sha256, Sha256::digest(&original.body).to_vec());
    // The forged body stays a conflict; no handler ever received it.
    let (status, _) = app.send_json(&forged).await;
    assert_eq!(status, 422);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let got = sink.received();
    assert!(!got.is_empty());
    assert!(
        got.iter().all(|r| r.body == original.body),
        "only the original body is delivered"
    );
}

backend_tests!(a_changed_body_after_a_released_claim_is_a_conflict);
