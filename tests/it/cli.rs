//! The `hookline` binary: check-config, sign, providers, migrate, and
//! serve as a newcomer runs it (capture files and `replay`: `replay.rs`;
//! the corpus itself: `corpus.rs`).

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

pub(crate) fn hookline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(args)
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .expect("run hookline")
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The count on a summary line such as `  200 accepted: 6`.
pub(crate) fn count(summary: &str, label: &str) -> usize {
    summary
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{label}: ")))
        .map(|n| n.parse().unwrap())
        .unwrap_or(0)
}

#[test]
fn check_config_lists_every_error_with_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        r#"
[server]
max_body_bytes = 0
[store]
kind = "redis"
write_concurrency = 8
[dedup]
in_progress_ttl = "soon"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = ["whsec_do_not_print_me"]
[providers.paypal]
kind = "paypal-ipn"
[providers.github]
kind = "github"
[handlers.billing]
url = "ftp://example.invalid/x"
events = ["nosuch:*"]
signing_secret = "whsec_!!!"
[mystery]
x = 1
"#,
    )
    .unwrap();
    let out = hookline(&["check-config", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    for key in [
        "server.max_body_bytes",
        "store.redis_url",
        "store.database_url",
        "store.write_concurrency",
        "dedup",
        "providers.paypal.kind",
        "providers.github.tenants",
        "handlers.billing.url",
        "handlers.billing.events",
        "handlers.billing.signing_secret",
        "mystery",
    ] {
        assert!(
            err.contains(&format!("{}: {key}", path.display())),
            "missing {key} in:\n{err}"
        );
    }
    assert!(!err.contains("do_not_print_me"), "a secret leaked:\n{err}");
}

#[test]
fn every_example_config_is_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        // The Docker and compose examples read their secrets from the
        // environment (compose's from variables docker-compose.yml requires).
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookline"));
        cmd.args(["check-config", "--config", path.to_str().unwrap()])
            .env("STRIPE_WEBHOOK_SECRET", "whsec_example");
        if path.ends_with("compose.toml") {
            // A token of digits, which the environment reader takes for a
            // number, is the text it was.
            cmd.env("HOOKLINE__ADMIN__TOKEN", "0012345678901234567")
                .env(
                    "HOOKLINE__HANDLERS__BILLING__SIGNING_SECRET",
                    "whsec_b3duLXNpZ25pbmcta2V5",
                );
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            path.display(),
            text(&out.stderr)
        );
    }
}

#[test]
fn check_config_describes_a_valid_config_without_secrets() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart.toml");
    let out = hookline(&["check-config", "--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("stripe (kind stripe") && s.contains("tenant default: 1 secret [redacted]"),
        "{s}"
    );
    assert!(
        !s.contains("whsec_quickstart_test_secret") && !s.contains("quickstart-github-secret"),
        "{s}"
    );
}

#[test]
fn usage_errors_exit_2_and_missing_files_exit_1() {
    assert_eq!(hookline(&["serve"]).status.code(), Some(2));
    assert_eq!(hookline(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        hookline(&["sign", "--provider", "github"]).status.code(),
        Some(2)
    );
    // A pace or a width replay cannot keep is refused before any request
    // (it panicked, or was quietly taken for another).
    for (flag, value) in [
        ("--rate", "inf"),
        ("--rate", "1e10"),
        ("--rate", "1e-30"),
        ("--rate", "0"),
        ("--concurrency", "0"),
    ] {
        let out = hookline(&[
            "replay",
            "/nonexistent",
            "--target",
            "http://127.0.0.1:9/",
            flag,
            value,
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {value}: {}",
            text(&out.stderr)
        );
    }
    let missing = hookline(&["check-config", "--config", "/nonexistent/hookline.toml"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("/nonexistent/hookline.toml"));
}

#[test]
fn sign_prints_the_headers_the_provider_would_send() {
    use std::io::Write;
    // GitHub Docs, "Validating webhook deliveries" test values.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args([
            "sign",
            "--provider",
            "github",
            "--secret",
            "It's a Secret to Everybody",
            "--id",
            "d-1",
            "--event-type",
            "ping",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Hello, World!")
        .unwrap();
    let out = text(&child.wait_with_output().unwrap().stdout);
    assert_eq!(
        out,
        "Content-Type: application/json\nX-GitHub-Delivery: d-1\nX-GitHub-Event: ping\n\
         X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17\n"
    );
    let unknown = hookline(&["sign", "--provider", "paypal-ipn", "--secret", "x"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("unknown provider kind"));
}

/// The quickstart as a newcomer runs it: `serve` creates and migrates the
/// embedded file by itself; `HOOKLINE__SECTION__KEY` overrides the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_runs_on_the_embedded_store_with_env_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:1\"\n[store]\nkind = \"embedded\"\npath = \"{}\"\n\
             [providers.stripe]\nkind = \"stripe\"\ncritical = [\"*\"]\n[providers.stripe.tenants.default]\nsecrets = [\"whsec_x\"]\n",
            dir.path().join("sub/dir/hookline.db").display()
        ),
    )
    .unwrap();
    let log_path = dir.path().join("serve.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["serve"])
        .env("HOOKLINE_CONFIG", &config)
        .env("HOOKLINE__SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env_remove("HOOKLINE_LOG_FORMAT")
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let mut ready = false;
    for _ in 0..100 {
        if client
            .get(format!("{base}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let result = async {
        assert!(ready, "serve did not become ready");
        let body = br#"{"id":"evt_quick","type":"charge.succeeded"}"#;
        let headers = common::headers_for("stripe", "whsec_x", body, "", "", common::now());
        let mut req = client
            .post(format!("{base}/webhooks/stripe"))
            .body(body.to_vec());
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let res: serde_json::Value = req.send().await.unwrap().json().await.unwrap();
        assert_eq!(res["status"], "accepted");
        assert!(dir.path().join("sub/dir/hookline.db").exists());
    }
    .await;
    let _ = child.kill();
    let _ = child.wait();
    // Logs written to a file carry no terminal colour codes.
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("hookline is listening"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "ANSI escapes in a non-terminal log: {log:?}"
    );
    result
}

/// `providers list` names every built-in, kind first; `providers show`
/// prints where everything is and a config snippet that `check-config`
/// accepts once the secret is set.
#[test]
fn providers_list_and_show() {
    let list = hookline(&["providers", "list"]);
    assert!(list.status.success());
    let list = text(&list.stdout);
    let kinds: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let defs = hookline::provider::Definitions::load(None).unwrap();
    assert_eq!(kinds.len(), defs.definitions().count());
    assert!(
        kinds.contains(&"stripe") && kinds.contains(&"discord"),
        "{list}"
    );
    assert!(
        list.lines()
            .any(|l| l.starts_with("discord ") && l.ends_with("ed25519 (handshake: discord-ping)")),
        "{list}"
    );

    let show = hookline(&["providers", "show", "lemonsqueezy"]);
    assert!(show.status.success());
    let show = text(&show.stdout);
    assert!(show.contains("signature:  X-Signature"), "{show}");
    assert!(show.contains("event type: header X-Event-Name"), "{show}");
    let snippet = &show[show.find("[providers.").unwrap()..];
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nkind = \"embedded\"\npath = \"{}/h.db\"\n{snippet}",
            dir.path().display()
        ),
    )
    .unwrap();
    let check = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config"])
        .arg(&config)
        .env("LEMON_SQUEEZY_SECRET", "s3cret")
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check.stderr));

    let unknown = hookline(&["providers", "show", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("unknown provider kind"));
}

/// `hookline migrate` on a database that does not exist creates it when
/// the role may and says what it applied; otherwise one error names the
/// command to run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_creates_a_missing_database_or_says_how() {
    use sqlx::Connection;
    let admin = common::backing::postgres_admin_url();
    let server = url::Url::parse(&admin).unwrap();
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    let (db, role) = (format!("hl_mig_{suffix}"), format!("hl_nocreate_{suffix}"));
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    sqlx::query(&format!("CREATE ROLE {role} LOGIN"))
        .execute(&mut conn)
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = |user: &str| {
        let mut url = server.clone();
        url.set_username(user).unwrap();
        url.set_path(&db);
        let path = dir.path().join(format!("{user}.toml"));
        std::fs::write(
            &path,
            format!(
                "[store]\nkind = \"redis\"\nredis_url = \"{}\"\ndatabase_url = \"{url}\"\n\
                 [providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.a]\nsecrets = [\"x\"]\n",
                common::redis_url()
            ),
        )
        .unwrap();
        path.display().to_string()
    };
    let refused = hookline(&["migrate", "--config", &config(&role)]);
    assert_eq!(refused.status.code(), Some(1));
    let err = text(&refused.stderr);
    assert!(err.contains(&format!("createdb {db}")), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("does not exist")).count(),
        1,
        "{err}"
    );

    let owner = server.username().to_owned();
    let first = hookline(&["migrate", "--config", &config(&owner)]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let out = text(&first.stdout);
    assert!(out.contains(&format!("created database {db}")), "{out}");
    assert!(out.contains("applied 0001"), "{out}");
    let again = hookline(&["migrate", "--config", &config(&owner)]);
    assert_eq!(text(&again.stdout).trim(), "the schema is up to date");

    sqlx::query(&format!("DROP DATABASE {db}"))
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query(&format!("DROP ROLE {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
}
