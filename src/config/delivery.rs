//! `[delivery]`: how the workers deliver to handlers.

use std::time::Duration;

use serde::Deserialize;

use super::issues::ConfigIssue;

/// `[delivery]`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default)]
pub struct DeliverySettings {
    /// Deliveries in flight at once, per worker process; at least 1.
    /// Default 16.
    pub concurrency: u32,
    /// How often an idle worker looks for due deliveries. Default `250ms`.
    #[serde(with = "humantime_serde")]
    pub poll_interval: Duration,
    /// How long a worker holds a delivery; above every handler timeout. A
    /// worker that dies loses its leases after this long. Default `60s`.
    #[serde(with = "humantime_serde")]
    pub lease: Duration,
    /// Upper bound of the first retry delay (it doubles per attempt, with
    /// full jitter); positive. Default `1s`.
    #[serde(with = "humantime_serde")]
    pub backoff_base: Duration,
    /// Longest retry delay, and the clamp on a handler's `Retry-After`;
    /// at least `backoff_base`; taken as 100 years when longer
    /// (`policy::LONGEST_DELAY`). Default `1h`.
    #[serde(with = "humantime_serde")]
    pub backoff_max: Duration,
    /// Failed attempts in a row (no answer, a timeout, 408, 429 or 5xx)
    /// that open a handler's circuit: its deliveries stay queued and it is
    /// not called until `circuit_cooldown` has passed. At least 1.
    /// Default 5.
    pub circuit_failures: u32,
    /// How long an open circuit waits before one probing attempt; it
    /// doubles each time the probe fails, up to 5 minutes. Positive.
    /// Default `5s`.
    #[serde(with = "humantime_serde")]
    pub circuit_cooldown: Duration,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            concurrency: 16,
            poll_interval: Duration::from_millis(250),
            lease: Duration::from_secs(60),
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(3600),
            circuit_failures: 5,
            circuit_cooldown: Duration::from_secs(5),
        }
    }
}

impl DeliverySettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        if self.concurrency == 0 {
            issues.push(ConfigIssue::new(
                "delivery.concurrency",
                "must be at least 1",
            ));
        }
        if self.backoff_base.is_zero() {
            issues.push(ConfigIssue::new(
                "delivery.backoff_base",
                "must be positive",
            ));
        }
        if self.circuit_failures == 0 {
            issues.push(ConfigIssue::new(
                "delivery.circuit_failures",
                "must be at least 1",
            ));
        }
        if self.circuit_cooldown.is_zero() {
            issues.push(ConfigIssue::new(
                "delivery.circuit_cooldown",
                "must be positive",
            ));
        }
        if self.lease.is_zero() {
            issues.push(ConfigIssue::new("delivery.lease", "must be positive"));
        }
        issues
    }
}
