//! `[admin]`: the admin API.

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::issues::ConfigIssue;

/// The shortest admin token accepted: a bearer token guessable in fewer
/// tries would guard re-delivery of any event.
const MIN_TOKEN_LEN: usize = 16;

/// `[admin]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AdminSettings {
    /// Bearer token for `/admin`, at least 16 characters; the admin API is
    /// off without it. Default none.
    pub token: Option<SecretString>,
}

impl AdminSettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        match &self.token {
            Some(t) if t.expose_secret().len() < MIN_TOKEN_LEN => vec![ConfigIssue::new(
                "admin.token",
                format!("must be at least {MIN_TOKEN_LEN} characters"),
            )],
            _ => Vec::new(),
        }
    }
}
