//! What operators see of deliveries and what they do about them, on every
//! backend: the admin API and `/metrics` (listing, redriving a dead letter),
//! the API off without a token, and the `dead-letters` CLI.

use crate::common;
use crate::delivery::{app_with, handler, wait_state};

use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{Backend, Webhook};
use hookline::store::delivery::DeliveryState;

const ADMIN_TOKEN: &str = "admin-token-for-tests-0123456789";

async fn operators_see_and_redrive_through_admin_api_and_metrics(backend: Backend) {
    let sink = Sink::start(vec![Reply::Status(400)]);
    let app = app_with(
        backend,
        format!(
            "{}\n[admin]\ntoken = \"{ADMIN_TOKEN}\"\n",
            handler("billing", &sink, "")
        ),
    )
    .await;
    let w = Webhook::new("stripe", "acme", "evt_ops", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let dead = wait_state(&app, "evt_ops", "billing", DeliveryState::Dead).await;
    let get = |path: &str, token: Option<&str>| {
        let mut req = app.client.get(format!("{}{path}", app.address));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send()
    };
    let post = |path: &str| {
        app.client
            .post(format!("{}{path}", app.address))
            .bearer_auth(ADMIN_TOKEN)
            .send()
    };
    assert_eq!(
        get("/admin/dead-letters", None).await.unwrap().status(),
        401
    );
    assert_eq!(
        get("/admin/dead-letters", Some("wrong-token-wrong-token"))
            .await
            .unwrap()
            .status(),
        401
    );
    let list: serde_json::Value = get("/admin/dead-letters?handler=billing", Some(ADMIN_TOKEN))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["dead_letters"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["dead_letters"][0]["event_id"], "evt_ops");
    let event: serde_json::Value = get("/admin/events/stripe/acme/evt_ops", Some(ADMIN_TOKEN))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        event["processed_event"]["event_type"], "charge.succeeded",
        "{event}"
    );
    assert_eq!(
        event["deliveries"][0]["attempts"][0]["status"], 400,
        "{event}"
    );
    // The report also says when the row was written, what the dedup record
    // holds and that nothing was quarantined.
    assert!(
        event["processed_event"]["received_at"].is_string(),
        "{event}"
    );
    assert_eq!(event["dedup"]["state"], "completed", "{event}");
    assert_eq!(event["quarantined"], serde_json::json!([]), "{event}");
    assert_eq!(
        get("/admin/events/stripe/acme/nope", Some(ADMIN_TOKEN))
            .await
            .unwrap()
            .status(),
        404
    );

    // /metrics counts what happened.
    let metrics = app.metrics_text().await;
    for line in [
        "hookline_requests_total{outcome=\"accepted\",provider=\"stripe\",tenant=\"acme\"} 1",
        "hookline_dedup_total{outcome=\"claimed\",provider=\"stripe\"} 1",
        "hookline_delivery_attempts_total{handler=\"billing\",outcome=\"dead\"} 1",
        "hookline_dead_letters 1",
        "hookline_delivery_attempt_seconds_count{handler=\"billing\"} 1",
    ] {
        assert!(metrics.contains(line), "missing {line} in\n{metrics}");
    }

    // Replay the dead letter by id: delivered.
    let res = post(&format!("/admin/dead-letters/{}/replay", dead.id))
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    wait_state(&app, "evt_ops", "billing", DeliveryState::Delivered).await;
    // Re-deliver the event to the handler: called again, same webhook-id.
    let res = post("/admin/events/stripe/acme/evt_ops/redeliver?handler=billing")
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let got = sink.wait_for(3, Duration::from_secs(5)).await;
    assert_eq!(got[2].header("webhook-id"), got[0].header("webhook-id"));
}

async fn admin_api_is_off_without_a_token(backend: Backend) {
    let app = common::spawn_app(backend).await;
    let res = app
        .client
        .get(format!("{}/admin/dead-letters", app.address))
        .bearer_auth("x")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
}

async fn dead_letters_cli_lists_and_replays(backend: Backend) {
    let sink = Sink::start(vec![Reply::Status(410), Reply::Status(410)]);
    let app = app_with(backend, handler("billing", &sink, "")).await;
    for id in ["evt_cli_1", "evt_cli_2"] {
        assert_eq!(
            app.send_json(&Webhook::new("stripe", "acme", id, "charge.succeeded", "x"))
                .await
                .0,
            200
        );
        wait_state(&app, id, "billing", DeliveryState::Dead).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(args)
            .args(["--config", config.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let out = run(&["dead-letters", "list", "--handler", "billing"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    // Replaying everything needs saying so.
    assert_eq!(run(&["dead-letters", "replay"]).status.code(), Some(2));
    let out = run(&["dead-letters", "replay", "--event-id", "evt_cli_1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "requeued 1 dead letter"
    );
    wait_state(&app, "evt_cli_1", "billing", DeliveryState::Delivered).await;
    let out = run(&["dead-letters", "replay", "--all"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "requeued 1 dead letter"
    );
    wait_state(&app, "evt_cli_2", "billing", DeliveryState::Delivered).await;
    let show = run(&["events", "show", "stripe", "acme", "evt_cli_2"]);
    let shown: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let attempts: Vec<_> = shown["deliveries"][0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].clone())
        .collect();
    assert_eq!(attempts, [serde_json::json!(410), serde_json::json!(200)]);
    assert_eq!(shown["dedup"]["state"], "completed", "{shown}");
    assert!(
        shown["processed_event"]["received_at"].is_string(),
        "{shown}"
    );
    assert_eq!(
        run(&["events", "show", "stripe", "acme", "nope"])
            .status
            .code(),
        Some(1)
    );
}

backend_tests!(
    operators_see_and_redrive_through_admin_api_and_metrics,
    admin_api_is_off_without_a_token,
    dead_letters_cli_lists_and_replays,
);
