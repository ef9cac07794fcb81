//! Configuration: TOML read with the `config` crate, `HOOKLINE__SECTION__KEY`
//! environment overrides, validated once at start-up into [`Settings`].
//!
//! The serde structs below *are* the settings, each field documented where
//! it is declared, one file per section. What validation derives from them
//! (decoded keys, a provider's definition, a table's own name) is kept next
//! to what it comes from, as [`Derived`] or `#[serde(skip)]` fields, and is
//! filled in before [`load`] hands the settings out. Validation collects
//! every problem (file, key, reason) instead of stopping at the first, and
//! never puts a secret into an error or `Debug` output.

mod admin;
mod alerts;
mod capture;
mod declared;
mod dedup;
mod delivery;
mod derived;
mod describe;
mod destination;
mod event_shape;
mod handler_filter;
mod handlers;
mod issues;
mod load;
mod names;
mod parse;
mod patterns;
mod placeholders;
mod providers;
mod published;
mod rules;
mod server;
mod store;
mod telemetry;
mod tls;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;

pub use admin::AdminSettings;
pub use alerts::AlertSettings;
pub use capture::CaptureSettings;
pub use dedup::DedupSettings;
pub use delivery::DeliverySettings;
pub use derived::Derived;
pub use destination::{DestinationSettings, HandlerKind, STREAM_BODY_FIELD};
pub use handler_filter::{route, Routed};
pub use handlers::{matching_handlers, ForwardHeader, Handler};
pub use issues::{ConfigError, ConfigIssue};
pub use load::{from_toml_str, load};
pub use patterns::{EventGlobs, EventPattern, GlobPattern, Globs};
pub use placeholders::{Placeholders, Syntax, Values};
pub use providers::{AckMode, Provider, Rate, RateLimit, Tenant};
pub use server::{ListenAddr, PublicUrl, ServerSettings, TrustedProxy};
pub use store::{DeliveryHome, EmbeddedStoreSettings, RedisStoreSettings, StoreSettings};
pub use telemetry::{LogFormat, TelemetrySettings};
pub use tls::{CertifiedPair, TlsFiles, TlsSettings};

use crate::ids::{HandlerName, ProviderName};
use crate::provider::Definitions;
use declared::Declared;

/// The tenant used by `POST /webhooks/{provider}`.
pub const DEFAULT_TENANT: &str = "default";

/// The whole configuration file, validated.
#[derive(Debug, Deserialize)]
pub struct Settings {
    /// The file the settings came from (or the name given to
    /// [`from_toml_str`]). Derived.
    #[serde(skip)]
    pub source: String,
    /// `[server]`.
    #[serde(default)]
    pub server: ServerSettings,
    /// `[store]`. Required.
    pub store: StoreSettings,
    /// `[dedup]`.
    #[serde(default)]
    pub dedup: DedupSettings,
    /// A directory of provider definitions (`*.toml`) that add to or
    /// replace the built-in ones. Default none.
    #[serde(default)]
    pub providers_dir: Option<PathBuf>,
    /// `[providers.NAME]`; at least one.
    #[serde(default, deserialize_with = "names::map")]
    pub providers: BTreeMap<ProviderName, Arc<Provider>>,
    /// `[handlers.NAME]`. Default none.
    #[serde(default, deserialize_with = "names::map")]
    pub handlers: BTreeMap<HandlerName, Arc<Handler>>,
    /// `[delivery]`.
    #[serde(default)]
    pub delivery: DeliverySettings,
    /// `[capture]`; absent, nothing is captured.
    #[serde(default)]
    pub capture: Option<CaptureSettings>,
    /// `[admin]`.
    #[serde(default)]
    pub admin: AdminSettings,
    /// `[tls]`: outbound TLS.
    #[serde(default)]
    pub tls: TlsSettings,
    /// `[telemetry]`: traces and the log format.
    #[serde(default)]
    pub telemetry: TelemetrySettings,
    /// `[alerts]`; absent, no alert is sent.
    #[serde(default)]
    pub alerts: Option<AlertSettings>,
    /// The built-in provider definitions and those of `providers_dir`.
    /// Derived.
    #[serde(skip)]
    pub definitions: Definitions,
}

impl Settings {
    /// Every section's own checks, the derived data, then the rules that
    /// relate sections; every issue found.
    fn validate(&mut self, declared: &Declared) -> Vec<ConfigIssue> {
        let mut issues = self.server.check();
        issues.extend(self.store.check());
        issues.extend(self.dedup.check());
        // Relative paths are relative to the working directory, like every
        // other path a command line is given.
        self.definitions = match Definitions::load(self.providers_dir.as_deref()) {
            Ok(d) => d,
            Err(errors) => {
                issues.extend(
                    errors
                        .into_iter()
                        .map(|e| ConfigIssue::new("providers_dir", e.to_string())),
                );
                Definitions::load(None).unwrap_or_default()
            }
        };
        issues.extend(providers::resolve(
            &mut self.providers,
            &self.definitions,
            &self.dedup,
            declared,
        ));
        issues.extend(self.delivery.check());
        issues.extend(handlers::resolve(
            &mut self.handlers,
            &self.delivery,
            declared,
        ));
        handlers::forwarded_per_provider(&mut self.providers, &self.handlers);
        issues.extend(self.admin.check());
        issues.extend(self.tls.check());
        issues.extend(self.telemetry.check());
        issues.extend(self.alerts.iter().flat_map(AlertSettings::check));
        if let StoreSettings::Redis(store) = &mut self.store {
            store.ca_file = self.tls.ca_file.clone();
        }
        issues.extend(rules::check(self, declared));
        issues
    }
}
