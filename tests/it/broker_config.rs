//! `check-config` on broker handlers: kinds, URLs, required keys, keys of
//! another kind and placeholders, every problem in the same one-run report
//! as the rest of the file; a valid broker handler is described with its
//! credentials redacted.

use std::process::Command;

/// Run check-config on `text`: exit code, stdout, stderr.
fn run(text: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hookline.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config", path.to_str().unwrap()])
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn reason<'a>(stderr: &'a str, key: &str) -> &'a str {
    stderr
        .lines()
        .find_map(|l| l.split_once(&format!(": {key}: ")).map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no issue for {key} in:\n{stderr}"))
}

const BASE: &str = r#"
[store]
kind = "embedded"
path = "data/x.db"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = ["whsec_dGVzdA=="]
"#;

#[test]
fn every_broker_handler_problem_is_listed_in_one_run() {
    let (code, _, err) = run(&format!(
        r#"{BASE}
[handlers.queue]
kind = "kafka"
url = "kafka://127.0.0.1:9092"
events = ["stripe:*"]
[handlers.orders]
kind = "nats"
url = "amqp://127.0.0.1:5672"
events = ["stripe:*"]
topic = "webhooks/{{provider}}"
[handlers.audit]
kind = "rabbitmq"
url = "amqp://guest:guest@127.0.0.1:5672/%2f"
exchange = "web hooks"
routing_key = "{{provider}}.{{event}}"
events = ["stripe:*"]
[handlers.stream]
kind = "redis-stream"
url = "redis://127.0.0.1:6379/0"
maxlen = 0
events = ["stripe:*"]
[handlers.iot]
kind = "mqtt"
url = "mqtt://127.0.0.1:1883"
topic = "webhooks/#/{{provider}}"
events = ["stripe:*"]
[handlers.plain]
url = "http://127.0.0.1:9000/"
events = ["stripe:*"]
"#
    ));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        reason(&err, "handlers.queue.kind").contains("unknown kind \"kafka\""),
        "{err}"
    );
    // Nothing else is checked against a kind that is not known.
    assert!(!err.contains("handlers.queue.url"), "{err}");
    assert!(
        reason(&err, "handlers.orders.url").contains("nats:// or tls://"),
        "{err}"
    );
    assert!(reason(&err, "handlers.orders.subject").contains("required for a nats handler"));
    assert!(reason(&err, "handlers.orders.topic").contains("not a key of a nats handler"));
    assert!(reason(&err, "handlers.audit.exchange").contains("an exchange name uses only"));
    assert!(reason(&err, "handlers.audit.routing_key").contains("unknown placeholder {event}"));
    assert!(reason(&err, "handlers.stream.stream").contains("required"));
    assert!(reason(&err, "handlers.stream.maxlen").contains("at least 1"));
    assert!(reason(&err, "handlers.iot.topic").contains("wildcard"));
    assert!(reason(&err, "handlers.plain.signing_secret").contains("required for an http handler"));
    assert!(err.contains("10 configuration errors"), "{err}");
    // The URL's password is never repeated.
    assert!(!err.contains("guest:guest"), "{err}");
}

#[test]
fn valid_broker_handlers_are_described_without_their_secrets() {
    let (code, out, err) = run(&format!(
        r#"{BASE}
[handlers.orders]
kind = "nats"
url = "nats://s3cr3t-token@127.0.0.1:4222"
subject = "webhooks.{{provider}}.{{event_type}}"
events = ["stripe:*"]
[handlers.audit]
kind = "rabbitmq"
url = "amqp://guest:hunter2@127.0.0.1:5672/%2f"
exchange = "webhooks"
routing_key = "{{provider}}.{{event_type}}"
events = ["stripe:*"]
[handlers.stream]
kind = "redis-stream"
url = "redis://127.0.0.1:6379/0"
stream = "webhooks:{{tenant}}"
maxlen = 1000000
events = ["stripe:*"]
[handlers.iot]
kind = "mqtt"
url = "mqtt://127.0.0.1:1883"
topic = "webhooks/{{provider}}/{{event_type}}"
events = ["stripe:*"]
"#
    ));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("orders -> nats nats://[redacted]@127.0.0.1:4222"),
        "{out}"
    );
    assert!(
        out.contains("subject \"webhooks.{provider}.{event_type}\""),
        "{out}"
    );
    assert!(
        out.contains(
            "audit -> rabbitmq amqp://guest:[redacted]@127.0.0.1:5672/%2f exchange \"webhooks\""
        ),
        "{out}"
    );
    assert!(
        out.contains("stream \"webhooks:{tenant}\" maxlen ~1000000 dedup_window 1d"),
        "{out}"
    );
    assert!(
        out.contains("iot -> mqtt mqtt://127.0.0.1:1883 topic"),
        "{out}"
    );
    assert!(!out.contains("s3cr3t") && !out.contains("hunter2"), "{out}");
}
