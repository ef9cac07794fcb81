//! Broker destinations end to end through `serve`, on every backend,
//! against the real local brokers: NATS JetStream, RabbitMQ, Redis Streams
//! and MQTT each get the accepted bytes with the delivery's headers, only
//! a broker's acknowledgement delivers, and a redelivery is one message
//! where the broker deduplicates (JetStream, the Redis Stream) and the same
//! `webhook-id` where it does not (RabbitMQ, MQTT).

use crate::common;

use std::time::Duration;

use common::brokers::rabbitmq::RabbitQueue;
use common::brokers::{
    amqp_url, mqtt_url, nats_header, nats_url, stream_entries, test_name, MqttSubscriber,
    NatsStream, RedisPrefix,
};
use common::{
    handler_signature, redis_url, spawn_app_with, AppOptions, Backend, TestApp, Webhook,
    HANDLER_SECRET,
};
use hookline::delivery::outgoing::webhook_id;
use hookline::store::delivery::{AttemptView, DeliveryState, DeliveryView};

pub const ADMIN_TOKEN: &str = "admin-token-for-broker-tests-0123";

/// Fast retries for tests.
pub const FAST: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"300ms\"\nlease = \"10s\"\n";

/// One handler of each broker kind for test `name`, taking `stripe:*`.
pub fn broker_handlers(name: &str, extra: &str) -> String {
    let common = format!(
        "events = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"3s\"\nmax_attempts = 20\n{extra}\n"
    );
    format!(
        "[handlers.to_nats]\nkind = \"nats\"\nurl = \"{}\"\nsubject = \"{name}.{{provider}}.{{event_type}}\"\n{common}\n\
         [handlers.to_rabbitmq]\nkind = \"rabbitmq\"\nurl = \"{}\"\nexchange = \"{name}\"\nrouting_key = \"{{provider}}.{{event_type}}\"\n{common}\n\
         [handlers.to_redis]\nkind = \"redis-stream\"\nurl = \"{}\"\nstream = \"{name}:{{provider}}\"\nmaxlen = 1000\n{common}\n\
         [handlers.to_mqtt]\nkind = \"mqtt\"\nurl = \"{}\"\ntopic = \"{name}/{{provider}}/{{event_type}}\"\n{common}\n",
        nats_url(),
        amqp_url(),
        redis_url(),
        mqtt_url(),
    )
}

/// The four brokers' objects for test `name`, removed when dropped.
pub struct Objects {
    pub nats: NatsStream,
    pub rabbit: RabbitQueue,
    pub mqtt: MqttSubscriber,
    pub _redis: RedisPrefix,
}

pub async fn objects(name: &str) -> Objects {
    Objects {
        nats: NatsStream::create(&nats_url(), name).await,
        rabbit: RabbitQueue::create(&amqp_url(), name, true).await,
        mqtt: MqttSubscriber::start(&mqtt_url(), &format!("{name}/#")).await,
        _redis: RedisPrefix(name.to_owned()),
    }
}

pub async fn app(backend: Backend, config: String) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("{config}\n{FAST}\n[admin]\ntoken = \"{ADMIN_TOKEN}\"\n");
    spawn_app_with(opts).await
}

pub async fn delivery(app: &TestApp, event_id: &str, handler: &str) -> Option<DeliveryView> {
    app.deliveries(event_id)
        .await
        .into_iter()
        .find(|d| d.handler == handler)
}

/// Wait until the delivery of `event_id` to `handler` is in `state` with
/// at least `attempts` attempts; its attempts.
pub async fn wait_attempts(
    app: &TestApp,
    event_id: &str,
    handler: &str,
    state: DeliveryState,
    attempts: usize,
) -> Vec<AttemptView> {
    common::brokers::eventually(
        Duration::from_secs(20),
        &format!("{handler} {state:?} after {attempts} attempt(s)"),
        || async {
            let d = delivery(app, event_id, handler).await?;
            if d.state != state {
                return None;
            }
            let all = app.store.records().attempts(d.id).await.unwrap();
            (all.len() >= attempts).then_some(all)
        },
    )
    .await
}

async fn every_broker_gets_the_bytes_and_headers_and_redelivery_is_deduplicated(backend: Backend) {
    let name = test_name();
    let objects = objects(&name).await;
    let app = app(backend, broker_handlers(&name, "")).await;
    let w = Webhook::new("stripe", "acme", "evt_brk", "payment_intent.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    let id = |h: &str| webhook_id("stripe", "acme", "evt_brk", h);

    // NATS JetStream: the subject from the template, Nats-Msg-Id.
    let m = &objects.nats.wait_for(1, Duration::from_secs(20)).await[0];
    assert_eq!(
        m.subject.as_str(),
        format!("{name}.stripe.payment_intent.succeeded")
    );
    assert_eq!(m.payload.as_ref(), w.body.as_slice(), "the accepted bytes");
    let nats_id = id("to_nats");
    assert_eq!(nats_header(m, "webhook-id"), Some(nats_id.as_str()));
    assert_eq!(nats_header(m, "Nats-Msg-Id"), Some(nats_id.as_str()));
    assert_eq!(nats_header(m, "hookline-provider"), Some("stripe"));
    assert_eq!(nats_header(m, "hookline-tenant"), Some("acme"));
    assert_eq!(nats_header(m, "hookline-event-id"), Some("evt_brk"));
    assert_eq!(
        nats_header(m, "hookline-event-type"),
        Some("payment_intent.succeeded")
    );
    assert_eq!(nats_header(m, "content-type"), Some("application/json"));
    let ts = nats_header(m, "webhook-timestamp").unwrap();
    assert_eq!(
        nats_header(m, "webhook-signature").unwrap(),
        handler_signature(&nats_id, ts, &w.body)
    );

    // RabbitMQ: message_id, persistent, headers table.
    let q = objects.rabbit.wait_for(1, Duration::from_secs(20)).await;
    let rabbit_id = id("to_rabbitmq");
    assert_eq!(q[0].body, w.body);
    let p = &q[0].properties;
    assert_eq!(
        p.message_id().as_ref().map(|s| s.as_str()),
        Some(rabbit_id.as_str())
    );
    assert_eq!(*p.delivery_mode(), Some(2), "persistent");
    assert_eq!(
        p.content_type().as_ref().map(|s| s.as_str()),
        Some("application/json")
    );
    assert_eq!(
        q[0].header("webhook-id").as_deref(),
        Some(rabbit_id.as_str())
    );
    assert_eq!(
        q[0].header("hookline-event-type").as_deref(),
        Some("payment_intent.succeeded")
    );
    let ts = q[0].header("webhook-timestamp").unwrap();
    assert_eq!(
        q[0].header("webhook-signature").unwrap(),
        handler_signature(&rabbit_id, &ts, &w.body)
    );

    // MQTT 5: the topic, user properties, the content type property.
    let got = objects.mqtt.wait_for(1, Duration::from_secs(20)).await;
    let mqtt_id = id("to_mqtt");
    assert_eq!(
        got[0].topic,
        format!("{name}/stripe/payment_intent.succeeded")
    );
    assert_eq!(got[0].payload, w.body);
    assert_eq!(got[0].content_type.as_deref(), Some("application/json"));
    assert_eq!(got[0].property("webhook-id"), Some(mqtt_id.as_str()));
    assert_eq!(got[0].property("hookline-tenant"), Some("acme"));

    // Redis Stream: the headers as fields, then the body.
    let stream = format!("{name}:stripe");
    wait_attempts(&app, "evt_brk", "to_redis", DeliveryState::Delivered, 1).await;
    let entries = stream_entries(&stream);
    assert_eq!(entries.len(), 1);
    let field = |n: &str| {
        entries[0]
            .1
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(field("body"), Some(w.body.clone()));
    assert_eq!(field("webhook-id"), Some(id("to_redis").into_bytes()));
    assert_eq!(field("hookline-provider"), Some(b"stripe".to_vec()));

    // Each attempt records what the broker acknowledged.
    for h in ["to_nats", "to_rabbitmq", "to_redis", "to_mqtt"] {
        let attempts = wait_attempts(&app, "evt_brk", h, DeliveryState::Delivered, 1).await;
        assert_eq!(attempts.len(), 1, "{h}: {attempts:?}");
        assert!(attempts[0].error.is_none(), "{h}: {attempts:?}");
    }

    // Re-deliver the event to every handler (as an operator does).
    let res = app
        .client
        .post(format!(
            "{}/admin/events/stripe/acme/evt_brk/redeliver",
            app.address
        ))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    for h in ["to_nats", "to_rabbitmq", "to_redis", "to_mqtt"] {
        wait_attempts(&app, "evt_brk", h, DeliveryState::Delivered, 2).await;
    }
    // JetStream and the Redis Stream hold it once: the second publish was
    // acknowledged as a duplicate.
    assert_eq!(objects.nats.messages().await.len(), 1);
    let a = wait_attempts(&app, "evt_brk", "to_nats", DeliveryState::Delivered, 2).await;
    assert!(
        a[1].response_body
            .as_deref()
            .unwrap_or("")
            .contains("(duplicate)"),
        "{a:?}"
    );
    assert_eq!(stream_entries(&stream).len(), 1);
    let a = wait_attempts(&app, "evt_brk", "to_redis", DeliveryState::Delivered, 2).await;
    assert!(
        a[1].response_body
            .as_deref()
            .unwrap_or("")
            .contains("(duplicate)"),
        "{a:?}"
    );
    // RabbitMQ and MQTT consumers get it again, with the same id.
    let q = objects.rabbit.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(
        q[0].properties.message_id().as_ref().map(|s| s.as_str()),
        Some(rabbit_id.as_str())
    );
    let got = objects.mqtt.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(got[1].property("webhook-id"), Some(mqtt_id.as_str()));
}

backend_tests!(every_broker_gets_the_bytes_and_headers_and_redelivery_is_deduplicated);
