//! Secrets hookline's own README, docs and examples print. Anyone who read
//! them can sign with them, so a receiver that accepts one accepts forged
//! events (a compose file that fell back to `whsec_replace_me` did).
//!
//! - A placeholder (a value written to be replaced) is refused wherever it
//!   appears.
//! - An example's test secret (the quickstart's) is accepted only while the
//!   receiver listens on a loopback address, where trying the examples out
//!   is all anyone can do with it; on any other address it is refused.
//!
//! `tests/it/published_secrets.rs` reads the docs and examples and fails if
//! one prints a secret this list does not refuse.

use secrecy::ExposeSecret;

use super::declared::Declared;
use super::issues::{key, ConfigIssue};
use super::Settings;

/// Values written to be replaced.
const PLACEHOLDERS: &[&str] = &[
    "whsec_replace_me",
    "change-me-to-a-long-random-token",
    "whsec_current",
    "whsec_previous",
    "whsec_...",
    "...",
    "app secret",
];

/// The runnable examples' test secrets.
const EXAMPLE_SECRETS: &[&str] = &[
    "whsec_quickstart_test_secret",
    "quickstart-github-secret",
    "whsec_example_test_secret",
    "whsec_example_acme",
    "example-github-secret",
    "whsec_YmlsbGluZy1zaWduaW5nLWtleQ==",
    "whsec_Y2ktc2lnbmluZy1rZXk=",
];

/// Why `secret` must not be used here, if it must not.
fn refusal(secret: &str, loopback: bool) -> Option<&'static str> {
    let secret = secret.trim();
    if PLACEHOLDERS.contains(&secret) {
        return Some("is a placeholder printed in hookline's docs: anyone can sign with it; set a secret of your own");
    }
    if !loopback && EXAMPLE_SECRETS.contains(&secret) {
        return Some("is a test secret printed in hookline's examples: anyone can sign with it, so it is accepted only while server.listen is a loopback address; set a secret of your own");
    }
    None
}

/// Every configured secret that hookline's docs print.
pub(super) fn no_published_secret(s: &Settings, _: &Declared) -> Vec<ConfigIssue> {
    let loopback = s.server.listen.is_loopback();
    let mut issues = Vec::new();
    let mut check = |at: String, secret: &str| {
        if let Some(reason) = refusal(secret, loopback) {
            issues.push(ConfigIssue::new(at, reason));
        }
    };
    if let Some(token) = &s.admin.token {
        check("admin.token".into(), token.expose_secret());
    }
    for (pname, p) in &s.providers {
        for (tname, t) in &p.tenants {
            let at = key(&key(&key("providers", pname), "tenants"), tname);
            for (i, secret) in t.secrets.iter().enumerate() {
                check(
                    format!("{}[{i}]", key(&at, "secrets")),
                    secret.expose_secret(),
                );
            }
            for var in &t.secrets_env {
                if let Ok(secret) = std::env::var(var) {
                    check(format!("{} (${var})", key(&at, "secrets_env")), &secret);
                }
            }
            if let Some(token) = &t.verify_token {
                check(key(&at, "verify_token"), token.expose_secret());
            }
        }
    }
    // A handler keeps only its decoded key: compare it with each published
    // secret decoded the same way.
    for (hname, h) in &s.handlers {
        // Broker handlers may have no signing secret.
        let Some(bytes) = h.signing_key.as_ref().and_then(|k| k.shared_bytes()) else {
            continue;
        };
        let published = PLACEHOLDERS.iter().chain(EXAMPLE_SECRETS).find(|p| {
            crate::provider::decode_signing_secret(p)
                .ok()
                .and_then(|k| k.shared_bytes().map(|b| b == bytes))
                .unwrap_or(false)
        });
        if let Some(p) = published {
            check(key(&key("handlers", hname), "signing_secret"), p);
        }
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_refused_anywhere_and_examples_off_loopback() {
        assert!(refusal("whsec_replace_me", true).is_some());
        assert!(refusal(" change-me-to-a-long-random-token ", true).is_some());
        assert!(refusal("whsec_quickstart_test_secret", true).is_none());
        assert!(refusal("whsec_quickstart_test_secret", false).is_some());
        assert!(refusal("a-secret-of-my-own", false).is_none());
    }
}
