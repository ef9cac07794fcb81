//! Broker destinations when the broker does not take the message, on every
//! backend: an unroutable RabbitMQ message, a NATS subject no stream takes
//! and an MQTT topic nobody subscribes to are failed attempts (retried,
//! then dead-lettered, then replayed from the CLI once the broker takes
//! them); `ack = "handlers"` answers the provider only after the broker's
//! confirm; a broker that is down opens the handler's circuit while
//! hookline starts and serves.

use crate::brokers::{app, wait_attempts, FAST};
use crate::common;

use std::time::Duration;

use common::brokers::rabbitmq::RabbitQueue;
use common::brokers::{
    amqp_url, eventually, mqtt_url, nats_url, test_name, MqttSubscriber, NatsStream,
};
use common::procs::free_port;
use common::{spawn_app_with, AppOptions, Backend, Webhook};
use hookline::store::delivery::DeliveryState;

async fn a_message_the_broker_does_not_take_is_a_failed_attempt(backend: Backend) {
    let name = test_name();
    // The queue exists but is not bound: every publish is returned.
    let rabbit = RabbitQueue::create(&amqp_url(), &name, false).await;
    let handlers = format!(
        "[handlers.unroutable]\nkind = \"rabbitmq\"\nurl = \"{}\"\nexchange = \"{name}\"\nrouting_key = \"{{event_type}}\"\nevents = [\"stripe:*\"]\nmax_attempts = 2\ntimeout = \"3s\"\n\n\
         [handlers.streamless]\nkind = \"nats\"\nurl = \"{}\"\nsubject = \"{name}.{{event_type}}\"\nevents = [\"stripe:*\"]\nmax_attempts = 2\ntimeout = \"3s\"\n\n\
         [handlers.unheard]\nkind = \"mqtt\"\nurl = \"{}\"\ntopic = \"{name}/{{event_type}}\"\nevents = [\"stripe:*\"]\nmax_attempts = 2\ntimeout = \"3s\"\n",
        amqp_url(),
        nats_url(),
        mqtt_url()
    );
    let app = app(backend, handlers).await;
    let w = Webhook::new("stripe", "acme", "evt_nowhere", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    for (handler, reason) in [
        ("unroutable", "returned unroutable"),
        ("streamless", "no JetStream stream takes this subject"),
        ("unheard", "no subscriber matches it"),
    ] {
        let attempts = wait_attempts(&app, "evt_nowhere", handler, DeliveryState::Dead, 2).await;
        for a in &attempts {
            let error = a.error.as_deref().unwrap_or("");
            assert!(error.contains(reason), "{handler}: {attempts:?}");
        }
    }

    // The broker is set up to take them; the operator replays the dead
    // letters from the CLI.
    rabbit.bind().await;
    let stream = NatsStream::create(&nats_url(), &name).await;
    let subscriber = MqttSubscriber::start(&mqtt_url(), &format!("{name}/#")).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["dead-letters", "replay", "--all", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "requeued 3 dead letters",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for handler in ["unroutable", "streamless", "unheard"] {
        wait_attempts(&app, "evt_nowhere", handler, DeliveryState::Delivered, 3).await;
    }
    let q = rabbit.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(q[0].body, w.body);
    assert_eq!(stream.wait_for(1, Duration::from_secs(10)).await.len(), 1);
    assert_eq!(
        subscriber.wait_for(1, Duration::from_secs(10)).await[0].payload,
        w.body
    );
}

async fn ack_handlers_answers_only_after_the_broker_confirms(backend: Backend) {
    let name = test_name();
    let rabbit = RabbitQueue::create(&amqp_url(), &name, false).await;
    let mut opts = AppOptions::new(backend);
    opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"1s\"\n".into();
    opts.extra = format!(
        "[handlers.audit]\nkind = \"rabbitmq\"\nurl = \"{}\"\nexchange = \"{name}\"\nrouting_key = \"{{provider}}.{{event_type}}\"\nevents = [\"stripe:*\"]\nmax_attempts = 1000\ntimeout = \"2s\"\n\n{}\ncircuit_failures = 100000\n",
        amqp_url(),
        FAST
    );
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_ack_brk", "charge.succeeded", "x");
    // Unroutable: never confirmed as delivered, so the provider is told to
    // retry, and nothing is recorded as accepted.
    let res = app.send(&w).await;
    assert_eq!(res.status(), 503);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "not_acknowledged");
    assert!(rabbit.take_all().await.is_empty());
    // Routable now: the provider's retry is accepted once RabbitMQ confirms.
    rabbit.bind().await;
    let (status, body) = app.send_json(&w).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("accepted")),
        "{body}"
    );
    let q = rabbit.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(q[0].body, w.body);
}

async fn a_broker_that_is_down_opens_the_circuit_while_hookline_serves(backend: Backend) {
    // Nothing listens on these ports.
    let handlers: String = [
        ("nats", format!("nats://127.0.0.1:{}", free_port()), "subject = \"down.{event_type}\""),
        (
            "rabbitmq",
            format!("amqp://guest:guest@127.0.0.1:{}/%2f", free_port()),
            "exchange = \"down\"\nrouting_key = \"{event_type}\"",
        ),
        (
            "redis-stream",
            format!("redis://127.0.0.1:{}/0", free_port()),
            "stream = \"down:{provider}\"",
        ),
        ("mqtt", format!("mqtt://127.0.0.1:{}", free_port()), "topic = \"down/{event_type}\""),
    ]
    .iter()
    .map(|(kind, url, keys)| {
        format!(
            "[handlers.down_{}]\nkind = \"{kind}\"\nurl = \"{url}\"\n{keys}\nevents = [\"stripe:*\"]\ntimeout = \"1s\"\nmax_attempts = 100\n\n",
            kind.replace('-', "_")
        )
    })
    .collect();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("{handlers}\n{FAST}circuit_failures = 2\ncircuit_cooldown = \"60s\"\n");
    let app = spawn_app_with(opts).await;
    let ready = app
        .client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(
        ready.status(),
        200,
        "hookline serves while every broker is down"
    );
    let w = Webhook::new("stripe", "acme", "evt_down", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    for h in [
        "down_nats",
        "down_rabbitmq",
        "down_redis_stream",
        "down_mqtt",
    ] {
        let series = format!("hookline_circuit_open{{handler=\"{h}\"}}");
        eventually(Duration::from_secs(20), &series, || async {
            (app.metric(&series).await == 1.0).then_some(())
        })
        .await;
        // Still waiting, not dead: the delivery goes on once the broker is
        // back. The attempt that opened the circuit is written a moment
        // after (outcomes wait briefly to share a statement).
        let d = eventually(Duration::from_secs(5), h, || async {
            let d = crate::brokers::delivery(&app, "evt_down", h).await.unwrap();
            (d.attempts >= 2).then_some(d)
        })
        .await;
        assert_eq!(d.state, DeliveryState::Pending, "{h}: {d:?}");
        assert!(d.attempts >= 2, "{h}: {d:?}");
        assert!(
            d.last_error.as_deref().unwrap_or("").contains("connect"),
            "{h}: {d:?}"
        );
    }
}

backend_tests!(
    a_message_the_broker_does_not_take_is_a_failed_attempt,
    ack_handlers_answers_only_after_the_broker_confirms,
    a_broker_that_is_down_opens_the_circuit_while_hookline_serves,
);
