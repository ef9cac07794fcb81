//! Transformations from the command line: `hookline transform` previews
//! what a handler would receive for a captured webhook, and `check-config`
//! names each handler's filter and script and reports a script that does
//! not compile, with its line.

use crate::common::HANDLER_SECRET;
use crate::transforms::RESHAPE;

#[test]
fn the_transform_command_previews_what_a_handler_would_receive() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("reshape.js");
    std::fs::write(&script, RESHAPE).unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[store]
kind = "embedded"
path = "{db}"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = ["whsec_dGVzdA=="]
[handlers.reshaped]
url = "http://127.0.0.1:9/"
events = ["stripe:*"]
signing_secret = "{HANDLER_SECRET}"
filter = '{{"body": {{"type": {{"$startsWith": "charge."}}}}}}'
transform = "{script}"
"#,
            db = dir.path().join("db").display(),
            script = script.display()
        ),
    )
    .unwrap();
    let capture = |event_type: &str| {
        let body = serde_json::json!({"id": "evt_cli", "object": "event", "type": event_type});
        let path = dir.path().join(format!("{event_type}.json"));
        let capture = serde_json::json!({
            "provider": "stripe", "tenant": "acme", "method": "POST",
            "path": "/webhooks/stripe/acme", "query": "source=cli",
            "headers": [["Content-Type", "application/json"]],
            "body_base64": base64::engine::general_purpose::STANDARD.encode(body.to_string()),
            "received_at": "2026-11-25T12:00:00Z",
        });
        std::fs::write(&path, capture.to_string()).unwrap();
        path
    };
    let run = |capture: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(["transform", "--config"])
            .arg(&config)
            .args(["--handler", "reshaped"])
            .arg(capture)
            .env_remove("HOOKLINE_CONFIG")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, stdout) = run(&capture("charge.succeeded"));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.starts_with("POST http://127.0.0.1:9/\n"), "{stdout}");
    assert!(stdout.contains("\nwebhook-signature: v1,"), "{stdout}");
    assert!(stdout.contains("\nx-reshaped: yes\n"), "{stdout}");
    let body = stdout.split("\n\n").nth(1).unwrap().trim();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap(),
        serde_json::json!({
            "kind": "charge.succeeded", "id": "evt_cli", "handler": "reshaped",
            "query": {"source": "cli"}
        })
    );
    // check-config names the filter and the script.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config"])
        .arg(&config)
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .unwrap();
    let described = String::from_utf8_lossy(&out.stdout);
    assert!(described.contains("\n    filter (inline)\n"), "{described}");
    assert!(
        described.contains(&format!(
            "\n    transform {} (timeout 100ms)\n",
            script.display()
        )),
        "{described}"
    );
    let (code, stdout) = run(&capture("invoice.paid"));
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains("the filter of [handlers.reshaped] refuses this event"),
        "{stdout}"
    );
}

#[test]
fn check_config_reports_a_script_that_does_not_compile_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("broken.js");
    std::fs::write(
        &script,
        "addHandler(\"transform\", (request) => {\n  return request;\n",
    )
    .unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nkind = \"embedded\"\npath = \"{}\"\n[providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.acme]\nsecrets = [\"x\"]\n[handlers.broken]\nurl = \"http://127.0.0.1:9/\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntransform = \"{}\"\n",
            dir.path().join("db").display(),
            script.display()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config"])
        .arg(&config)
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("handlers.broken.transform: SyntaxError: "),
        "{stderr}"
    );
    assert!(stderr.contains("(line 3)"), "{stderr}");
}
