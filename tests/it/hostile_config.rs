//! Issue 24, what `hookline check-config` now refuses, each named by its
//! key: an Ed25519 public key that is a small-order point (the identity
//! among them: signatures "verify" under it that no private key made), and
//! the new `[server]` limits out of range.

use std::process::Command;

fn check_config(text: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hookline.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config", path.to_str().unwrap()])
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .expect("run hookline");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn discord_with(keys: &[String]) -> String {
    let secrets: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    format!(
        "[store]\nkind = \"embedded\"\npath = \"x.db\"\n\
         [providers.discord]\nkind = \"discord\"\n\
         [providers.discord.tenants.acme]\nsecrets = [{}]\n",
        secrets.join(", ")
    )
}

#[test]
fn a_small_order_ed25519_key_is_refused() {
    let real = ed25519_dalek::SigningKey::from_bytes(&[7; 32]).verifying_key();
    let real = hex::encode(real.as_bytes());
    let (code, stderr) = check_config(&discord_with(std::slice::from_ref(&real)));
    assert_eq!(code, Some(0), "{stderr}");

    // The identity (y = 1) and a point of order 4 (y = 0), both valid
    // encodings of points on the curve.
    let identity = format!("01{}", "00".repeat(31));
    let order_four = "00".repeat(32);
    let (code, stderr) = check_config(&discord_with(&[real, identity, order_four]));
    assert_eq!(code, Some(1), "{stderr}");
    for key in [
        "providers.discord.tenants.acme.secrets[1]",
        "providers.discord.tenants.acme.secrets[2]",
    ] {
        let line = stderr
            .lines()
            .find(|l| l.contains(key))
            .unwrap_or_else(|| panic!("no issue for {key}:\n{stderr}"));
        assert!(line.contains("weak Ed25519 public key"), "{line}");
    }
    assert!(!stderr.contains("secrets[0]"), "{stderr}");
}

/// A valid configuration with `server` as its `[server]` table.
fn with_server(server: &str) -> String {
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]).verifying_key();
    format!(
        "[server]\n{server}\n{}",
        discord_with(&[hex::encode(key.as_bytes())])
    )
}

#[test]
fn server_limits_out_of_range_are_named() {
    let (code, stderr) = check_config(&with_server(
        "max_connections = 0\nmax_tls_handshakes = 0\nbacklog = 0\n\
         tls_handshake_timeout = \"0s\"\nmax_body_bytes = 1000\nmax_buffered_bytes = 10000\n\
         max_buffered_bytes_per_peer = 999",
    ));
    assert_eq!(code, Some(1), "{stderr}");
    for key in [
        "server.max_connections",
        "server.max_tls_handshakes",
        "server.backlog",
        "server.tls_handshake_timeout",
        "server.max_buffered_bytes_per_peer",
    ] {
        assert!(stderr.contains(&format!("{key}: ")), "{key}:\n{stderr}");
    }
    let (code, stderr) = check_config(&with_server(
        "max_body_bytes = 1000\nmax_buffered_bytes = 10000\nmax_buffered_bytes_per_peer = 10001",
    ));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("server.max_buffered_bytes_per_peer"),
        "{stderr}"
    );
    let (code, stderr) = check_config(&with_server(
        "max_tls_handshakes = 64\ntls_handshake_timeout = \"500ms\"\nbacklog = 128\n\
         max_connections = 1000\nmax_buffered_bytes_per_peer = 1048576",
    ));
    assert_eq!(code, Some(0), "{stderr}");
}
