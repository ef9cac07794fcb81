//! The event report operators read through `GET /admin/events/...` and
//! `hookline events show` (issue 10): it answers for every accepted event,
//! critical or not, with or without handlers; it says what the dedup record
//! holds and until when; it lists the quarantined copies, identical copies
//! counted on one record. (Input no record can hold, such as a NUL, is
//! refused before the lookup: `tests/it/operator_input.rs`.)

use crate::common;

use common::{spawn_text, test_config, AppOptions, Backend, TestApp, Webhook};

const TOKEN: &str = "admin-token-for-tests-0123456789";

/// An app where only `payment_intent.*` is critical, with the admin API on.
async fn app(backend: Backend) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("[admin]\ntoken = \"{TOKEN}\"\n");
    let (text, guard) = test_config(&opts, dir.path()).await;
    let text = text.replace("critical = [\"*\"]", "critical = [\"payment_intent.*\"]");
    spawn_text(text, backend, guard, dir).await
}

async fn admin(app: &TestApp, path: &str) -> (u16, serde_json::Value) {
    let res = app
        .client
        .get(format!("{}{path}", app.address))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or_default())
}

/// `hookline events show` against the app's store.
fn events_show(app: &TestApp, event_id: &str) -> (i32, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["events", "show", "stripe", "acme", event_id])
        .args(["--config", config.to_str().unwrap()])
        .output()
        .unwrap();
    let shown = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (out.status.code().unwrap_or(-1), shown)
}

async fn a_non_critical_event_without_handlers_is_reported_from_its_dedup_record(backend: Backend) {
    let app = app(backend).await;
    let w = Webhook::new("stripe", "acme", "evt_plain", "customer.created", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");

    let (status, report) = admin(&app, "/admin/events/stripe/acme/evt_plain").await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["dedup"]["state"], "completed", "{report}");
    let kept_until: chrono::DateTime<chrono::Utc> = report["dedup"]["kept_until"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // The suite's dedup window is one hour, but Stripe retries for three
    // days: its definition's window is the floor.
    let left = (kept_until - chrono::Utc::now()).num_minutes();
    assert!((4318..=4320).contains(&left), "kept {left} more minutes");
    assert!(report["processed_event"].is_null(), "{report}");
    assert_eq!(report["deliveries"], serde_json::json!([]));
    assert_eq!(report["quarantined"], serde_json::json!([]));

    let (code, shown) = events_show(&app, "evt_plain");
    assert_eq!(code, 0, "{shown}");
    assert_eq!(shown["dedup"]["state"], "completed");

    // Never seen: nothing to report.
    let (status, _) = admin(&app, "/admin/events/stripe/acme/evt_never").await;
    assert_eq!(status, 404);
    assert_eq!(events_show(&app, "evt_never").0, 1);
}

async fn a_critical_event_reports_its_row_and_its_quarantined_copies(backend: Backend) {
    let app = app(backend).await;
    let original = Webhook::new(
        "stripe",
        "acme",
        "evt_paid",
        "payment_intent.succeeded",
        "a",
    );
    let forged = Webhook::new(
        "stripe",
        "acme",
        "evt_paid",
        "payment_intent.succeeded",
        "b",
    );
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    assert_eq!(app.send_json(&original).await.0, 200);
    for _ in 0..2 {
        assert_eq!(app.send_json(&forged).await.0, 422);
    }

    let (status, report) = admin(&app, "/admin/events/stripe/acme/evt_paid").await;
    assert_eq!(status, 200, "{report}");
    let row = &report["processed_event"];
    assert_eq!(row["event_type"], "payment_intent.succeeded");
    assert_eq!(row["body_bytes"], original.body.len());
    let received: chrono::DateTime<chrono::Utc> =
        row["received_at"].as_str().unwrap().parse().unwrap();
    assert!(received >= before, "{row}");
    let copies = report["quarantined"].as_array().unwrap();
    assert_eq!(copies.len(), 1, "identical copies on one record: {report}");
    assert_eq!(copies[0]["copies"], 2);
    assert_eq!(copies[0]["body_bytes"], forged.body.len());
    use sha2::Digest;
    assert_eq!(
        copies[0]["body_sha256"],
        hex::encode(sha2::Sha256::digest(&forged.body))
    );
    assert!(copies[0]["first_seen_at"].as_str() <= copies[0]["last_seen_at"].as_str());
    assert_eq!(
        app.inventory().await.quarantined,
        2,
        "every request counted"
    );

    let (_, shown) = events_show(&app, "evt_paid");
    assert_eq!(shown["quarantined"][0]["copies"], 2, "{shown}");
    assert_eq!(shown["processed_event"]["received_at"], row["received_at"]);
}

backend_tests!(
    a_non_critical_event_without_handlers_is_reported_from_its_dedup_record,
    a_critical_event_reports_its_row_and_its_quarantined_copies,
);
