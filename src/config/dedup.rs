//! `[dedup]`: how long claims and completed keys live.

use std::time::Duration;

use serde::Deserialize;

use super::issues::ConfigIssue;

/// `[dedup]`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default)]
pub struct DedupSettings {
    /// How long a claim may stay IN_PROGRESS before another request may
    /// take it (a crashed owner's claim expires). Default `60s`.
    #[serde(with = "humantime_serde")]
    pub in_progress_ttl: Duration,
    /// How long a completed key suppresses duplicates (the correctness
    /// window); at least `in_progress_ttl`. Default `7d`.
    #[serde(with = "humantime_serde")]
    pub window: Duration,
}

impl Default for DedupSettings {
    fn default() -> Self {
        DedupSettings {
            in_progress_ttl: Duration::from_secs(60),
            window: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

impl DedupSettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        if self.in_progress_ttl < Duration::from_millis(1) {
            issues.push(ConfigIssue::new(
                "dedup.in_progress_ttl",
                "must be at least 1ms",
            ));
        }
        if self.window < self.in_progress_ttl {
            issues.push(ConfigIssue::new(
                "dedup.window",
                "must be at least dedup.in_progress_ttl",
            ));
        }
        issues
    }
}
