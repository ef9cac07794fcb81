//! A delivery's attempts are listed by time: after a dead letter is
//! replayed its attempt count starts again at 1, and the success comes last
//! in `events show`, the admin API and the console, not between the old
//! failures.

use std::process::Command;
use std::time::Duration;

use crate::common::console::{console_app, Operator, TOKEN};
use crate::common::sink::{Reply, Sink};
use crate::common::{Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};

async fn wait_for_state(app: &TestApp, event_id: &str, state: DeliveryState) {
    for _ in 0..500 {
        let rows = app
            .store
            .records()
            .list(&DeliveryFilter {
                event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
                ..Default::default()
            })
            .await
            .unwrap();
        if rows.iter().any(|d| d.state == state) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{event_id} never reached {state:?}");
}

/// (attempt, status) of the first delivery of a report, as listed.
fn attempts(report: &serde_json::Value) -> Vec<(u64, u64)> {
    report["deliveries"][0]["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| {
            (
                a["attempt"].as_u64().unwrap(),
                a["status"].as_u64().unwrap(),
            )
        })
        .collect()
}

async fn a_replayed_dead_letter_lists_its_attempts_by_time(backend: Backend) {
    // Two failures (max_attempts 2: dead), then a success after the replay.
    let sink = Sink::start(vec![Reply::Status(500), Reply::Status(500)]);
    let app = console_app(backend, &sink, "").await;
    let w = Webhook::new("stripe", "acme", "evt_order", "charge.failed", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    wait_for_state(&app, "evt_order", DeliveryState::Dead).await;
    let replay = app
        .client
        .post(format!(
            "{}/admin/dead-letters/replay?event_id=evt_order",
            app.address
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), 202);
    wait_for_state(&app, "evt_order", DeliveryState::Delivered).await;
    let by_time = vec![(1, 500), (2, 500), (1, 200)];

    // The admin API.
    let report: serde_json::Value = app
        .client
        .get(format!(
            "{}/admin/events/stripe/acme/evt_order",
            app.address
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(attempts(&report), by_time, "{report:#}");

    // `hookline events show`, against the same store.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["events", "show", "stripe", "acme", "evt_order", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(attempts(&shown), by_time, "{shown:#}");

    // The console's event page: 500, 500, then 200, in its table.
    let op = Operator::sign_in(&app).await;
    let (status, page) = op.get("/console/events/stripe/acme/evt_order").await;
    assert_eq!(status, 200);
    let rows: Vec<&str> = page.split("<tr class=\"attempt\">").skip(1).collect();
    let statuses: Vec<&str> = rows
        .iter()
        .map(|r| {
            if r.contains("<td>500</td>") {
                "500"
            } else if r.contains("<td>200</td>") {
                "200"
            } else {
                "?"
            }
        })
        .collect();
    assert_eq!(statuses, ["500", "500", "200"], "{page}");
}

backend_tests!(a_replayed_dead_letter_lists_its_attempts_by_time);
