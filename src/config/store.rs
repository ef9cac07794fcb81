//! `[store]`: where dedup keys, durable records and deliveries live. One
//! variant per backend, chosen by `kind`, so a redis store without its
//! PostgreSQL URL cannot exist as a value.

use std::path::PathBuf;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

use super::issues::ConfigIssue;
use crate::ids::KeyPrefix;

/// `[store]`, by `kind`.
///
/// In the file it is a table with `kind = "embedded" | "redis"`; loading
/// turns `kind` into serde's external tag before deserializing (see
/// `parse::tag_store_kind`), because an internally tagged enum buffers its
/// content and would lose the key path of every error inside it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreSettings {
    /// One SQLite file holds everything: a single node, no services.
    Embedded(EmbeddedStoreSettings),
    /// Dedup keys in Redis (or Redis Cluster), durable records and
    /// deliveries in PostgreSQL.
    Redis(RedisStoreSettings),
}

/// `kind = "embedded"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct EmbeddedStoreSettings {
    /// The SQLite file, created with its directory if missing. Default
    /// `data/hookline.db`.
    pub path: PathBuf,
    /// Upper bound on any single store operation; past it the request gets
    /// 503. Default `2s`.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
}

impl Default for EmbeddedStoreSettings {
    fn default() -> Self {
        EmbeddedStoreSettings {
            path: PathBuf::from("data/hookline.db"),
            timeout: default_timeout(),
        }
    }
}

/// `kind = "redis"`.
#[derive(Debug, Clone, Deserialize)]
pub struct RedisStoreSettings {
    /// `redis://host:port/db` (`rediss://` for TLS, `redis+cluster://host:port`
    /// for a cluster). Set this or `redis_cluster`.
    #[serde(default)]
    pub redis_url: Option<SecretString>,
    /// Redis Cluster seed node URLs, instead of `redis_url`.
    #[serde(default)]
    pub redis_cluster: Vec<SecretString>,
    /// Prefix of every Redis key. Default `hookline`.
    #[serde(default = "default_prefix")]
    pub key_prefix: KeyPrefix,
    /// PostgreSQL (`postgres://...`): `processed_event`, quarantined
    /// conflicts and deliveries. Required.
    pub database_url: SecretString,
    /// Upper bound on any single store operation; past it the request gets
    /// 503. Default `2s`.
    #[serde(default = "default_timeout", with = "humantime_serde")]
    pub timeout: Duration,
    /// PostgreSQL connections in the pool. Default 16.
    #[serde(default = "default_pool_size")]
    pub pool_size: u32,
    /// Group-committed PostgreSQL statements in flight at once, per kind of
    /// receiver write (critical rows, deliveries); 3 x this must stay below
    /// `pool_size`. Default 1.
    #[serde(default = "default_write_concurrency")]
    pub write_concurrency: u32,
    /// `[tls] ca_file`, copied here when the settings are resolved: extra
    /// roots for PostgreSQL (unless its URL names `sslrootcert`) and Redis
    /// over TLS. Derived.
    #[serde(skip)]
    pub ca_file: Option<std::path::PathBuf>,
    /// Where the deliveries of non-critical events wait for their
    /// handlers: `"postgres"` (the default: rows, like a critical event's)
    /// or `"redis"` (a Redis Stream per provider, tenant and handler,
    /// written by the script that completes the dedup key: no PostgreSQL
    /// on their hot path; `docs/redis-store.md`, "Non-critical deliveries
    /// in Redis").
    #[serde(default)]
    pub non_critical_deliveries: DeliveryHome,
}

/// `store.non_critical_deliveries`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryHome {
    #[default]
    Postgres,
    Redis,
}

fn default_timeout() -> Duration {
    Duration::from_secs(2)
}
fn default_prefix() -> KeyPrefix {
    KeyPrefix::parse("hookline").expect("a plain name")
}
fn default_pool_size() -> u32 {
    16
}
fn default_write_concurrency() -> u32 {
    1
}

impl StoreSettings {
    /// Upper bound on any single store operation.
    pub fn timeout(&self) -> Duration {
        match self {
            StoreSettings::Embedded(s) => s.timeout,
            StoreSettings::Redis(s) => s.timeout,
        }
    }

    /// The redis store's settings, if that is the kind.
    pub fn redis(&self) -> Option<&RedisStoreSettings> {
        match self {
            StoreSettings::Redis(s) => Some(s),
            StoreSettings::Embedded(_) => None,
        }
    }

    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        if self.timeout().is_zero() {
            issues.push(ConfigIssue::new("store.timeout", "must be positive"));
        }
        if let StoreSettings::Redis(s) = self {
            issues.extend(s.check());
        }
        issues
    }
}

impl RedisStoreSettings {
    fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        const REDIS: &[&str] = &["redis", "rediss", "redis+cluster", "rediss+cluster"];
        if let Some(url) = &self.redis_url {
            issues.extend(url_issue("store.redis_url", url, REDIS));
        }
        for (i, url) in self.redis_cluster.iter().enumerate() {
            issues.extend(url_issue(
                &format!("store.redis_cluster[{i}]"),
                url,
                &["redis", "rediss"],
            ));
        }
        issues.extend(url_issue(
            "store.database_url",
            &self.database_url,
            &["postgres", "postgresql"],
        ));
        if self.pool_size == 0 {
            issues.push(ConfigIssue::new("store.pool_size", "must be at least 1"));
        }
        if self.write_concurrency == 0 {
            issues.push(ConfigIssue::new(
                "store.write_concurrency",
                "must be at least 1",
            ));
        }
        issues
    }
}

/// A URL that may carry a password: the reason never repeats it.
fn url_issue(key: &str, url: &SecretString, schemes: &[&str]) -> Option<ConfigIssue> {
    let reason = match url::Url::parse(url.expose_secret()) {
        Ok(u) if schemes.contains(&u.scheme()) => return None,
        Ok(_) => format!("the URL's scheme must be one of {}", schemes.join(", ")),
        Err(e) => format!("not a URL: {e}"),
    };
    Some(ConfigIssue::new(key, reason))
}
