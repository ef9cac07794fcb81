//! Configuration: TOML read with the `config` crate, `HOOKLINE__SECTION__KEY`
//! environment overrides, validated once at start-up into [`Settings`].
//!
//! Validation collects every problem (file, key, reason) instead of stopping
//! at the first, and never puts a secret into an error or `Debug` output.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use globset::{Glob, GlobSet, GlobSetBuilder};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::provider::{Definitions, Key, ProviderDef};

/// The tenant used by `POST /webhooks/{provider}`.
pub const DEFAULT_TENANT: &str = "default";

/// One problem found in the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    pub key: String,
    pub reason: String,
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
            "{}: {} configuration error(s)",
            self.file,
            self.issues.len()
        )?;
        for i in &self.issues {
            writeln!(f, "  {}: {}: {}", self.file, i.key, i.reason)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The file's shape. Every field is documented where it is declared.
// ---------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    /// Address to listen on; `127.0.0.1:0` picks a free port.
    #[serde(default = "default_listen")]
    listen: String,
    /// Largest request body accepted; larger ones get 413 before being read.
    #[serde(default = "default_max_body")]
    max_body_bytes: usize,
    /// How long `serve` waits for in-flight requests on shutdown.
    #[serde(default = "default_shutdown", with = "humantime_serde")]
    shutdown_timeout: Duration,
}

fn default_listen() -> String {
    "127.0.0.1:8080".into()
}
fn default_max_body() -> usize {
    1024 * 1024
}
fn default_shutdown() -> Duration {
    Duration::from_secs(30)
}

impl Default for RawServer {
    fn default() -> Self {
        RawServer {
            listen: default_listen(),
            max_body_bytes: default_max_body(),
            shutdown_timeout: default_shutdown(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStore {
    /// `embedded` (one SQLite file, no services) or `redis` (Redis + PostgreSQL).
    kind: String,
    /// Embedded only: the SQLite file, created if missing.
    #[serde(default)]
    path: Option<PathBuf>,
    /// Redis: `redis://host:port/db` (or `redis+cluster://host:port` for a cluster).
    #[serde(default)]
    redis_url: Option<SecretString>,
    /// Redis Cluster: seed node URLs (instead of `redis_url`).
    #[serde(default)]
    redis_cluster: Vec<SecretString>,
    /// Prefix of every Redis key (and a namespace for embedded state).
    #[serde(default = "default_prefix")]
    key_prefix: String,
    /// PostgreSQL: holds `processed_event`, quarantined conflicts and deliveries.
    #[serde(default)]
    database_url: Option<SecretString>,
    /// Upper bound on any single store operation; past it the request gets 503.
    #[serde(default = "default_store_timeout", with = "humantime_serde")]
    timeout: Duration,
    /// Connections per pool.
    #[serde(default = "default_pool_size")]
    pool_size: u32,
    /// Redis store: group-committed PostgreSQL statements in flight at once,
    /// per kind of receiver write (critical rows, deliveries).
    #[serde(default = "default_write_concurrency")]
    write_concurrency: u32,
}

fn default_prefix() -> String {
    "hookline".into()
}
fn default_store_timeout() -> Duration {
    Duration::from_secs(2)
}
fn default_pool_size() -> u32 {
    16
}
fn default_write_concurrency() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDedup {
    /// How long a claim may stay IN_PROGRESS before another request may take it.
    #[serde(default = "default_in_progress", with = "humantime_serde")]
    in_progress_ttl: Duration,
    /// How long a completed key suppresses duplicates (the correctness window).
    #[serde(default = "default_window", with = "humantime_serde")]
    window: Duration,
}

fn default_in_progress() -> Duration {
    Duration::from_secs(60)
}
fn default_window() -> Duration {
    Duration::from_secs(7 * 24 * 3600)
}

impl Default for RawDedup {
    fn default() -> Self {
        RawDedup {
            in_progress_ttl: default_in_progress(),
            window: default_window(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    /// A definition from `providers/` (or the definitions directory).
    kind: String,
    /// Largest accepted distance between a signed timestamp and now, either way.
    #[serde(default = "default_tolerance", with = "humantime_serde")]
    tolerance: Duration,
    /// Overrides `dedup.window` for this provider.
    #[serde(default, with = "humantime_serde")]
    window: Option<Duration>,
    /// Event-type globs whose events are persisted to `processed_event`.
    #[serde(default)]
    critical: Vec<String>,
    /// `durable` or `handlers`.
    #[serde(default)]
    ack: AckMode,
    /// `ack = "handlers"`: how long to wait for every handler's
    /// acknowledgement before answering 503 (keep it under the provider's
    /// own timeout, e.g. 10 s for GitHub).
    #[serde(default = "default_ack_timeout", with = "humantime_serde")]
    ack_timeout: Duration,
    /// Tenants by name; each with its own secrets.
    #[serde(default)]
    tenants: BTreeMap<String, RawTenant>,
}

fn default_ack_timeout() -> Duration {
    Duration::from_secs(8)
}

fn default_tolerance() -> Duration {
    Duration::from_secs(300)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTenant {
    /// Secrets, any one of which verifies (rotation).
    #[serde(default)]
    secrets: Vec<SecretString>,
    /// Names of environment variables holding secrets.
    #[serde(default)]
    secrets_env: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHandler {
    /// Where deliveries are POSTed.
    url: String,
    /// `provider:event-type` globs (`stripe:payment_intent.*`, `github:*`).
    events: Vec<String>,
    /// Tenant globs.
    #[serde(default = "star")]
    tenants: Vec<String>,
    /// Per-attempt timeout.
    #[serde(default = "default_handler_timeout", with = "humantime_serde")]
    timeout: Duration,
    /// Attempts before the delivery is dead-lettered.
    #[serde(default = "default_max_attempts")]
    max_attempts: u32,
    /// Standard Webhooks secret (`whsec_...`) deliveries are signed with.
    signing_secret: SecretString,
    /// Dead-letter a delivery still failing this long after the event.
    #[serde(default, with = "humantime_serde")]
    max_age: Option<Duration>,
}

fn star() -> Vec<String> {
    vec!["*".into()]
}
fn default_handler_timeout() -> Duration {
    Duration::from_secs(10)
}
fn default_max_attempts() -> u32 {
    12
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDelivery {
    /// Deliveries in flight at once, per worker process.
    #[serde(default = "default_concurrency")]
    concurrency: u32,
    /// How often an idle worker looks for due deliveries.
    #[serde(default = "default_poll", with = "humantime_serde")]
    poll_interval: Duration,
    /// How long a worker holds a delivery; must exceed every handler timeout.
    /// A worker that dies loses its leases after this long.
    #[serde(default = "default_lease", with = "humantime_serde")]
    lease: Duration,
    /// Upper bound of the first retry delay (it doubles per attempt, with
    /// full jitter).
    #[serde(default = "default_backoff_base", with = "humantime_serde")]
    backoff_base: Duration,
    /// Longest retry delay, and the clamp on a handler's `Retry-After`.
    #[serde(default = "default_backoff_max", with = "humantime_serde")]
    backoff_max: Duration,
}

fn default_concurrency() -> u32 {
    16
}
fn default_poll() -> Duration {
    Duration::from_millis(250)
}
fn default_lease() -> Duration {
    Duration::from_secs(60)
}
fn default_backoff_base() -> Duration {
    Duration::from_secs(1)
}
fn default_backoff_max() -> Duration {
    Duration::from_secs(3600)
}

impl Default for RawDelivery {
    fn default() -> Self {
        RawDelivery {
            concurrency: default_concurrency(),
            poll_interval: default_poll(),
            lease: default_lease(),
            backoff_base: default_backoff_base(),
            backoff_max: default_backoff_max(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCapture {
    /// Directory verified requests are written to, one JSON file each.
    dir: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdmin {
    /// Bearer token for `/admin`; the admin API is off without it.
    #[serde(default)]
    token: Option<SecretString>,
}

// ---------------------------------------------------------------------------
// Validated settings.
// ---------------------------------------------------------------------------

/// When the provider gets its 2xx.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AckMode {
    /// Once the event and its pending deliveries are recorded durably.
    #[default]
    Durable,
    /// Once every matching handler has acknowledged.
    Handlers,
}

impl AckMode {
    pub fn as_str(self) -> &'static str {
        match self {
            AckMode::Durable => "durable",
            AckMode::Handlers => "handlers",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Embedded,
    Redis,
}

/// Validated configuration.
#[derive(Debug)]
pub struct Settings {
    pub source: String,
    pub server: ServerSettings,
    pub store: StoreSettings,
    pub dedup: DedupSettings,
    pub providers: BTreeMap<String, Arc<Provider>>,
    pub handlers: BTreeMap<String, Arc<Handler>>,
    pub delivery: DeliverySettings,
    pub capture_dir: Option<PathBuf>,
    pub admin_token: Option<SecretString>,
    pub definitions: Definitions,
}

/// How workers deliver.
#[derive(Debug, Clone, Copy)]
pub struct DeliverySettings {
    pub concurrency: u32,
    pub poll_interval: Duration,
    pub lease: Duration,
    pub backoff: crate::delivery::policy::Backoff,
}

#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub listen: String,
    pub max_body_bytes: usize,
    pub shutdown_timeout: Duration,
}

#[derive(Debug, Clone)]
pub struct StoreSettings {
    pub kind: StoreKind,
    pub path: PathBuf,
    pub redis_url: Option<SecretString>,
    pub redis_cluster: Vec<SecretString>,
    pub key_prefix: String,
    pub database_url: Option<SecretString>,
    pub timeout: Duration,
    pub pool_size: u32,
    pub write_concurrency: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct DedupSettings {
    pub in_progress_ttl: Duration,
    pub window: Duration,
}

/// A configured provider route (`[providers.NAME]`).
#[derive(Debug)]
pub struct Provider {
    pub name: String,
    pub def: Arc<ProviderDef>,
    pub tolerance: Duration,
    pub window: Duration,
    pub critical_patterns: Vec<String>,
    pub critical: GlobSet,
    pub ack: AckMode,
    pub ack_timeout: Duration,
    pub tenants: BTreeMap<String, Tenant>,
}

impl Provider {
    pub fn is_critical(&self, event_type: &str) -> bool {
        self.critical.is_match(event_type)
    }
}

/// A tenant and its decoded signing keys.
#[derive(Debug)]
pub struct Tenant {
    pub name: String,
    pub keys: Vec<Key>,
}

/// A downstream handler.
#[derive(Debug)]
pub struct Handler {
    pub name: String,
    pub url: url::Url,
    pub events_patterns: Vec<String>,
    pub events: GlobSet,
    pub tenants_patterns: Vec<String>,
    pub tenants: GlobSet,
    pub timeout: Duration,
    pub max_attempts: u32,
    pub max_age: Option<Duration>,
    pub signing_key: Key,
}

impl Handler {
    /// Whether this handler wants `event` (`provider:event_type`, prepared
    /// once per request for every handler) from `tenant`.
    pub fn matches_candidate(&self, tenant: &str, event: &globset::Candidate<'_>) -> bool {
        self.tenants.is_match(tenant) && self.events.is_match_candidate(event)
    }
}

/// The handlers that want this event, in name order.
pub fn matching_handlers<'a>(
    handlers: &'a BTreeMap<String, Arc<Handler>>,
    provider: &str,
    tenant: &str,
    event_type: &str,
) -> Vec<&'a str> {
    if handlers.is_empty() {
        return Vec::new();
    }
    let key = format!("{provider}:{event_type}");
    let event = globset::Candidate::new(&key);
    handlers
        .values()
        .filter(|h| h.matches_candidate(tenant, &event))
        .map(|h| h.name.as_str())
        .collect()
}

/// Names are used in URLs, Redis hash tags and file names: keep them plain.
fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

fn glob_set(patterns: &[String], key: &str, issues: &mut Vec<ConfigIssue>) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        match Glob::new(p) {
            Ok(g) => {
                b.add(g);
            }
            Err(e) => issues.push(ConfigIssue {
                key: key.into(),
                reason: format!("bad glob {p:?}: {e}"),
            }),
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Load `path`, apply `HOOKLINE__...` overrides, and validate.
pub fn load(path: &Path) -> Result<Settings, ConfigError> {
    let file = path.display().to_string();
    if !path.is_file() {
        return Err(ConfigError {
            file,
            issues: vec![ConfigIssue {
                key: "-".into(),
                reason: "no such file".into(),
            }],
        });
    }
    build(
        file,
        config::File::from(path).format(config::FileFormat::Toml),
    )
}

/// Validate configuration text (tests, embedded examples); `name` stands in
/// for the file name in errors. Environment overrides apply as for a file.
pub fn from_toml_str(name: &str, text: &str) -> Result<Settings, ConfigError> {
    build(
        name.to_owned(),
        config::File::from_str(text, config::FileFormat::Toml),
    )
}

fn build<S>(file: String, source: S) -> Result<Settings, ConfigError>
where
    S: config::Source + Send + Sync + 'static,
{
    let fail = |key: &str, reason: String| ConfigError {
        file: file.clone(),
        issues: vec![ConfigIssue {
            key: key.into(),
            reason,
        }],
    };
    let cfg = config::Config::builder()
        .add_source(source)
        .add_source(
            config::Environment::with_prefix("HOOKLINE")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true),
        )
        .build()
        .map_err(|e| fail("-", e.to_string()))?;
    validate(file, &cfg)
}

/// Deserialize one section, recording the problem instead of failing.
fn section<T: DeserializeOwned>(
    cfg: &config::Config,
    key: &str,
    issues: &mut Vec<ConfigIssue>,
) -> Option<T> {
    match cfg.get::<T>(key) {
        Ok(v) => Some(v),
        Err(config::ConfigError::NotFound(_)) => None,
        Err(e) => {
            issues.push(ConfigIssue {
                key: key.into(),
                reason: e.to_string(),
            });
            None
        }
    }
}

fn table_entries<T: DeserializeOwned>(
    cfg: &config::Config,
    key: &str,
    issues: &mut Vec<ConfigIssue>,
) -> BTreeMap<String, T> {
    let mut out = BTreeMap::new();
    let table = match cfg.get_table(key) {
        Ok(t) => t,
        Err(config::ConfigError::NotFound(_)) => return out,
        Err(e) => {
            issues.push(ConfigIssue {
                key: key.into(),
                reason: e.to_string(),
            });
            return out;
        }
    };
    for (name, value) in table {
        match value.try_deserialize::<T>() {
            Ok(v) => {
                out.insert(name, v);
            }
            Err(e) => issues.push(ConfigIssue {
                key: format!("{key}.{name}"),
                reason: e.to_string(),
            }),
        }
    }
    out
}

fn validate(file: String, cfg: &config::Config) -> Result<Settings, ConfigError> {
    let mut issues = Vec::new();
    let issue = |issues: &mut Vec<ConfigIssue>, key: String, reason: String| {
        issues.push(ConfigIssue { key, reason })
    };

    const SECTIONS: &[&str] = &[
        "server",
        "store",
        "dedup",
        "providers",
        "handlers",
        "delivery",
        "capture",
        "admin",
        "providers_dir",
    ];
    if let Ok(top) = cfg
        .clone()
        .try_deserialize::<BTreeMap<String, config::Value>>()
    {
        for k in top.keys().filter(|k| !SECTIONS.contains(&k.as_str())) {
            issue(&mut issues, k.clone(), "unknown key".into());
        }
    }

    let server: RawServer = section(cfg, "server", &mut issues).unwrap_or_default();
    if server.max_body_bytes == 0 {
        issue(
            &mut issues,
            "server.max_body_bytes".into(),
            "must be greater than 0".into(),
        );
    }
    let dedup: RawDedup = section(cfg, "dedup", &mut issues).unwrap_or_default();
    if dedup.in_progress_ttl < Duration::from_millis(1) {
        issue(
            &mut issues,
            "dedup.in_progress_ttl".into(),
            "must be positive".into(),
        );
    }
    if dedup.window < dedup.in_progress_ttl {
        issue(
            &mut issues,
            "dedup.window".into(),
            "must be at least dedup.in_progress_ttl".into(),
        );
    }

    let store = match section::<RawStore>(cfg, "store", &mut issues) {
        Some(s) => validate_store(s, &mut issues),
        None => {
            if !issues.iter().any(|i| i.key == "store") {
                issue(
                    &mut issues,
                    "store".into(),
                    "missing section (set store.kind)".into(),
                );
            }
            None
        }
    };

    // Relative paths are relative to the working directory, like every
    // other path a command line is given.
    let providers_dir: Option<PathBuf> = section(cfg, "providers_dir", &mut issues);
    let definitions = match Definitions::load(providers_dir.as_deref()) {
        Ok(d) => d,
        Err(errors) => {
            for e in errors {
                issue(&mut issues, "providers_dir".into(), e.to_string());
            }
            Definitions::load(None).unwrap_or_default()
        }
    };

    let mut providers = BTreeMap::new();
    let raw_providers: BTreeMap<String, RawProvider> = table_entries(cfg, "providers", &mut issues);
    if raw_providers.is_empty() && !issues.iter().any(|i| i.key.starts_with("providers")) {
        issue(
            &mut issues,
            "providers".into(),
            "no provider is configured".into(),
        );
    }
    for (name, raw) in raw_providers {
        let key = format!("providers.{name}");
        if !valid_name(&name) {
            issue(
                &mut issues,
                key.clone(),
                "name may only use letters, digits, '-', '_' and '.'".into(),
            );
        }
        let Some(def) = definitions.get(&raw.kind).cloned() else {
            let known: Vec<_> = definitions.kinds().collect();
            issue(
                &mut issues,
                format!("{key}.kind"),
                format!(
                    "unknown provider kind {:?} (known: {})",
                    raw.kind,
                    known.join(", ")
                ),
            );
            continue;
        };
        let critical = glob_set(&raw.critical, &format!("{key}.critical"), &mut issues);
        if raw.tenants.is_empty() {
            issue(
                &mut issues,
                format!("{key}.tenants"),
                "at least one tenant is required".into(),
            );
        }
        let mut tenants = BTreeMap::new();
        for (tname, t) in raw.tenants {
            let tkey = format!("{key}.tenants.{tname}");
            if !valid_name(&tname) {
                issue(
                    &mut issues,
                    tkey.clone(),
                    "name may only use letters, digits, '-', '_' and '.'".into(),
                );
            }
            let mut keys = Vec::new();
            for (i, s) in t.secrets.iter().enumerate() {
                match def.decode_secret(s.expose_secret()) {
                    Ok(k) => keys.push(k),
                    Err(reason) => issue(
                        &mut issues,
                        format!("{tkey}.secrets[{i}]"),
                        reason.to_string(),
                    ),
                }
            }
            for var in &t.secrets_env {
                match std::env::var(var) {
                    Ok(s) => match def.decode_secret(&s) {
                        Ok(k) => keys.push(k),
                        Err(reason) => issue(
                            &mut issues,
                            format!("{tkey}.secrets_env"),
                            format!("{var}: {reason}"),
                        ),
                    },
                    Err(_) => issue(
                        &mut issues,
                        format!("{tkey}.secrets_env"),
                        format!("environment variable {var} is not set"),
                    ),
                }
            }
            if keys.is_empty() && t.secrets.is_empty() && t.secrets_env.is_empty() {
                issue(
                    &mut issues,
                    tkey.clone(),
                    "no secrets (set secrets or secrets_env)".into(),
                );
            }
            tenants.insert(tname.clone(), Tenant { name: tname, keys });
        }
        if raw.ack == AckMode::Handlers && raw.ack_timeout >= dedup.in_progress_ttl {
            issue(
                &mut issues,
                format!("{key}.ack_timeout"),
                "must be below dedup.in_progress_ttl: the claim must outlive the wait".into(),
            );
        }
        let window = raw.window.unwrap_or(dedup.window);
        if window < dedup.in_progress_ttl {
            issue(
                &mut issues,
                format!("{key}.window"),
                "must be at least dedup.in_progress_ttl".into(),
            );
        }
        providers.insert(
            name.clone(),
            Arc::new(Provider {
                name,
                def,
                tolerance: raw.tolerance,
                window,
                critical_patterns: raw.critical,
                critical,
                ack: raw.ack,
                ack_timeout: raw.ack_timeout,
                tenants,
            }),
        );
    }

    let mut handlers = BTreeMap::new();
    let raw_handlers: BTreeMap<String, RawHandler> = table_entries(cfg, "handlers", &mut issues);
    for (name, raw) in raw_handlers {
        let key = format!("handlers.{name}");
        let url = match url::Url::parse(&raw.url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => Some(u),
            Ok(_) => {
                issue(
                    &mut issues,
                    format!("{key}.url"),
                    "must be an http or https URL".into(),
                );
                None
            }
            Err(e) => {
                issue(&mut issues, format!("{key}.url"), e.to_string());
                None
            }
        };
        for p in &raw.events {
            match p.split_once(':') {
                Some((prov, _)) if prov == "*" || providers.contains_key(prov) => {}
                Some((prov, _)) => issue(
                    &mut issues,
                    format!("{key}.events"),
                    format!("{p:?} names provider {prov:?}, which is not configured"),
                ),
                None => issue(
                    &mut issues,
                    format!("{key}.events"),
                    format!("{p:?} must be provider:event-type"),
                ),
            }
        }
        let events = glob_set(&raw.events, &format!("{key}.events"), &mut issues);
        let tenants = glob_set(&raw.tenants, &format!("{key}.tenants"), &mut issues);
        if raw.max_attempts == 0 {
            issue(
                &mut issues,
                format!("{key}.max_attempts"),
                "must be at least 1".into(),
            );
        }
        let signing_key = match crate::delivery::outbound::decode_signing_secret(
            raw.signing_secret.expose_secret(),
        ) {
            Ok(k) => Some(k),
            Err(reason) => {
                issue(
                    &mut issues,
                    format!("{key}.signing_secret"),
                    reason.to_string(),
                );
                None
            }
        };
        for p in providers.values() {
            if p.ack == AckMode::Handlers && raw.timeout >= dedup.in_progress_ttl {
                issue(
                    &mut issues,
                    format!("{key}.timeout"),
                    format!(
                        "must be below dedup.in_progress_ttl when provider {} uses ack = \"handlers\"",
                        p.name
                    ),
                );
                break;
            }
        }
        if let (Some(url), Some(signing_key)) = (url, signing_key) {
            handlers.insert(
                name.clone(),
                Arc::new(Handler {
                    name,
                    url,
                    events_patterns: raw.events,
                    events,
                    tenants_patterns: raw.tenants,
                    tenants,
                    timeout: raw.timeout,
                    max_attempts: raw.max_attempts,
                    max_age: raw.max_age,
                    signing_key,
                }),
            );
        }
    }

    let delivery: RawDelivery = section(cfg, "delivery", &mut issues).unwrap_or_default();
    if delivery.concurrency == 0 {
        issue(
            &mut issues,
            "delivery.concurrency".into(),
            "must be at least 1".into(),
        );
    }
    if delivery.backoff_base.is_zero() || delivery.backoff_max < delivery.backoff_base {
        issue(
            &mut issues,
            "delivery.backoff_max".into(),
            "backoff_base must be positive and at most backoff_max".into(),
        );
    }
    for h in handlers.values() {
        if h.timeout >= delivery.lease {
            issue(
                &mut issues,
                format!("handlers.{}.timeout", h.name),
                "must be below delivery.lease, or a slow attempt would be delivered twice".into(),
            );
        }
    }

    let capture_dir = section::<RawCapture>(cfg, "capture", &mut issues).map(|c| c.dir);
    let admin_token = section::<RawAdmin>(cfg, "admin", &mut issues).and_then(|a| a.token);
    if admin_token
        .as_ref()
        .is_some_and(|t| t.expose_secret().len() < 16)
    {
        issue(
            &mut issues,
            "admin.token".into(),
            "must be at least 16 characters".into(),
        );
    }

    if !issues.is_empty() {
        return Err(ConfigError { file, issues });
    }
    Ok(Settings {
        source: file,
        server: ServerSettings {
            listen: server.listen,
            max_body_bytes: server.max_body_bytes,
            shutdown_timeout: server.shutdown_timeout,
        },
        store: store.expect("no issues means the store section validated"),
        dedup: DedupSettings {
            in_progress_ttl: dedup.in_progress_ttl,
            window: dedup.window,
        },
        providers,
        handlers,
        delivery: DeliverySettings {
            concurrency: delivery.concurrency,
            poll_interval: delivery.poll_interval,
            lease: delivery.lease,
            backoff: crate::delivery::policy::Backoff {
                base: delivery.backoff_base,
                max: delivery.backoff_max,
                min_retry_after: Duration::from_secs(1).min(delivery.backoff_max),
            },
        },
        capture_dir,
        admin_token,
        definitions,
    })
}

fn validate_store(s: RawStore, issues: &mut Vec<ConfigIssue>) -> Option<StoreSettings> {
    let mut push = |key: &str, reason: &str| {
        issues.push(ConfigIssue {
            key: key.into(),
            reason: reason.into(),
        })
    };
    let kind = match s.kind.as_str() {
        "embedded" => StoreKind::Embedded,
        "redis" => StoreKind::Redis,
        _ => {
            push("store.kind", "must be \"embedded\" or \"redis\"");
            return None;
        }
    };
    if kind == StoreKind::Redis {
        if s.redis_url.is_none() && s.redis_cluster.is_empty() {
            push(
                "store.redis_url",
                "the redis store needs redis_url or redis_cluster",
            );
        }
        if s.database_url.is_none() {
            push(
                "store.database_url",
                "the redis store needs database_url (PostgreSQL)",
            );
        }
    }
    if !valid_name(&s.key_prefix) {
        push(
            "store.key_prefix",
            "may only use letters, digits, '-', '_' and '.'",
        );
    }
    if s.timeout.is_zero() {
        push("store.timeout", "must be positive");
    }
    if s.pool_size == 0 {
        push("store.pool_size", "must be at least 1");
    }
    if s.write_concurrency == 0 {
        push("store.write_concurrency", "must be at least 1");
    } else if s.write_concurrency.saturating_mul(3) >= s.pool_size {
        push(
            "store.write_concurrency",
            "must leave connections for the delivery workers and operators: 3 x write_concurrency must stay below store.pool_size",
        );
    }
    Some(StoreSettings {
        kind,
        path: s.path.unwrap_or_else(|| PathBuf::from("data/hookline.db")),
        redis_url: s.redis_url,
        redis_cluster: s.redis_cluster,
        key_prefix: s.key_prefix,
        database_url: s.database_url,
        timeout: s.timeout,
        pool_size: s.pool_size,
        write_concurrency: s.write_concurrency,
    })
}

impl fmt::Debug for RawTenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawTenant")
            .field(
                "secrets",
                &format_args!("[{} redacted]", self.secrets.len()),
            )
            .field("secrets_env", &self.secrets_env)
            .finish()
    }
}
