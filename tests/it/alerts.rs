//! Alerts through the real binary: two hookline nodes over one store (a
//! receiver and a workers node), a handler that is slow to accept, and a
//! real local receiver for the alerts. One episode of a backlog is exactly
//! one alert and one resolve, whichever node saw it first.

use std::time::Duration;

use crate::common::procs::{config, free_port, logs, post, serve, wait_ready};
use crate::common::sink::{Reply, Sink};
use crate::common::{Backend, Webhook};

async fn one_backlog_episode_is_one_alert_and_one_resolve_across_two_nodes(backend: Backend) {
    // Two refusals asking for a retry two seconds later, then 200: the
    // delivery stays pending for about four seconds.
    let handler = Sink::start(vec![Reply::RetryAfter(503, 2), Reply::RetryAfter(503, 2)]);
    let receiver = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[delivery]\npoll_interval = \"50ms\"\n\n[alerts]\nurl = \"{}\"\nbacklog_age = \"1s\"\nevery = \"1m\"\ncheck_interval = \"200ms\"\n",
        receiver.url
    );
    let (config, _db, _keys) = config(backend, dir.path(), &handler, &extra).await;
    let port = free_port();
    let _receiving = serve(&config, "receiver", port);
    wait_ready(port).await;
    let _working = serve(&config, "workers", 0);

    let w = Webhook::new("stripe", "acme", "evt_backlog", "charge.succeeded", "b");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");

    receiver.wait_for(2, Duration::from_secs(30)).await;
    handler.wait_for(3, Duration::from_secs(5)).await;
    // Both nodes keep checking: nothing more may come.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let alerts: Vec<serde_json::Value> = receiver
        .received()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(alerts.len(), 2, "{alerts:#?}\n{}", logs(&config));
    let (firing, resolved) = (&alerts[0], &alerts[1]);
    assert_eq!(firing["state"], "firing", "{firing}");
    assert_eq!(firing["rule"], "backlog_age");
    assert_eq!(firing["handler"], "billing");
    assert_eq!(firing["threshold"], 1);
    assert!(firing["value"].as_u64().unwrap() >= 1, "{firing}");
    assert!(
        firing["text"].as_str().unwrap().contains("billing"),
        "Slack's text names the handler: {firing}"
    );
    assert_eq!(resolved["state"], "resolved", "{resolved}");
    assert_eq!(resolved["rule"], "backlog_age");
    assert_eq!(resolved["handler"], "billing");
    assert_eq!(
        receiver.received()[0].header("content-type"),
        Some("application/json")
    );

    // A second episode within `every` of the alert: debounced, so neither
    // an alert nor a resolve.
    handler.always(Reply::RetryAfter(503, 2));
    let again = Webhook::new("stripe", "acme", "evt_backlog_2", "charge.succeeded", "c");
    assert_eq!(post(port, &again).await.0, 200);
    tokio::time::sleep(Duration::from_secs(3)).await;
    handler.always(Reply::Status(200));
    handler.wait_for(5, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(receiver.received().len(), 2, "{}", logs(&config));
}

async fn dead_letters_alert_once_retried_then_resolve_when_none_are_added(backend: Backend) {
    // Every delivery is refused for good (dead-lettered at once); the alert
    // receiver fails the first POST, so the alert is retried.
    let handler = Sink::start(Vec::new());
    handler.always(Reply::Status(400));
    let receiver = Sink::start(vec![Reply::Status(500)]);
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[delivery]\npoll_interval = \"50ms\"\n\n[alerts]\nurl = \"{}\"\ndead_letters = 1\nevery = \"3s\"\ncheck_interval = \"100ms\"\n",
        receiver.url
    );
    let (config, _db, _keys) = config(backend, dir.path(), &handler, &extra).await;
    let port = free_port();
    let _node = serve(&config, "all", port);
    wait_ready(port).await;

    let w = Webhook::new("stripe", "acme", "evt_dead_alert", "charge.succeeded", "d");
    assert_eq!(post(port, &w).await.0, 200);
    // The refused POST, its retry, then the resolve once `every` passed
    // with no dead letter added.
    let got = receiver.wait_for(3, Duration::from_secs(30)).await;
    let bodies: Vec<serde_json::Value> = got
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(bodies[0], bodies[1], "the retry sends the same alert");
    assert_eq!(bodies[0]["rule"], "dead_letters");
    assert_eq!(bodies[0]["state"], "firing");
    assert_eq!(bodies[0]["value"], 1);
    assert_eq!(bodies[0]["threshold"], 1);
    assert!(
        got[1].at.duration_since(got[0].at) >= Duration::from_millis(900),
        "retried after a backoff"
    );
    assert_eq!(bodies[2]["state"], "resolved", "{}", bodies[2]);
    assert_eq!(
        crate::common::procs::metric(
            port,
            "hookline_alerts_total{outcome=\"sent\",rule=\"dead_letters\",state=\"firing\"}"
        )
        .await,
        1.0
    );
}

async fn a_circuit_open_too_long_alerts_and_resolves_when_it_closes(backend: Backend) {
    let handler = Sink::start(Vec::new());
    handler.always(Reply::Status(503));
    let receiver = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"40ms\"\ncircuit_cooldown = \"300ms\"\n\n[alerts]\nurl = \"{}\"\ncircuit_open = \"500ms\"\ncheck_interval = \"100ms\"\n",
        receiver.url
    );
    let (config, _db, _keys) = config(backend, dir.path(), &handler, &extra).await;
    let port = free_port();
    let _node = serve(&config, "all", port);
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_circuit", "charge.succeeded", "c");
    assert_eq!(post(port, &w).await.0, 200);

    let firing = receiver.wait_for(1, Duration::from_secs(20)).await;
    let firing: serde_json::Value = serde_json::from_slice(&firing[0].body).unwrap();
    assert_eq!(firing["rule"], "circuit_open", "{firing}");
    assert_eq!(firing["state"], "firing");
    assert_eq!(firing["handler"], "billing");
    // The handler recovers: the next probe closes the circuit.
    handler.always(Reply::Status(200));
    let got = receiver.wait_for(2, Duration::from_secs(20)).await;
    let resolved: serde_json::Value = serde_json::from_slice(&got[1].body).unwrap();
    assert_eq!(resolved["rule"], "circuit_open", "{resolved}");
    assert_eq!(resolved["state"], "resolved");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), 2, "{}", logs(&config));
}

backend_tests!(
    a_circuit_open_too_long_alerts_and_resolves_when_it_closes,
    one_backlog_episode_is_one_alert_and_one_resolve_across_two_nodes,
    dead_letters_alert_once_retried_then_resolve_when_none_are_added,
);

// The same rules over deliveries waiting in Redis Streams (their backlog
// read from the streams, their dead letters from PostgreSQL).
stream_tests!(
    a_circuit_open_too_long_alerts_and_resolves_when_it_closes,
    one_backlog_episode_is_one_alert_and_one_resolve_across_two_nodes,
    dead_letters_alert_once_retried_then_resolve_when_none_are_added,
);
