//! What a configuration check reports: one [`ConfigIssue`] per problem
//! (key and reason), all of them together in a [`ConfigError`] that names
//! the file. Reasons never contain a secret.

use std::fmt;

/// One problem found in the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// The key, as it would be written in TOML (`providers.stripe.tolerance`,
    /// `providers."..".tenants`, `handlers.billing.events[1]`).
    pub key: String,
    pub reason: String,
}

impl ConfigIssue {
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigIssue {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Every problem found, with the file they were found in.
#[derive(Debug, thiserror::Error)]
pub struct ConfigError {
    pub file: String,
    pub issues: Vec<ConfigIssue>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {}",
            self.file,
            crate::text::plural(
                self.issues.len() as u64,
                "configuration error",
                "configuration errors"
            )
        )?;
        for i in &self.issues {
            writeln!(f, "  {}: {}: {}", self.file, i.key, i.reason)?;
        }
        Ok(())
    }
}

/// `parent.part`, with `part` quoted when it is not a bare TOML key (so a
/// name such as `..` or `acme.eu` reads back as the one key it is).
pub fn key(parent: &str, part: &str) -> String {
    let bare = !part.is_empty()
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let part = if bare {
        part.to_owned()
    } else {
        format!("{part:?}")
    };
    if parent.is_empty() {
        part
    } else {
        format!("{parent}.{part}")
    }
}

/// Whether `inner` is `outer` or a key inside it (`outer.x`, `outer[0]`).
pub fn is_within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}
