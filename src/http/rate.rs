//! Ingest rate limits: a token bucket per provider+tenant
//! (`providers.NAME.rate_limit`, `rate_burst`), checked before the body is
//! read, so one noisy tenant is answered 429 + `Retry-After` while the
//! others go on.
//!
//! The buckets are made once, for the configured tenants only: a request
//! naming anything else was refused as unknown before it gets here, so no
//! request can grow this table.

use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use crate::config::{Rate, Settings};
use crate::ids::{ProviderName, TenantName};

/// Every configured provider+tenant that has a rate limit, and its bucket.
#[derive(Default)]
pub struct RateLimits {
    buckets: BTreeMap<ProviderName, BTreeMap<TenantName, DefaultDirectRateLimiter>>,
    clock: DefaultClock,
}

impl RateLimits {
    pub fn new(settings: &Settings) -> Self {
        let mut buckets = BTreeMap::new();
        for (name, provider) in &settings.providers {
            let Some(rate) = provider.rate() else {
                continue;
            };
            // Each tenant has a bucket of its own, so tenants of one
            // provider cannot starve each other.
            let per_tenant = provider
                .tenants
                .keys()
                .map(|tenant| (tenant.clone(), RateLimiter::direct(quota(rate))))
                .collect();
            buckets.insert(name.clone(), per_tenant);
        }
        RateLimits {
            buckets,
            clock: DefaultClock::default(),
        }
    }

    /// Take one request from the bucket; `Err` says how long until one is
    /// available.
    pub fn check(&self, provider: &str, tenant: &str) -> Result<(), Duration> {
        let Some(bucket) = self.buckets.get(provider).and_then(|t| t.get(tenant)) else {
            return Ok(());
        };
        bucket
            .check()
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

/// `count` per `per`, with `burst` requests at once.
fn quota(rate: Rate) -> Quota {
    let burst = NonZeroU32::new(rate.burst).unwrap_or(NonZeroU32::MIN);
    // One token every `per / count`. A rate so high that the interval
    // rounds to zero nanoseconds limits nothing a server can reach.
    Quota::with_period(rate.limit.per / rate.limit.count)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(burst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(extra: &str) -> RateLimits {
        let text = format!(
            "[store]\nkind = \"embedded\"\npath = \"x.db\"\n\
             [providers.stripe]\nkind = \"stripe\"\n{extra}\n\
             [providers.stripe.tenants.acme]\nsecrets = [\"s\"]\n\
             [providers.stripe.tenants.globex]\nsecrets = [\"s\"]\n\
             [providers.github]\nkind = \"github\"\n\
             [providers.github.tenants.acme]\nsecrets = [\"s\"]\n"
        );
        RateLimits::new(&crate::config::from_toml_str("t.toml", &text).unwrap())
    }

    #[test]
    fn a_burst_is_allowed_then_each_tenant_waits_on_its_own() {
        let l = limits("rate_limit = \"1/h\"\nrate_burst = 2");
        assert!(l.check("stripe", "acme").is_ok());
        assert!(l.check("stripe", "acme").is_ok());
        let wait = l.check("stripe", "acme").unwrap_err();
        assert!(wait > Duration::from_secs(3500), "{wait:?}");
        assert!(l.check("stripe", "globex").is_ok(), "another tenant");
        for _ in 0..10 {
            assert!(l.check("github", "acme").is_ok(), "no limit set");
        }
    }
}
