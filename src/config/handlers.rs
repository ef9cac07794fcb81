//! `[handlers.NAME]`: the downstream services accepted events go to.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use globset::Candidate;
use reqwest::header::HeaderName;
use secrecy::{ExposeSecret, SecretString};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use super::declared::Declared;
use super::derived::Derived;
use super::destination::{self, DestinationSettings, HandlerKind};
use super::issues::{key, ConfigIssue};
use super::patterns::{EventGlobs, Globs};
use super::tls::TlsFiles;
use super::DeliverySettings;
use crate::filter::ReloadingFilter;
use crate::ids::HandlerName;
use crate::provider::Key;

/// A downstream handler.
#[derive(Deserialize)]
pub struct Handler {
    /// The table's key. Derived.
    #[serde(skip)]
    pub name: Derived<HandlerName>,
    /// `kind` in the file: `http` (the default: deliveries are POSTed),
    /// `nats`, `rabbitmq`, `redis-stream` or `mqtt` (deliveries are
    /// published to that broker). See `config/destination.rs`.
    #[serde(default, rename = "kind")]
    pub kind_setting: Option<String>,
    /// The kind in force. Derived.
    #[serde(skip)]
    pub kind: HandlerKind,
    /// Where deliveries go: an `http(s)://` URL; for a broker its
    /// `nats://`/`tls://`, `amqp(s)://`, `redis(s)://` or `mqtt(s)://`
    /// URL, credentials in it. Required.
    #[serde(deserialize_with = "any_url")]
    pub url: url::Url,
    /// `provider:event-type` globs (`stripe:payment_intent.*`, `github:*`).
    /// Required.
    pub events: EventGlobs,
    /// Tenant globs. Default `["*"]`.
    #[serde(default = "all_tenants")]
    pub tenants: Globs,
    /// Per-attempt timeout; below `delivery.lease`. Default `10s`.
    #[serde(default = "default_timeout", with = "humantime_serde")]
    pub timeout: Duration,
    /// Attempts before the delivery is dead-lettered; at least 1.
    /// Default 12.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// `signing_secret` in the file: the Standard Webhooks secret
    /// (`whsec_...`) deliveries are signed with, decoded. Required for an
    /// `http` handler; a broker's messages carry `webhook-signature` when
    /// it is set.
    #[serde(default, rename = "signing_secret", deserialize_with = "whsec_key")]
    pub signing_key: Option<Key>,
    /// Dead-letter a delivery still failing this long after the event.
    /// Default none.
    #[serde(default, with = "humantime_serde")]
    pub max_age: Option<Duration>,
    /// `concurrency` in the file: deliveries in flight to this handler, at
    /// least 1. Default `delivery.concurrency`.
    #[serde(default, rename = "concurrency")]
    pub concurrency_setting: Option<u32>,
    /// The limit in force. Derived.
    #[serde(skip)]
    pub concurrency: u32,
    /// The provider's own headers passed on to the handler
    /// (`X-GitHub-Delivery`). Default none.
    #[serde(default)]
    pub forward_headers: Vec<ForwardHeader>,
    /// Client certificate (PEM chain) for mutual TLS to the handler; with
    /// `client_key_file`. Default none.
    #[serde(default)]
    pub client_cert_file: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[serde(default)]
    pub client_key_file: Option<PathBuf>,
    /// `nats`: the subject, with `{provider}`, `{tenant}`, `{event_type}`.
    #[serde(default)]
    pub subject: Option<String>,
    /// `nats`: a `.creds` file (JWT and NKey seed) to authenticate with.
    #[serde(default)]
    pub credentials_file: Option<PathBuf>,
    /// `rabbitmq`: the exchange; default `""`, the default exchange.
    #[serde(default)]
    pub exchange: Option<String>,
    /// `rabbitmq`: the routing key, with placeholders. Required.
    #[serde(default)]
    pub routing_key: Option<String>,
    /// `redis-stream`: the stream's key, with placeholders. Required.
    #[serde(default)]
    pub stream: Option<String>,
    /// `redis-stream`: trim the stream to about this many entries
    /// (`MAXLEN ~`). Default none.
    #[serde(default)]
    pub maxlen: Option<u64>,
    /// `redis-stream`: how long a `webhook-id` appended is remembered, so
    /// a redelivery within it is not appended again. Default `24h`.
    #[serde(default, with = "humantime_serde")]
    pub dedup_window: Option<Duration>,
    /// `mqtt`: the topic, with placeholders. Required.
    #[serde(default)]
    pub topic: Option<String>,
    /// What the destination needs beyond the URL. Derived.
    #[serde(skip)]
    pub destination: Derived<DestinationSettings>,
    /// `filter` in the file: a filter in Hookdeck's syntax (JSON, over
    /// `headers`, `body` and `path`); an event it refuses is not delivered
    /// to this handler. Default none.
    #[serde(default, rename = "filter")]
    pub filter_setting: Option<String>,
    /// The same filter read from a JSON file. Default none.
    #[serde(default)]
    pub filter_file: Option<PathBuf>,
    /// The filter in force, compiled. Derived.
    #[serde(skip)]
    pub filter: Option<ReloadingFilter>,
    /// `transform` in the file: a JavaScript file with Hookdeck's
    /// `addHandler("transform", (request, context) => ...)`, run on every
    /// attempt; the handler receives what it returns. Default none.
    #[serde(default, rename = "transform")]
    pub transform_file: Option<PathBuf>,
    /// Wall-clock limit of one run of the transform. Default `100ms`.
    #[serde(default, with = "humantime_serde")]
    pub transform_timeout: Option<Duration>,
    /// The script in force, compiled. Derived.
    #[serde(skip)]
    pub transform: Option<Arc<crate::transform::Transform>>,
}

fn all_tenants() -> Globs {
    Globs::of(&["*"])
}
fn default_timeout() -> Duration {
    Duration::from_secs(10)
}
fn default_max_attempts() -> u32 {
    12
}

/// Any URL: its scheme is checked against the handler's kind
/// (`destination::resolve`).
fn any_url<'de, D: Deserializer<'de>>(d: D) -> Result<url::Url, D::Error> {
    // The parser's reason never repeats the URL (which may hold a password).
    url::Url::parse(&String::deserialize(d)?)
        .map_err(|e| D::Error::custom(format!("not a URL: {e}")))
}

fn whsec_key<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Key>, D::Error> {
    let secret = SecretString::deserialize(d)?;
    crate::provider::decode_signing_secret(secret.expose_secret())
        .map(Some)
        .map_err(D::Error::custom)
}

/// By hand: a handler URL may carry credentials, and url's own `Debug`
/// prints them.
impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handler")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("url", &self.redacted_url())
            .field("destination", &self.destination)
            .field("events", &self.events)
            .field("tenants", &self.tenants)
            .field("timeout", &self.timeout)
            .field("max_attempts", &self.max_attempts)
            .field("max_age", &self.max_age)
            .field("concurrency", &self.concurrency)
            .field("forward_headers", &self.forward_headers)
            .field("client_tls", &self.client_tls())
            .field("filter", &self.filter.is_some())
            .field("transform", &self.transform_file)
            .finish_non_exhaustive()
    }
}

impl Handler {
    /// The URL with its secrets replaced: the password, and a NATS URL's
    /// lone user name (a token).
    pub fn redacted_url(&self) -> String {
        let mut url = self.url.clone();
        if url.password().is_some() {
            let _ = url.set_password(Some("[redacted]"));
        } else if self.kind == HandlerKind::Nats && !url.username().is_empty() {
            let _ = url.set_username("[redacted]");
        }
        // The URL writer escapes the brackets of a password.
        url.to_string().replace("%5Bredacted%5D", "[redacted]")
    }

    /// Whether the file sets the kind-specific key `name`.
    pub(super) fn is_set(&self, name: &str) -> bool {
        match name {
            "subject" => self.subject.is_some(),
            "credentials_file" => self.credentials_file.is_some(),
            "exchange" => self.exchange.is_some(),
            "routing_key" => self.routing_key.is_some(),
            "stream" => self.stream.is_some(),
            "maxlen" => self.maxlen.is_some(),
            "dedup_window" => self.dedup_window.is_some(),
            "topic" => self.topic.is_some(),
            _ => false,
        }
    }

    /// Whether this handler wants `event` (`provider:event_type`, prepared
    /// once per request for every handler) from `tenant`.
    pub fn matches_candidate(&self, tenant: &str, event: &Candidate<'_>) -> bool {
        self.tenants.is_match(tenant) && self.events.is_match_candidate(event)
    }

    /// The client certificate and key for mutual TLS, when both are set.
    pub fn client_tls(&self) -> Option<TlsFiles> {
        match (&self.client_cert_file, &self.client_key_file) {
            (Some(cert_file), Some(key_file)) => Some(TlsFiles {
                cert_file: cert_file.clone(),
                key_file: key_file.clone(),
            }),
            _ => None,
        }
    }
}

/// The handlers that want this event, in name order.
pub fn matching_handlers<'a>(
    handlers: &'a BTreeMap<HandlerName, Arc<Handler>>,
    provider: &str,
    tenant: &str,
    event_type: &str,
) -> Vec<&'a HandlerName> {
    if handlers.is_empty() {
        return Vec::new();
    }
    let key = format!("{provider}:{event_type}");
    let event = Candidate::new(&key);
    handlers
        .iter()
        .filter(|(_, h)| h.matches_candidate(tenant, &event))
        .map(|(name, _)| name)
        .collect()
}

/// Tell each provider which of its headers some handler forwards (the
/// union over the handlers whose `events` name it), so its deliveries keep
/// them.
pub(super) fn forwarded_per_provider(
    providers: &mut BTreeMap<crate::ids::ProviderName, Arc<super::Provider>>,
    handlers: &BTreeMap<HandlerName, Arc<Handler>>,
) {
    for (name, p) in providers.iter_mut() {
        let Some(p) = Arc::get_mut(p) else { continue };
        let mut names: Vec<String> = handlers
            .values()
            .filter(|h| {
                h.events.patterns().iter().any(|e| {
                    globset::Glob::new(e.provider())
                        .is_ok_and(|g| g.compile_matcher().is_match(name.as_str()))
                })
            })
            .flat_map(|h| {
                // The headers a filter reads are kept the same way, so the
                // filter sees them.
                let filtered = h.filter.iter().flat_map(|f| f.header_names());
                h.forward_headers
                    .iter()
                    .map(|f| f.to_string())
                    .chain(filtered)
            })
            .collect();
        names.sort_by_key(|n| n.to_ascii_lowercase());
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        p.forwarded_headers = names;
    }
}

/// Fill in each handler's derived data and report its own problems.
pub(super) fn resolve(
    handlers: &mut BTreeMap<HandlerName, Arc<Handler>>,
    delivery: &DeliverySettings,
    declared: &Declared,
) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    for (name, h) in handlers.iter_mut() {
        let at = key("handlers", name);
        let h = Arc::get_mut(h).expect("settings are not shared before validation ends");
        h.name.set(name.clone());
        h.concurrency = h.concurrency_setting.unwrap_or(delivery.concurrency);
        if h.concurrency_setting == Some(0) {
            issues.push(ConfigIssue::new(
                key(&at, "concurrency"),
                "must be at least 1",
            ));
        }
        if h.max_attempts == 0 {
            issues.push(ConfigIssue::new(
                key(&at, "max_attempts"),
                "must be at least 1",
            ));
        }
        if !declared.filled(&key(&at, "events")) {
            issues.push(ConfigIssue::new(
                key(&at, "events"),
                "at least one provider:event-type pattern is required",
            ));
        }
        if let Some(tls) = h.client_tls() {
            issues.extend(tls.check(&key(&at, "client_cert_file"), &key(&at, "client_key_file")));
        }
        match super::handler_filter::compile(h) {
            Ok(filter) => h.filter = filter,
            Err((field, reason)) => issues.push(ConfigIssue::new(key(&at, field), reason)),
        }
        match super::handler_filter::load_transform(h) {
            Ok(t) => h.transform = t,
            Err(e) => issues.push(ConfigIssue::new(key(&at, "transform"), e)),
        }
        let (settings, problems) = destination::resolve(h, &at);
        issues.extend(problems);
        if let Some(settings) = settings {
            h.destination.set(settings);
        }
    }
    issues
}

/// A provider header a handler gets passed on, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardHeader(HeaderName);

impl ForwardHeader {
    pub fn name(&self) -> &HeaderName {
        &self.0
    }
}

impl fmt::Display for ForwardHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// Headers about the connection or the message's framing: passing the
/// provider's on would corrupt the request to the handler.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "content-encoding",
    "host",
    "expect",
];

/// Headers hookline sets on every delivery itself.
const OWN: &[&str] = &[
    "idempotency-key",
    "content-type",
    "traceparent",
    "tracestate",
];
const OWN_PREFIXES: &[&str] = &["webhook-", "x-hookline-"];

impl<'de> Deserialize<'de> for ForwardHeader {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let name = HeaderName::from_bytes(text.as_bytes())
            .map_err(|_| D::Error::custom("not a valid header name"))?;
        // HeaderName is lower case, so these compare case-insensitively.
        let n = name.as_str();
        if HOP_BY_HOP.contains(&n) {
            return Err(D::Error::custom(
                "a connection or framing header cannot be forwarded",
            ));
        }
        if OWN.contains(&n) || OWN_PREFIXES.iter().any(|p| n.starts_with(p)) {
            return Err(D::Error::custom(
                "hookline sets this header itself (webhook-*, Idempotency-Key, X-Hookline-*, Content-Type, traceparent, tracestate)",
            ));
        }
        Ok(ForwardHeader(name))
    }
}
