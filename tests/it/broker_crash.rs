//! `kill -9` of hookline while it publishes to the four brokers, on every
//! backend: after a restart every event answered 2xx is at every broker
//! at least once, every copy with the same `webhook-id`; JetStream and the
//! Redis Stream hold it exactly once.

use crate::brokers::{broker_handlers, objects, FAST};
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::brokers::{nats_header, stream_entries, test_name};
use common::procs::{config_with, free_port, serve, try_post, wait_ready};
use common::sink::Sink;
use common::{AppOptions, Backend, Webhook};
use hookline::delivery::outgoing::webhook_id;

async fn killed_mid_publish_every_acceptance_reaches_every_broker(backend: Backend) {
    let name = test_name();
    let brokers = objects(&name).await;
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(vec![]);
    let (config, _db, _keys) = config_with(
        AppOptions::new(backend),
        dir.path(),
        &sink,
        &format!("{}\n{FAST}", broker_handlers(&name, "")),
    )
    .await;
    let port = free_port();
    let node = serve(&config, "all", port);
    wait_ready(port).await;

    // Post events until the process dies under the poster.
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let poster = {
        let (stop, answered) = (stop.clone(), answered.clone());
        tokio::spawn(async move {
            let mut accepted = Vec::new();
            for i in 0.. {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let id = format!("evt_k{i}");
                let w = Webhook::new("stripe", "acme", &id, "charge.succeeded", &id);
                match try_post(port, &w).await {
                    Some((200, _)) => {
                        accepted.push(id);
                        answered.fetch_add(1, Ordering::SeqCst);
                    }
                    Some((status, body)) => panic!("{id}: {status} {body}"),
                    None => break,
                }
            }
            accepted
        })
    };
    // Kill once publishing is well under way: ten events at a broker and
    // ten answers back (a hand-off can publish an event before its 200
    // reaches the poster, so the one does not imply the other).
    brokers.nats.wait_for(10, Duration::from_secs(60)).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while answered.load(Ordering::SeqCst) < 10 {
        assert!(
            std::time::Instant::now() < deadline,
            "ten answers never came"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    node.kill9();
    stop.store(true, Ordering::SeqCst);
    let accepted = poster.await.unwrap();
    assert!(accepted.len() >= 10, "{accepted:?}");

    let port = free_port();
    let _restarted = serve(&config, "all", port);
    wait_ready(port).await;

    // Gather what every broker holds until each has every acceptance.
    let stream = format!("{name}:stripe");
    let mut rabbit = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let seen = loop {
        rabbit.extend(brokers.rabbit.take_all().await);
        let seen = copies(
            &brokers.nats.messages().await,
            &rabbit,
            &brokers.mqtt.received(),
            &stream_entries(&stream),
        );
        let missing: Vec<String> = ["to_nats", "to_rabbitmq", "to_redis", "to_mqtt"]
            .iter()
            .flat_map(|h| {
                accepted
                    .iter()
                    .filter(|id| !seen.get(*h).is_some_and(|e| e.contains_key(*id)))
                    .map(move |id| format!("{h}: {id}"))
            })
            .collect();
        if missing.is_empty() {
            break seen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "answered 2xx, never published: {missing:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for (handler, events) in &seen {
        for id in &accepted {
            let copies = events
                .get(id)
                .unwrap_or_else(|| panic!("{handler}: {id} answered 2xx, never published"));
            let expected = webhook_id("stripe", "acme", id, handler);
            assert!(
                copies.iter().all(|c| *c == expected),
                "{handler} {id}: {copies:?}"
            );
            if matches!(*handler, "to_nats" | "to_redis") {
                assert_eq!(copies.len(), 1, "{handler} deduplicates {id}: {copies:?}");
            }
        }
    }
    let handlers: BTreeSet<_> = seen.keys().copied().collect();
    assert_eq!(
        handlers,
        ["to_mqtt", "to_nats", "to_rabbitmq", "to_redis"].into()
    );
}

/// Per handler: event id -> the `webhook-id` of each copy its broker holds.
type Copies = BTreeMap<&'static str, BTreeMap<String, Vec<String>>>;

fn copies(
    nats: &[async_nats::jetstream::message::StreamMessage],
    rabbit: &[common::brokers::rabbitmq::AmqpMessage],
    mqtt: &[common::brokers::MqttMessage],
    redis: &[common::brokers::StreamEntry],
) -> Copies {
    let mut seen = Copies::new();
    let mut add = |h: &'static str, event: Option<String>, id: Option<String>| {
        seen.entry(h)
            .or_default()
            .entry(event.unwrap_or_default())
            .or_default()
            .push(id.unwrap_or_default());
    };
    for m in nats {
        let h = |n| nats_header(m, n).map(String::from);
        add("to_nats", h("hookline-event-id"), h("webhook-id"));
    }
    for m in rabbit {
        add(
            "to_rabbitmq",
            m.header("hookline-event-id"),
            m.header("webhook-id"),
        );
    }
    for m in mqtt {
        let p = |n| m.property(n).map(String::from);
        add("to_mqtt", p("hookline-event-id"), p("webhook-id"));
    }
    for (_, fields) in redis {
        let f = |k: &str| {
            fields
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        };
        add("to_redis", f("hookline-event-id"), f("webhook-id"));
    }
    seen
}

backend_tests!(killed_mid_publish_every_acceptance_reaches_every_broker);
