//! `hookline check-config` as an operator runs it: every problem in one run,
//! each with file, key and reason; the new keys of issues 9 and 10; names
//! that are path tricks; TLS files read and matched; never a secret printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookline::config::TlsFiles;

fn check_config(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config", path.to_str().unwrap()])
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .expect("run hookline")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Run check-config on `text`; the exit code, stdout and stderr.
fn run(text: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "hookline.toml", text);
    let out = check_config(&path);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Every issue line names the file.
    for line in stderr.lines().skip(1) {
        assert!(
            line.trim_start().starts_with(&path.display().to_string()),
            "{line}"
        );
    }
    (out.status.code(), stdout, stderr)
}

/// The reason given for `key`, from check-config's error output.
fn reason<'a>(stderr: &'a str, key: &str) -> &'a str {
    stderr
        .lines()
        .find_map(|l| l.split_once(&format!(": {key}: ")).map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no issue for {key} in:\n{stderr}"))
}

const VALID: &str = r#"
[store]
kind = "embedded"
path = "data/x.db"
[providers.stripe.tenants.acme]
secrets = ["whsec_dGVzdA=="]
[providers.stripe]
kind = "stripe"
"#;

#[test]
fn six_problems_in_six_sections_are_all_listed_in_one_run() {
    let (code, _, err) = run(r#"
[server]
listen = "8080"
[store]
kind = "embedded"
[dedup]
window = "a week"
[providers.stripe]
kind = "stripe"
tolerance = "5 parsecs"
[providers.stripe.tenants.acme]
secrets = ["whsec_dGVzdA=="]
[providers.pay]
kind = "paypal-ipn"
[providers.pay.tenants.acme]
secrets = ["x"]
[providers.github]
kind = "github"
[providers.github.tenants.acme]
secrets = []
[handlers.billing]
url = "http://127.0.0.1:9000/"
events = ["stripe:*", "shopify:orders/*"]
signing_secret = "whsec_dGVzdA=="
[delivery]
concurency = 4
"#);
    assert_eq!(code, Some(1), "{err}");
    assert!(reason(&err, "server.listen").contains("host:port"), "{err}");
    assert!(reason(&err, "dedup.window").contains("duration"), "{err}");
    assert!(reason(&err, "providers.pay.kind").contains("unknown provider kind"));
    assert!(reason(&err, "providers.github.tenants.acme").contains("no secrets"));
    assert_eq!(reason(&err, "delivery.concurency"), "unknown key");
    assert!(reason(&err, "handlers.billing.events")
        .contains("\"shopify:orders/*\" names provider \"shopify\""));
    // A provider that is configured but has its own problem is not called
    // missing: its own issue names the real one.
    assert!(reason(&err, "providers.stripe.tolerance").contains("duration"));
    assert!(!err.contains("names provider \"stripe\""), "{err}");
    assert!(err.contains("7 configuration errors"), "{err}");
}

#[test]
fn names_that_are_path_tricks_are_refused_naming_each_key() {
    // The configuration of issue 9, defect 3.
    let (code, _, err) = run(r#"
[store]
kind = "embedded"
[capture]
dir = "X/deep/cap"
[providers.".."]
kind = "stripe"
[providers."..".tenants.".."]
secrets = ["whsec_dGVzdA=="]
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.".hidden"]
secrets = ["whsec_dGVzdA=="]
[providers.stripe.tenants."a/b"]
secrets = ["whsec_dGVzdA=="]
[handlers."."]
url = "http://127.0.0.1:9000/"
events = ["stripe:*"]
signing_secret = "whsec_dGVzdA=="
"#);
    assert_eq!(code, Some(1), "{err}");
    for key in [
        r#"providers."..""#,
        r#"providers."..".tenants."..""#,
        r#"providers.stripe.tenants.".hidden""#,
        r#"providers.stripe.tenants."a/b""#,
        r#"handlers.".""#,
    ] {
        assert!(reason(&err, key).contains("name"), "{key}: {err}");
    }
}

#[test]
fn no_secret_is_printed_whatever_is_wrong_with_it() {
    let (code, out, err) = run(r#"
[store]
kind = "redis"
redis_url = "redis://:redis_pw_do_not_print@127.0.0.1:6379"
database_url = "postgres://u:pg_pw_do_not_print@db/h"
write_concurrency = 8
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = "whsec_as_a_string_do_not_print"
verify_token = ["verify_do_not_print"]
[handlers.h]
url = "http://127.0.0.1:9000/"
events = ["stripe:*"]
signing_secret = "not base64 do_not_print"
[admin]
token = "short_dnp"
"#);
    assert_eq!(code, Some(1), "{err}");
    for key in [
        "providers.stripe.tenants.acme.secrets",
        "providers.stripe.tenants.acme.verify_token",
        "handlers.h.signing_secret",
        "admin.token",
        "store.write_concurrency",
    ] {
        reason(&err, key);
    }
    assert!(
        !out.contains("do_not_print") && !err.contains("do_not_print") && !err.contains("_dnp"),
        "a secret leaked:\n{err}"
    );
    // A TOML syntax error quotes no line of the file.
    let (code, _, err) = run("[admin]\ntoken = \"syntax_do_not_print\n");
    assert_eq!(code, Some(1));
    assert!(!err.contains("do_not_print"), "a secret leaked:\n{err}");
}

#[test]
fn the_new_keys_are_validated_each_with_its_reason() {
    let (code, _, err) = run(&format!(
        r#"
[server]
max_body_bytes = 2048
max_buffered_bytes = 1024
body_timeout = "0s"
public_url = "https://hooks.example.com/?x=1"
trusted_proxies = ["10.0.0.0/8", "10.0.0.300"]
[server.tls]
cert_file = "/nonexistent/cert.pem"
[tls]
ca_file = "/nonexistent/ca.pem"
{VALID}
rate_limit = "10/d"
rate_burst = 0
[providers.stripe.tenants.globex]
secrets = ["whsec_dGVzdA=="]
verify_token = ""
[providers.gitlab]
kind = "gitlab"
[providers.gitlab.tenants.acme]
secrets = ["token"]
[handlers.h]
url = "http://127.0.0.1:9000/"
events = ["stripe:*"]
signing_secret = "whsec_dGVzdA=="
concurrency = 0
forward_headers = ["Transfer-Encoding", "X-Hookline-Attempt", "bad header", "X-Gitlab-Token", "X-GitHub-Delivery"]
client_cert_file = "client.pem"
"#
    ));
    assert_eq!(code, Some(1), "{err}");
    let expect = [
        ("server.max_buffered_bytes", "max_body_bytes"),
        ("server.body_timeout", "positive"),
        ("server.public_url", "query"),
        ("server.trusted_proxies[1]", "CIDR"),
        ("server.tls.key_file", "required"),
        ("server.tls.cert_file", "cannot read"),
        ("tls.ca_file", "cannot read"),
        ("providers.stripe.rate_limit", "per s, m or h"),
        ("providers.stripe.rate_burst", "at least 1"),
        ("providers.stripe.tenants.globex.verify_token", "empty"),
        ("handlers.h.concurrency", "at least 1"),
        ("handlers.h.forward_headers[0]", "framing"),
        ("handlers.h.forward_headers[1]", "hookline sets"),
        ("handlers.h.forward_headers[2]", "header name"),
        (
            "handlers.h.forward_headers",
            "x-gitlab-token carries provider gitlab's shared secret",
        ),
        ("handlers.h.client_key_file", "both or neither"),
    ];
    for (key, why) in expect {
        assert!(reason(&err, key).contains(why), "{key}: {err}");
    }
    assert!(
        err.contains(&hookline::text::plural(
            expect.len() as u64,
            "configuration error",
            "configuration errors"
        )),
        "{err}"
    );
}

/// A window shorter than the provider's tolerance is raised to it, set
/// or not: a key that expired while its request's signed time is still
/// accepted would let that request, replayed, be accepted again.
#[test]
fn a_window_shorter_than_the_tolerance_is_raised_to_it() {
    let (code, out, err) = run(&format!(
        r#"{VALID}
[dedup]
window = "20m"
[providers.sns]
kind = "aws-sns"
window = "2m"
[providers.sns.tenants.acme]
secrets = ["arn:aws:sns:us-east-1:123456789012:orders"]
[providers.labs]
kind = "elevenlabs"
[providers.labs.tenants.acme]
secrets = ["wsec_labs"]
"#
    ));
    assert_eq!(code, Some(0), "{err}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} (kind")))
            .unwrap_or_else(|| panic!("{name}: {out}"))
            .to_owned()
    };
    assert!(
        line("sns").contains("tolerance 1h 10m, window 1h 10m"),
        "{out}"
    );
    assert!(line("labs").contains("tolerance 30m, window 30m"), "{out}");
    assert!(line("stripe").contains("window 3d"), "{out}");
}

#[test]
fn the_new_keys_show_in_the_printout_with_secrets_redacted() {
    let (code, out, err) = run(&format!(
        r#"
[server]
public_url = "https://hooks.example.com/base/"
trusted_proxies = ["10.1.2.3/8", "::1"]
body_timeout = "15s"
max_buffered_bytes = 4194304
{VALID}
rate_limit = "3000/m"
[providers.stripe.tenants.globex]
secrets = ["whsec_dGVzdA=="]
verify_token = "verify_do_not_print"
[handlers.h]
url = "http://127.0.0.1:9000/"
events = ["stripe:*"]
signing_secret = "whsec_dGVzdA=="
forward_headers = ["X-GitHub-Delivery"]
[delivery]
concurrency = 7
[telemetry]
otlp_endpoint = "http://127.0.0.1:4318"
sample_ratio = 0.25
log_format = "json"
[alerts]
url = "https://hooks.slack.com/services/T000/B000/slack_token_do_not_print"
dead_letters = 3
backlog_age = "10m"
"#
    ));
    assert_eq!(code, Some(0), "{err}");
    for shown in [
        "body_timeout 15s, max_buffered_bytes 4194304",
        "public_url https://hooks.example.com/base\n",
        "trusted_proxies [10.0.0.0/8, ::1/128]",
        "rate_limit 3000/m (burst 50)",
        "tenant globex: 1 secret [redacted], verify_token [redacted]",
        "concurrency 7, signing_secret [redacted]",
        "forward_headers [x-github-delivery]",
        "telemetry: traces to http://127.0.0.1:4318/ (OTLP/HTTP, service \"hookline\", sample_ratio 0.25, queue 8192), logs json, inbound traceparent ignored",
        "alerts: to hooks.slack.com [path redacted], dead_letters 3, backlog_age 10m; at most one per rule and handler every 5m, checked every 15s",
    ] {
        assert!(out.contains(shown), "{shown:?} not in:\n{out}");
    }
    assert!(!out.contains("do_not_print"), "{out}");
}

/// A throwaway self-signed certificate and its key, as PEM files.
fn self_signed(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    (
        write(dir, &format!("{name}.crt"), &ck.cert.pem()),
        write(dir, &format!("{name}.key"), &ck.key_pair.serialize_pem()),
    )
}

#[test]
fn tls_files_are_read_and_a_mismatch_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = self_signed(dir.path(), "server");
    let (other_cert, other_key) = self_signed(dir.path(), "other");
    let empty = write(dir.path(), "empty.pem", "no PEM here\n");
    let config = |cert: &Path, key: &Path, ca: &Path| {
        format!(
            "[server.tls]\ncert_file = \"{}\"\nkey_file = \"{}\"\n[tls]\nca_file = \"{}\"\n\
             [handlers.h]\nurl = \"https://127.0.0.1:9443/\"\nevents = [\"stripe:*\"]\n\
             signing_secret = \"whsec_dGVzdA==\"\nclient_cert_file = \"{}\"\nclient_key_file = \"{}\"\n{VALID}",
            cert.display(),
            key.display(),
            ca.display(),
            other_cert.display(),
            other_key.display()
        )
    };
    let (code, out, err) = run(&config(&cert, &key, &other_cert));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("[not shown]") && !out.contains("PRIVATE KEY"),
        "{out}"
    );

    let (code, _, err) = run(&config(&cert, &other_key, &empty));
    assert_eq!(code, Some(1));
    let mismatch = reason(&err, "server.tls.key_file");
    assert!(
        mismatch.contains("does not match") && mismatch.contains(&other_key.display().to_string()),
        "{err}"
    );
    assert!(
        reason(&err, "tls.ca_file").contains("no certificate"),
        "{err}"
    );

    let (code, _, err) = run(&config(&empty, &cert, &cert));
    assert_eq!(code, Some(1));
    assert!(reason(&err, "server.tls.cert_file").contains("no certificate"));
    let (_, _, err) = run(&config(&cert, &cert, &cert));
    assert!(reason(&err, "server.tls.key_file").contains("no private key"));

    // What check-config accepted is what rustls serves with.
    let (chain, key) = TlsFiles {
        cert_file: cert,
        key_file: key,
    }
    .load()
    .unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("a ServerConfig from the loaded pair");
}

#[test]
fn settings_debug_output_holds_no_secret() {
    let text = r#"
[store]
kind = "redis"
redis_url = "redis://:redis_pw_do_not_print@127.0.0.1:6379"
database_url = "postgres://u:pg_pw_do_not_print@db/h"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.acme]
secrets = ["whsec_do_not_print"]
verify_token = "verify_do_not_print"
[handlers.h]
url = "https://user:url_pw_do_not_print@127.0.0.1:9000/"
events = ["stripe:*"]
signing_secret = "whsec_ZG9fbm90X3ByaW50"
[admin]
token = "admin_token_do_not_print"
"#;
    let settings = hookline::config::from_toml_str("t.toml", text).unwrap();
    let debug = format!("{settings:?}");
    assert!(debug.contains("127.0.0.1:9000"), "{debug}");
    assert!(!debug.contains("do_not_print"), "a secret leaked:\n{debug}");
}
