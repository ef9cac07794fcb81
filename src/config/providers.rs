//! `[providers.NAME]` and its `[providers.NAME.tenants.T]`: the routes
//! webhooks arrive on, and each tenant's secrets.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use super::declared::Declared;
use super::derived::Derived;
use super::issues::{key, ConfigIssue};
use super::patterns::Globs;
use super::DedupSettings;
use crate::ids::{ProviderName, TenantName};
use crate::provider::{Definitions, FetchHosts, Key, ProviderDef, ReplayGuard};

/// A configured provider route (`[providers.NAME]`, `/webhooks/NAME/...`).
#[derive(Debug, Deserialize)]
pub struct Provider {
    /// The route name: the table's key. Derived.
    #[serde(skip)]
    pub name: Derived<ProviderName>,
    /// A definition from `providers/` (or `providers_dir`), by kind or
    /// alias. Required.
    pub kind: String,
    /// The definition `kind` names. Derived.
    #[serde(skip)]
    pub def: Derived<Arc<ProviderDef>>,
    /// `tolerance` in the file: the largest accepted distance between a
    /// signed timestamp and now, either way.
    #[serde(default, rename = "tolerance", with = "humantime_serde")]
    pub tolerance_override: Option<Duration>,
    /// The tolerance in force: `tolerance`, else the definition's (AWS
    /// SNS: `1h`), else `5m`. Derived.
    #[serde(skip)]
    pub tolerance: Duration,
    /// `fetch_hosts` in the file: replaces the definition's allow-list of
    /// hosts a request's URLs may be fetched from (kinds that fetch a
    /// certificate: `aws-sns`, `paypal`), e.g. with a test server's host.
    #[serde(default, rename = "fetch_hosts")]
    pub fetch_hosts_override: Option<FetchHosts>,
    /// The allow-list in force: `fetch_hosts`, else the definition's.
    /// Derived.
    #[serde(skip)]
    pub fetch_hosts: FetchHosts,
    /// `window` in the file: overrides `dedup.window` for this provider.
    #[serde(default, rename = "window", with = "humantime_serde")]
    pub window_override: Option<Duration>,
    /// The dedup window in force: `window`, else `dedup.window`. Derived.
    #[serde(skip)]
    pub window: Duration,
    /// Event-type globs whose events are persisted to `processed_event`.
    /// Default none.
    #[serde(default)]
    pub critical: Globs,
    /// When the provider gets its 2xx. Default `durable`.
    #[serde(default)]
    pub ack: AckMode,
    /// `ack = "handlers"`: how long to wait for every handler's
    /// acknowledgement before answering 503 (keep it under the provider's
    /// own timeout, e.g. 10 s for GitHub); below `dedup.in_progress_ttl`.
    /// Default `8s`.
    #[serde(default = "default_ack_timeout", with = "humantime_serde")]
    pub ack_timeout: Duration,
    /// Requests accepted per provider+tenant (`500/s`, `3000/m`,
    /// `100000/h`); past it, 429 + `Retry-After`. Default unlimited.
    #[serde(default)]
    pub rate_limit: Option<RateLimit>,
    /// Requests a quiet tenant may send at once above `rate_limit`; at
    /// least 1. Default one second's worth of `rate_limit` (at least 1).
    #[serde(default)]
    pub rate_burst: Option<u32>,
    /// `replay_guard` in the file: overrides the definition's (`"body"`
    /// adds a dedup key on the body's digest, `"none"` drops it).
    #[serde(default, rename = "replay_guard")]
    pub replay_guard_override: Option<ReplayGuard>,
    /// `batch` in the file: replaces the definition's (the JSON pointer
    /// of an array whose items are events of their own; `""` for a body
    /// that is the array).
    #[serde(default, rename = "batch")]
    pub batch_override: Option<String>,
    /// The batch in force: `batch`, else the definition's. Derived.
    #[serde(skip)]
    pub batch: Option<String>,
    /// `[providers.NAME.fingerprint]` in the file: replaces the
    /// definition's (the envelope left out of the conflict check).
    #[serde(default, rename = "fingerprint")]
    pub fingerprint_override: Option<crate::provider::Fingerprint>,
    /// The fingerprint in force. Derived.
    #[serde(skip)]
    pub fingerprint: crate::provider::Fingerprint,
    /// `replay_window` in the file: how long a body accepted under one
    /// event ID holds against a replay under another (`replay_guard =
    /// "body"`).
    #[serde(default, rename = "replay_window", with = "humantime_serde")]
    pub replay_window_override: Option<Duration>,
    /// The replay window in force: `replay_window`, else the definition's,
    /// else the dedup window. Derived.
    #[serde(skip)]
    pub replay_window: Duration,
    /// The headers some handler of this provider's events forwards
    /// (`forward_headers`), kept with its deliveries. Derived.
    #[serde(skip)]
    pub forwarded_headers: Vec<String>,
    /// Tenants by name; at least one.
    #[serde(default, deserialize_with = "super::names::map")]
    pub tenants: BTreeMap<TenantName, Tenant>,
}

/// The tolerance of a provider whose config and definition set none.
const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);
fn default_ack_timeout() -> Duration {
    Duration::from_secs(8)
}

impl Provider {
    pub fn is_critical(&self, event_type: &str) -> bool {
        self.critical.is_match(event_type)
    }

    /// Whether the body's digest is a second dedup key (see
    /// [`ReplayGuard`]): the provider's setting, else its definition's.
    pub fn guards_body(&self) -> bool {
        self.replay_guard_override
            .or(self.def.replay_guard)
            .unwrap_or_default()
            == ReplayGuard::Body
    }

    /// The rate limit in force, with its burst; `None` when unlimited.
    pub fn rate(&self) -> Option<Rate> {
        let limit = self.rate_limit?;
        let one_second = limit.per_second().ceil().max(1.0) as u32;
        Some(Rate {
            limit,
            burst: self.rate_burst.unwrap_or(one_second),
        })
    }
}

/// A tenant (`[providers.P.tenants.NAME]`) and its signing keys.
#[derive(Debug, Deserialize)]
pub struct Tenant {
    /// The table's key. Derived.
    #[serde(skip)]
    pub name: Derived<TenantName>,
    /// Secrets, any one of which verifies (rotation), in the encoding the
    /// provider's definition says.
    #[serde(default)]
    pub secrets: Vec<SecretString>,
    /// Names of environment variables holding more secrets.
    #[serde(default)]
    pub secrets_env: Vec<String>,
    /// The token a `GET ?hub.verify_token=` handshake must present (Meta,
    /// Strava). A secret: never shown.
    #[serde(default)]
    pub verify_token: Option<SecretString>,
    /// `secrets` and `secrets_env`, decoded. Derived.
    #[serde(skip)]
    pub keys: Vec<Key>,
}

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

/// A count per unit of time: `500/s`, `3000/m`, `100000/h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub count: u32,
    pub per: Duration,
}

impl RateLimit {
    pub fn per_second(&self) -> f64 {
        f64::from(self.count) / self.per.as_secs_f64()
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.per.as_secs() {
            1 => "s",
            60 => "m",
            _ => "h",
        };
        write!(f, "{}/{unit}", self.count)
    }
}

impl FromStr for RateLimit {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        const SHAPE: &str = "must be a positive count per s, m or h, e.g. 500/s";
        let (count, unit) = s.split_once('/').ok_or(SHAPE)?;
        let count: u32 = count.trim().parse().map_err(|_| SHAPE)?;
        let per = match unit.trim() {
            "s" => Duration::from_secs(1),
            "m" => Duration::from_secs(60),
            "h" => Duration::from_secs(3600),
            _ => return Err(SHAPE.into()),
        };
        if count == 0 {
            return Err(SHAPE.into());
        }
        Ok(RateLimit { count, per })
    }
}

impl<'de> Deserialize<'de> for RateLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// A rate limit and its burst.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub limit: RateLimit,
    pub burst: u32,
}

/// Fill in each provider's derived data (name, definition, window, tenant
/// names and keys) and report the problems of each provider on its own.
pub(super) fn resolve(
    providers: &mut BTreeMap<ProviderName, Arc<Provider>>,
    definitions: &Definitions,
    dedup: &DedupSettings,
    declared: &Declared,
) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    // "None" only if the file has none, not if those it has are broken.
    if !declared.filled("providers") {
        issues.push(ConfigIssue::new("providers", "no provider is configured"));
    }
    for (name, p) in providers.iter_mut() {
        let at = key("providers", name);
        let p = Arc::get_mut(p).expect("settings are not shared before validation ends");
        p.name.set(name.clone());
        p.window = p.window_override.unwrap_or(dedup.window);
        match definitions.get(&p.kind) {
            Some(def) => {
                // A window shorter than the provider's own retry horizon
                // lets a late retry through as a new event, so the
                // definition's horizon is a floor unless this provider
                // sets `window` itself.
                if p.window_override.is_none() {
                    p.window = p.window.max(def.window.unwrap_or_default());
                }
                issues.extend(super::event_shape::resolve(p, def, &at));
                p.tolerance = p
                    .tolerance_override
                    .or(def.tolerance)
                    .unwrap_or(DEFAULT_TOLERANCE);
                // A key that expired while its request's signed time is
                // still accepted would let that request, replayed, be
                // accepted again: the window covers the tolerance, however
                // it was set (for a scheme that signs no time, a few
                // minutes more of a short window).
                p.window = p.window.max(p.tolerance);
                match &p.fetch_hosts_override {
                    Some(_) if !def.fetches() => issues.push(ConfigIssue::new(
                        key(&at, "fetch_hosts"),
                        format!("provider kind {:?} fetches nothing", p.kind),
                    )),
                    Some(hosts) if hosts.is_empty() => issues.push(ConfigIssue::new(
                        key(&at, "fetch_hosts"),
                        "must list at least one host",
                    )),
                    Some(hosts) => p.fetch_hosts = hosts.clone(),
                    None => p.fetch_hosts = def.fetch_hosts.clone(),
                }
                p.def.set(def.clone())
            }
            None => issues.push(ConfigIssue::new(
                key(&at, "kind"),
                crate::text::unknown_kind(&p.kind, definitions.kinds()),
            )),
        }
        if !declared.filled(&key(&at, "tenants")) {
            issues.push(ConfigIssue::new(
                key(&at, "tenants"),
                "at least one tenant is required",
            ));
        }
        if p.rate_burst == Some(0) {
            issues.push(ConfigIssue::new(
                key(&at, "rate_burst"),
                "must be at least 1",
            ));
        }
        let def = p.def.get().cloned();
        for (tname, t) in p.tenants.iter_mut() {
            t.name.set(tname.clone());
            let tkey = key(&key(&at, "tenants"), tname);
            issues.extend(t.resolve(&tkey, def.as_deref(), declared));
        }
    }
    issues
}

impl Tenant {
    /// Decode the secrets (once the definition is known) and check them.
    fn resolve(
        &mut self,
        at: &str,
        def: Option<&ProviderDef>,
        declared: &Declared,
    ) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        // A handshake that hands the secret over (Asana) fills it in.
        let learns = def.is_some_and(|d| d.handshake.as_ref().is_some_and(|h| h.stores_secret()));
        if !learns
            && !declared.filled(&key(at, "secrets"))
            && !declared.filled(&key(at, "secrets_env"))
        {
            issues.push(ConfigIssue::new(
                at,
                "no secrets (set secrets or secrets_env)",
            ));
        }
        if self
            .verify_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().is_empty())
        {
            issues.push(ConfigIssue::new(
                key(at, "verify_token"),
                "must not be empty",
            ));
        }
        // Without a definition the encoding is unknown; the kind's own issue
        // says why.
        let Some(def) = def else { return issues };
        for (i, s) in self.secrets.iter().enumerate() {
            match def.decode_secret(s.expose_secret()) {
                Ok(k) => self.keys.push(k),
                Err(reason) => issues.push(ConfigIssue::new(
                    format!("{}[{i}]", key(at, "secrets")),
                    reason.to_string(),
                )),
            }
        }
        for var in &self.secrets_env {
            let reason = match std::env::var(var) {
                Ok(s) => match def.decode_secret(&s) {
                    Ok(k) => {
                        self.keys.push(k);
                        continue;
                    }
                    Err(reason) => format!("{var}: {reason}"),
                },
                Err(_) => format!("environment variable {var} is not set"),
            };
            issues.push(ConfigIssue::new(key(at, "secrets_env"), reason));
        }
        issues
    }
}
