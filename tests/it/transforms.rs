//! Per-handler transformations (issue 27) through `serve`: a script in
//! Hookdeck's form (https://hookdeck.com/docs/transformations) reshapes
//! what the handler receives, the signature covers the transformed body
//! and the `webhook-id` stays the event's; scripts that throw, loop
//! forever, allocate without bound or return garbage fail the attempt with
//! their reason, and hookline keeps delivering to everyone else. The
//! command line's side (`hookline transform`, `check-config`) is in
//! `transforms_cli.rs`.

use crate::common;

use std::time::Duration;

use common::console::{Operator, TOKEN};
use common::logs::capture_logs;
use common::sink::Sink;
use common::{handler_signature, spawn_app_with, AppOptions, Backend, TestApp, Webhook};
use hookline::store::delivery::DeliveryState;

use common::HANDLER_SECRET;

/// Hookdeck's documented shape: `addHandler("transform", ...)` that edits
/// and returns the request.
pub(crate) const RESHAPE: &str = r#"
addHandler("transform", (request, context) => {
  console.log("reshaping", context.event_type);
  request.body = {
    kind: request.body.type,
    id: request.body.id,
    handler: context.handler,
    query: request.query,
  };
  request.headers["x-reshaped"] = "yes";
  return request;
});
"#;

/// The example of https://hookdeck.com/docs/transformations, as written
/// there.
const DOCUMENTED: &str = r#"addHandler('transform', (request, context) => {
  request.headers['example-header'] = 'Hello World';
  return request;
});
"#;

fn handler(name: &str, sink: &Sink, script: &std::path::Path, extra: &str) -> String {
    format!(
        "[handlers.{name}]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\ntransform = \"{}\"\n{extra}\n",
        sink.url,
        script.display()
    )
}

async fn attempt_errors(app: &TestApp, event_id: &str, name: &str) -> Vec<String> {
    for _ in 0..300 {
        let report = app
            .store
            .event_report(&common::key("stripe", "acme", event_id))
            .await
            .unwrap();
        if let Some(d) = report
            .iter()
            .flat_map(|r| &r.deliveries)
            .find(|d| d.delivery.handler == name && d.delivery.state == DeliveryState::Dead)
        {
            return d.attempts.iter().filter_map(|a| a.error.clone()).collect();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name} never dead-lettered {event_id}");
}

async fn a_hookdeck_script_reshapes_what_the_handler_receives(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("reshape.js");
    std::fs::write(&script, RESHAPE).unwrap();
    let documented_script = dir.path().join("documented.js");
    std::fs::write(&documented_script, DOCUMENTED).unwrap();
    let sink = Sink::start(vec![]);
    let plain = Sink::start(vec![]);
    let documented = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{}{}[handlers.plain]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n[delivery]\npoll_interval = \"20ms\"\n[admin]\ntoken = \"{TOKEN}\"\n",
        handler("reshaped", &sink, &script, ""),
        handler("documented", &documented, &documented_script, ""),
        plain.url
    );
    let logs = capture_logs();
    let app = spawn_app_with(opts).await;
    let mut w = Webhook::new("stripe", "acme", "evt_tr1", "charge.succeeded", "x");
    // The query the provider called with reaches the script, decoded.
    w.path.push_str("?source=sh%6Fp&tag=a&tag=b");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    let r = &got[0];
    let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "kind": "charge.succeeded", "id": "evt_tr1", "handler": "reshaped",
            "query": {"source": "shop", "tag": ["a", "b"]}
        })
    );
    // The script's console.log is in hookline's log with the handler and
    // the webhook-id (escaped like every log value by hookline's own
    // formatter: tests/it/log_output.rs).
    let webhook_id =
        hookline::delivery::outgoing::webhook_id("stripe", "acme", "evt_tr1", "reshaped");
    let text = logs.text();
    let line = text
        .lines()
        .find(|l| l.contains("script: reshaping charge.succeeded"))
        .unwrap_or_else(|| panic!("no console.log line in:\n{text}"));
    assert!(line.contains("handler=reshaped"), "{line}");
    assert!(line.contains(&format!("webhook_id={webhook_id}")), "{line}");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-reshaped"), Some("yes"));
    // Hookdeck's own example runs unchanged: its header added, the body
    // the same JSON.
    let doc = documented.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(doc[0].header("example-header"), Some("Hello World"));
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&doc[0].body).unwrap(),
        serde_json::from_slice::<serde_json::Value>(&w.body).unwrap()
    );
    // The untouched handler still gets the provider's bytes.
    let other = plain.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(other[0].body, w.body);
    // The signature covers the transformed body, under the event's id.
    let id = r.header("webhook-id").unwrap();
    assert_eq!(
        id,
        hookline::delivery::outgoing::webhook_id("stripe", "acme", "evt_tr1", "reshaped")
    );
    let ts = r.header("webhook-timestamp").unwrap();
    assert_eq!(
        r.header("webhook-signature"),
        Some(handler_signature(id, ts, &r.body).as_str())
    );

    // The console's event page previews the same message.
    let op = Operator::sign_in(&app).await;
    let (status, page) = op.get("/console/events/stripe/acme/evt_tr1").await;
    assert_eq!(status, 200);
    let preview = page
        .split("<summary>reshaped</summary>")
        .nth(1)
        .expect("a preview for the handler with a transform");
    let preview = preview.split("</details>").next().unwrap();
    assert!(preview.contains("x-reshaped: yes"), "{preview}");
    assert!(
        preview.contains("&quot;kind&quot;:&quot;charge.succeeded&quot;"),
        "{preview}"
    );
    assert!(
        preview.contains("&quot;handler&quot;:&quot;reshaped&quot;"),
        "{preview}"
    );
}

async fn a_hostile_script_fails_its_attempt_with_the_reason(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let scripts = [
        (
            "throws",
            "addHandler(\"transform\", (request) => {\n  const amount = request.body.id;\n  throw new Error(\"no amount in \" + amount);\n});\n",
            "Error: no amount in evt_bad (line 3)",
        ),
        (
            "loops",
            "addHandler(\"transform\", (request) => { while (true) {} });\n",
            "the transform ran past its 100 ms limit",
        ),
        (
            "hoards",
            "addHandler(\"transform\", (request) => { const a = []; for (;;) a.push(new ArrayBuffer(8 * 1024 * 1024)); });\n",
            "out of memory",
        ),
        (
            "garbage",
            "addHandler(\"transform\", (request) => 42);\n",
            "the transform returned a number, not a request",
        ),
    ];
    let mut extra = String::new();
    let mut sinks = Vec::new();
    for (name, source, _) in &scripts {
        let path = dir.path().join(format!("{name}.js"));
        std::fs::write(&path, source).unwrap();
        let sink = Sink::start(vec![]);
        extra.push_str(&handler(name, &sink, &path, "max_attempts = 2"));
        sinks.push(sink);
    }
    let healthy = Sink::start(vec![]);
    extra.push_str(&format!(
        "[handlers.healthy]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"20ms\"\nbackoff_max = \"50ms\"\n",
        healthy.url
    ));
    let mut opts = AppOptions::new(backend);
    opts.extra = extra;
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_bad", "charge.failed", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    for (name, _, reason) in &scripts {
        let errors = attempt_errors(&app, "evt_bad", name).await;
        // Retried like any failure, then dead-lettered.
        assert_eq!(errors.len(), 2, "{name}: {errors:?}");
        assert!(
            errors.iter().all(|e| e.contains(reason)),
            "{name}: {errors:?} (wanted {reason})"
        );
    }
    for sink in &sinks {
        assert!(sink.received().is_empty());
    }
    // Still up and delivering.
    assert_eq!(healthy.wait_for(1, Duration::from_secs(10)).await.len(), 1);
    let next = Webhook::new("stripe", "acme", "evt_after", "charge.failed", "y");
    assert_eq!(app.send_json(&next).await.1["status"], "accepted");
    assert_eq!(healthy.wait_for(2, Duration::from_secs(10)).await.len(), 2);
}

async fn a_fixed_script_applies_on_the_next_attempt_after_sighup(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("billing.js");
    std::fs::write(
        &script,
        "addHandler(\"transform\", (request) => { throw new Error(\"not yet\"); });\n",
    )
    .unwrap();
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{}[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"200ms\"\nbackoff_max = \"300ms\"\n",
        handler("billing", &sink, &script, "max_attempts = 50")
    );
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_fix", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");
    // Failing, with the script's reason.
    let mut failed = false;
    for _ in 0..300 {
        let report = app
            .store
            .event_report(&common::key("stripe", "acme", "evt_fix"))
            .await
            .unwrap();
        failed = report
            .iter()
            .flat_map(|r| &r.deliveries)
            .flat_map(|d| &d.attempts)
            .any(|a| {
                a.error
                    .as_deref()
                    .is_some_and(|e| e.contains("Error: not yet (line 1)"))
            });
        if failed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(failed, "no failed attempt recorded");
    std::fs::write(&script, RESHAPE).unwrap();
    // Each test runs in a process of its own: the signal is this test's.
    let status = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["id"], "evt_fix");
    assert_eq!(body["handler"], "billing");
}

backend_tests!(
    a_hookdeck_script_reshapes_what_the_handler_receives,
    a_hostile_script_fails_its_attempt_with_the_reason,
    a_fixed_script_applies_on_the_next_attempt_after_sighup
);
