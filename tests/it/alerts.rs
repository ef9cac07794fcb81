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
}

backend_tests!(one_backlog_episode_is_one_alert_and_one_resolve_across_two_nodes);
