//! The HTTP contract, black-box, on every backend.

mod common;

use common::{spawn_app, Backend, Webhook};

async fn accepts_then_duplicate(backend: Backend) {
    let app = spawn_app(backend).await;
    let w = Webhook::new("stripe", "acme", "evt_1", "payment_intent.succeeded", "a");
    let (status, body) = app.send_json(&w).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "accepted");
}

backend_tests!(accepts_then_duplicate);
