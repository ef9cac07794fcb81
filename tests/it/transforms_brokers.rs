//! A broker destination takes a handler's filter and transform the same
//! way an HTTP handler does (issue 27): RabbitMQ gets only the events the
//! filter passes, with the transformed body, signed over it, under the
//! event's `webhook-id`.

use crate::common;

use std::time::Duration;

use common::brokers::rabbitmq::RabbitQueue;
use common::brokers::{amqp_url, test_name};
use common::{Backend, Webhook, HANDLER_SECRET};
use hookline::delivery::outgoing::webhook_id;

use crate::brokers::app;

async fn a_broker_gets_the_filtered_and_transformed_message(backend: Backend) {
    let name = test_name();
    let queue = RabbitQueue::create(&amqp_url(), &name, true).await;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("slim.js");
    std::fs::write(
        &script,
        "addHandler(\"transform\", (request, context) => {\n  request.body = { id: request.body.id, type: request.body.type };\n  return request;\n});\n",
    )
    .unwrap();
    let config = format!(
        "[handlers.to_rabbitmq]\nkind = \"rabbitmq\"\nurl = \"{}\"\nexchange = \"{name}\"\nrouting_key = \"{{provider}}.{{event_type}}\"\n\
         events = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"3s\"\n\
         filter = '{{\"body\": {{\"type\": {{\"$endsWith\": \".succeeded\"}}}}}}'\ntransform = \"{}\"\n",
        amqp_url(),
        script.display()
    );
    let app = app(backend, config).await;
    let refused = Webhook::new("stripe", "acme", "evt_rb_no", "charge.failed", "a");
    let passed = Webhook::new("stripe", "acme", "evt_rb_yes", "charge.succeeded", "b");
    assert_eq!(app.send_json(&refused).await.1["status"], "accepted");
    assert_eq!(app.send_json(&passed).await.1["status"], "accepted");

    let got = queue.wait_for(1, Duration::from_secs(20)).await;
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"id": "evt_rb_yes", "type": "charge.succeeded"})
    );
    let id = webhook_id("stripe", "acme", "evt_rb_yes", "to_rabbitmq");
    assert_eq!(got[0].header("webhook-id").as_deref(), Some(id.as_str()));
    let ts: i64 = got[0].header("webhook-timestamp").unwrap().parse().unwrap();
    let key = hookline::provider::decode_signing_secret(HANDLER_SECRET).unwrap();
    assert_eq!(
        got[0].header("webhook-signature"),
        Some(hookline::provider::standard_webhooks_signature(
            &key,
            &id,
            ts,
            &got[0].body
        ))
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        queue.take_all().await.is_empty(),
        "the refused event was published"
    );
    assert_eq!(
        app.metric(r#"hookline_filtered_total{handler="to_rabbitmq"}"#)
            .await,
        1.0
    );
}

backend_tests!(a_broker_gets_the_filtered_and_transformed_message);
