//! `[alerts]`: rules on the queue and the circuits, and the URL their
//! alerts are POSTed to (Slack-compatible JSON).

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::issues::ConfigIssue;

/// `[alerts]`; absent, no alert is sent.
#[derive(Debug, Clone, Deserialize)]
pub struct AlertSettings {
    /// Where each alert and each resolve is POSTed as JSON (Slack's `text`
    /// field plus `rule`, `handler`, `value`, `threshold`, `state`,
    /// `console`): a Slack incoming webhook or any receiver. A secret (a
    /// Slack URL carries its token): never logged. Required in the section.
    pub url: SecretString,
    /// Alert when a handler's dead letters grow by at least this many
    /// within `every`. Default none (rule off).
    #[serde(default)]
    pub dead_letters: Option<u64>,
    /// Alert when a handler's circuit stays open this long on a node.
    /// Default none (rule off).
    #[serde(default, with = "humantime_serde")]
    pub circuit_open: Option<Duration>,
    /// Alert when a handler's oldest pending delivery is older than this.
    /// Default none (rule off).
    #[serde(default, with = "humantime_serde")]
    pub backlog_age: Option<Duration>,
    /// At most one alert per rule and handler per period, across every
    /// node sharing the store; also the window `dead_letters` counts in.
    /// Default `5m`.
    #[serde(default = "default_every", with = "humantime_serde")]
    pub every: Duration,
    /// How often the rules are checked. Default `15s`.
    #[serde(default = "default_check_interval", with = "humantime_serde")]
    pub check_interval: Duration,
}

fn default_every() -> Duration {
    Duration::from_secs(300)
}

fn default_check_interval() -> Duration {
    Duration::from_secs(15)
}

impl AlertSettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        match url::Url::parse(self.url.expose_secret()) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => {}
            // The reason only: the value may carry a token.
            _ => issues.push(ConfigIssue::new(
                "alerts.url",
                "must be an http:// or https:// URL",
            )),
        }
        if self.dead_letters == Some(0) {
            issues.push(ConfigIssue::new(
                "alerts.dead_letters",
                "must be at least 1",
            ));
        }
        for (key, d) in [
            ("alerts.circuit_open", self.circuit_open),
            ("alerts.backlog_age", self.backlog_age),
            ("alerts.every", Some(self.every)),
            ("alerts.check_interval", Some(self.check_interval)),
        ] {
            if d == Some(Duration::ZERO) {
                issues.push(ConfigIssue::new(key, "must be positive"));
            }
        }
        if self.dead_letters.is_none() && self.circuit_open.is_none() && self.backlog_age.is_none()
        {
            issues.push(ConfigIssue::new(
                "alerts",
                "names no rule: set dead_letters, circuit_open or backlog_age",
            ));
        }
        issues
    }
}
