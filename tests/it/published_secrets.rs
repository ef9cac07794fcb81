//! No secret hookline's own docs print guards a receiver: `check-config`
//! and `serve` refuse a placeholder anywhere, and an example's test secret
//! on any address but a loopback one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A secret as a doc or example prints it: the file, the key, the value.
#[derive(Debug)]
struct Printed {
    file: PathBuf,
    key: &'static str,
    value: String,
}

/// The quoted strings of `rest` up to its closing `]` (or the line's end).
fn quoted(rest: &str) -> Vec<String> {
    let rest = rest.split(']').next().unwrap_or(rest);
    rest.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Every secret printed in the README, docs/, examples/ and the compose
/// file, commented-out lines included (they are copied too).
fn printed_secrets() -> Vec<Printed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("docker-compose.yml")];
    for dir in ["docs", "examples"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "md" || x == "toml") {
                files.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let line = line.trim_start_matches(['#', ' ']);
            for key in ["secrets", "signing_secret", "verify_token", "token"] {
                let Some(rest) = line
                    .strip_prefix(key)
                    .and_then(|r| r.trim_start().strip_prefix('='))
                else {
                    continue;
                };
                for value in quoted(rest) {
                    found.push(Printed {
                        file: file.clone(),
                        key,
                        value,
                    });
                }
            }
        }
    }
    found
}

/// A config valid on `listen` but for `secret`, set as `key` says.
fn config_with(dir: &Path, listen: &str, key: &str, secret: &str) -> PathBuf {
    let (mut stripe, mut meta, mut admin, mut signing) = (
        "stripe-secret-of-my-own".to_owned(),
        "verify-token-of-my-own".to_owned(),
        "an-admin-token-of-my-own".to_owned(),
        "whsec_b3duLXNpZ25pbmcta2V5".to_owned(),
    );
    match key {
        "secrets" => stripe = secret.into(),
        "verify_token" => meta = secret.into(),
        "token" => admin = secret.into(),
        "signing_secret" => signing = secret.into(),
        other => panic!("{other}"),
    }
    let text = format!(
        "[server]\nlisten = \"{listen}\"\n\
         [store]\nkind = \"embedded\"\npath = \"{db}\"\n\
         [providers.stripe]\nkind = \"stripe\"\n\
         [providers.stripe.tenants.acme]\nsecrets = [\"{stripe}\"]\n\
         [providers.meta]\nkind = \"meta\"\n\
         [providers.meta.tenants.acme]\nsecrets = [\"meta-app-secret-of-my-own\"]\nverify_token = \"{meta}\"\n\
         [handlers.billing]\nurl = \"http://127.0.0.1:9/billing\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{signing}\"\n\
         [admin]\ntoken = \"{admin}\"\n",
        db = dir.join("h.db").display(),
    );
    let path = dir.join("hookline.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn hookline(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn check(path: &Path) -> (Option<i32>, String) {
    let out = hookline(&["check-config", "--config", path.to_str().unwrap()], &[]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where `key`'s value lands in [`config_with`].
fn config_key(key: &str) -> &'static str {
    match key {
        "secrets" => "providers.stripe.tenants.acme.secrets[0]",
        "verify_token" => "providers.meta.tenants.acme.verify_token",
        "token" => "admin.token",
        _ => "handlers.billing.signing_secret",
    }
}

#[test]
fn every_secret_the_docs_print_is_refused_on_a_public_address() {
    let printed = printed_secrets();
    for needle in ["whsec_current", "whsec_quickstart_test_secret", "whsec_..."] {
        assert!(
            printed.iter().any(|p| p.value == needle),
            "the scan missed {needle}: {printed:?}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    for key in ["secrets", "verify_token", "token", "signing_secret"] {
        // The config is otherwise valid there.
        let own = config_with(dir.path(), "0.0.0.0:8080", key, "a-value-of-my-own-0123");
        let own = match key {
            "signing_secret" => config_with(
                dir.path(),
                "0.0.0.0:8080",
                key,
                "whsec_b3duLXNpZ25pbmcta2V5",
            ),
            _ => own,
        };
        let (code, err) = check(&own);
        assert_eq!(code, Some(0), "{key}: {err}");
    }
    for p in &printed {
        let path = config_with(dir.path(), "0.0.0.0:8080", p.key, &p.value);
        let (code, err) = check(&path);
        assert_eq!(
            code,
            Some(1),
            "{} prints {p:?}, accepted on 0.0.0.0",
            p.file.display()
        );
        assert!(err.contains(config_key(p.key)), "{p:?}:\n{err}");
        assert!(
            !err.contains(&p.value) || p.value.len() < 4,
            "the secret is echoed: {err}"
        );
    }
}

#[test]
fn a_placeholder_is_refused_even_on_loopback_and_an_example_secret_only_off_it() {
    let dir = tempfile::tempdir().unwrap();
    let placeholder = config_with(
        dir.path(),
        "127.0.0.1:8080",
        "token",
        "change-me-to-a-long-random-token",
    );
    let (code, err) = check(&placeholder);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("admin.token: is a placeholder"), "{err}");
    // `serve` refuses it the same way, before it listens.
    let out = hookline(
        &["serve", "--config", placeholder.to_str().unwrap()],
        &[("HOOKLINE__SERVER__LISTEN", "127.0.0.1:0")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("admin.token: is a placeholder"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let example = config_with(
        dir.path(),
        "127.0.0.1:8080",
        "secrets",
        "whsec_quickstart_test_secret",
    );
    assert_eq!(
        check(&example).0,
        Some(0),
        "trying the quickstart out on loopback"
    );
    let example = config_with(
        dir.path(),
        "[::1]:8080",
        "secrets",
        "whsec_quickstart_test_secret",
    );
    assert_eq!(check(&example).0, Some(0), "IPv6 loopback");
    let example = config_with(
        dir.path(),
        "10.0.0.5:8080",
        "secrets",
        "whsec_quickstart_test_secret",
    );
    let (code, err) = check(&example);
    assert_eq!(code, Some(1));
    assert!(err.contains("providers.stripe.tenants.acme.secrets[0]: is a test secret printed in hookline's examples"), "{err}");
}

#[test]
fn a_placeholder_from_the_environment_is_refused() {
    // What the compose file once fell back to when no variable was set.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hookline.toml");
    std::fs::write(
        &path,
        format!(
            "[store]\nkind = \"embedded\"\npath = \"{}\"\n[providers.stripe]\nkind = \"stripe\"\n\
             [providers.stripe.tenants.default]\nsecrets_env = [\"STRIPE_WEBHOOK_SECRET\"]\n",
            dir.path().join("h.db").display()
        ),
    )
    .unwrap();
    let out = hookline(
        &["check-config", "--config", path.to_str().unwrap()],
        &[("STRIPE_WEBHOOK_SECRET", "whsec_replace_me")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("providers.stripe.tenants.default.secrets_env ($STRIPE_WEBHOOK_SECRET): is a placeholder"),
        "{err}"
    );
}
