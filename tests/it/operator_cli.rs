//! What a new operator tripped on at the command line: a second `serve` on
//! one embedded file, `events redeliver` that said only `requeued 0`,
//! `handshake --config` that printed `:8080`, `sign --help` that suggested
//! X for an example, a mistyped provider kind, `(y/ies)` plurals and
//! `30days`; and Slack's slash commands, which hookline does not take.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::console::console_app;
use crate::common::procs::{free_port, wait_ready};
use crate::common::sink::{Reply, Sink};
use crate::common::{headers_for, now, secret, spawn_app, Backend, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};

fn hookline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An embedded config with one Stripe tenant, and `extra` in `[server]`.
fn embedded_config(dir: &Path, server: &str) -> std::path::PathBuf {
    let path = dir.join("hookline.toml");
    std::fs::write(
        &path,
        format!(
            "[server]\n{server}\n[store]\nkind = \"embedded\"\npath = \"{}\"\n\
             [providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.acme]\nsecrets = [\"stripe-acme-secret\"]\n\
             [providers.slack]\nkind = \"slack\"\n[providers.slack.tenants.acme]\nsecrets = [\"slack-acme-secret\"]\n",
            dir.join("data/hookline.db").display()
        ),
    )
    .unwrap();
    path
}

fn serve(config: &Path, role: &str, port: u16) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args([
            "serve",
            "--role",
            role,
            "--config",
            config.to_str().unwrap(),
        ])
        .env("HOOKLINE__SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The exit code and stderr of a process that must end by itself.
fn ends_within(mut child: std::process::Child, limit: Duration) -> (Option<i32>, String) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return (status.code(), text(&out.stderr));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_serve_on_one_embedded_file_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = embedded_config(dir.path(), "");
    let port = free_port();
    let mut first = serve(&config, "all", port);
    wait_ready(port).await;
    for role in ["all", "receiver", "workers"] {
        let (code, err) = ends_within(serve(&config, role, free_port()), Duration::from_secs(20));
        assert_eq!(code, Some(1), "{role}: {err}");
        assert!(
            err.contains("is already served by another process")
                && err.contains(&format!("(pid {})", first.id())),
            "{role}: {err}"
        );
    }
    // The first is still serving.
    wait_ready(port).await;
    first.kill().unwrap();
    first.wait().unwrap();
    // Its locks died with it (a kill -9 leaves nothing to clean up).
    let port = free_port();
    let again = serve(&config, "receiver", port);
    wait_ready(port).await;
    // A receiver and a worker process may split one file between them.
    let mut workers = serve(&config, "workers", free_port());
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        workers.try_wait().unwrap().is_none(),
        "the workers process runs beside the receiver"
    );
    for mut p in [again, workers] {
        p.kill().unwrap();
        p.wait().unwrap();
    }
}

async fn wait_state(app: &crate::common::TestApp, event_id: &str, state: DeliveryState) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
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
        assert!(Instant::now() < deadline, "{event_id} never {state:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn events_redeliver_says_why_nothing_was_requeued(backend: Backend) {
    // Delivered, then the redelivery is held by the handler a while.
    let sink = Sink::start(vec![
        Reply::Status(200),
        Reply::Slow(Duration::from_secs(3), 200),
    ]);
    let app = console_app(backend, &sink, "").await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    let cli = |args: &[&str]| {
        let mut all = vec!["events"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--config", config.to_str().unwrap()]);
        hookline(&all)
    };
    let w = Webhook::new("stripe", "acme", "evt_re_1", "charge.succeeded", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    wait_state(&app, "evt_re_1", DeliveryState::Delivered).await;
    // A GitHub event no handler wants.
    let g = Webhook::new("github", "acme", "evt_re_gh", "push", "x");
    assert_eq!(app.send_json(&g).await.0, 200);

    let out = cli(&[
        "redeliver",
        "stripe",
        "acme",
        "evt_re_1",
        "--handler",
        "nosuch",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no handler named nosuch in")
            && text(&out.stderr).contains("(handlers: billing)"),
        "{}",
        text(&out.stderr)
    );
    let out = cli(&["redeliver", "stripe", "acme", "evt_nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no record of stripe/acme/evt_nope"),
        "{}",
        text(&out.stderr)
    );
    let out = cli(&["redeliver", "github", "acme", "evt_re_gh"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("github/acme/evt_re_gh has no delivery"),
        "{}",
        text(&out.stderr)
    );

    let out = cli(&["redeliver", "stripe", "acme", "evt_re_1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "requeued 1 delivery");
    // While the handler holds that attempt, a second redelivery finds it
    // being attempted.
    sink.wait_for(2, Duration::from_secs(10)).await;
    let out = cli(&[
        "redeliver",
        "stripe",
        "acme",
        "evt_re_1",
        "--handler",
        "billing",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("requeued 0 deliveries: stripe/acme/evt_re_1 has 1 delivery to billing queued already or being attempted"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn handshake_with_a_config_prints_the_configured_address() {
    let dir = tempfile::tempdir().unwrap();
    let config = embedded_config(dir.path(), "listen = \"0.0.0.0:9123\"");
    let out = hookline(&[
        "handshake",
        "slack",
        "--config",
        config.to_str().unwrap(),
        "--tenant",
        "acme",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("'http://127.0.0.1:9123/webhooks/slack/acme'"),
        "{}",
        text(&out.stdout)
    );
    let config = embedded_config(
        dir.path(),
        "listen = \"127.0.0.1:9123\"\npublic_url = \"https://hooks.example.com\"",
    );
    let out = hookline(&[
        "handshake",
        "slack",
        "--config",
        config.to_str().unwrap(),
        "--tenant",
        "acme",
    ]);
    assert!(
        text(&out.stdout).contains("'https://hooks.example.com/webhooks/slack/acme'"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_mistyped_provider_kind_is_answered_with_the_one_meant() {
    let help = text(&hookline(&["sign", "--help"]).stdout);
    assert!(!help.contains("--provider x"), "X is a provider: {help}");
    assert!(help.contains("hookline providers list"), "{help}");
    let out = hookline(&["sign", "--provider", "strpie", "--secret", "s"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("unknown provider kind \"strpie\": did you mean \"stripe\"?"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let config = embedded_config(dir.path(), "");
    let typo = std::fs::read_to_string(&config)
        .unwrap()
        .replace("kind = \"stripe\"", "kind = \"Stirpe\"");
    std::fs::write(&config, typo).unwrap();
    let out = hookline(&["check-config", "--config", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "providers.stripe.kind: unknown provider kind \"Stirpe\": did you mean \"stripe\"?"
        ),
        "{err}"
    );
    assert!(err.contains(": 1 configuration error\n"), "{err}");
    assert!(err.len() < 600, "no wall of 123 kinds: {err}");
}

#[test]
fn durations_and_counts_read_as_an_operator_writes_them() {
    let show = text(&hookline(&["providers", "show", "adyen"]).stdout);
    assert!(show.contains("at least 30d "), "{show}");
    let dir = tempfile::tempdir().unwrap();
    let config = embedded_config(dir.path(), "");
    let out = text(&hookline(&["check-config", "--config", config.to_str().unwrap()]).stdout);
    assert!(out.contains("tolerance 5m, window 7d,"), "{out}");
    assert!(out.contains("tenant acme: 1 secret [redacted]"), "{out}");
    for printed in [show.as_str(), out.as_str()] {
        assert!(
            !printed.contains("days") && !printed.contains("(s)"),
            "{printed}"
        );
    }
}

async fn a_slack_slash_command_is_refused_as_the_docs_say(backend: Backend) {
    let app = spawn_app(backend).await;
    // Slack's slash command: a signed form, no event_id.
    let body = b"token=x&team_id=T1&command=%2Fweather&text=94070&trigger_id=13345224609.738474920.8088930838d88f008e0".to_vec();
    let mut headers = headers_for("slack", &secret("slack", "acme"), &body, "", "", now());
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
    headers.push((
        "Content-Type".into(),
        "application/x-www-form-urlencoded".into(),
    ));
    let w = Webhook {
        path: "/webhooks/slack/acme".into(),
        headers,
        body,
    };
    let (status, problem) = app.send_json(&w).await;
    assert_eq!(status, 400, "{problem}");
    let code = problem["code"].as_str().unwrap().to_owned();
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/providers.md"))
            .unwrap();
    assert!(
        docs.contains("Slack's slash commands and interactivity")
            && docs.contains(&format!("`400 {code}`")),
        "docs/providers.md says what they get ({code})"
    );
}

backend_tests!(
    events_redeliver_says_why_nothing_was_requeued,
    a_slack_slash_command_is_refused_as_the_docs_say,
);
