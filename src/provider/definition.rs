//! Provider definitions: the data half of a provider.
//!
//! A definition names one of the signature scheme families implemented in
//! [`super::scheme`] and fills in its parameters, may name a handshake from
//! [`super::handshake`], and says where the event ID and event type live.
//! Built-in definitions are the files in `providers/`, embedded in the
//! binary; a directory of `*.toml` files can add to or replace them.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::fetch_url::FetchHosts;
use super::fingerprint::Fingerprint;
use super::handshake::Handshake;
use super::header::HeaderNames;
use super::identity::{check_pointer, FieldSource};
use super::key::{Key, KeyError};
use super::scheme::{Scheme, SignError, SignInput};

/// The built-in definitions: every `providers/*.toml`, embedded at compile
/// time by `build.rs`.
const BUILT_INS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/built_ins.rs"));

/// A provider definition file (`providers/KIND.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderDef {
    /// The name a `[providers.NAME]` table refers to with `kind = "..."`.
    pub kind: String,
    /// Other names accepted for `kind` (e.g. `svix` for `standard-webhooks`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Human-readable name.
    pub title: String,
    /// Where the provider documents its scheme.
    #[serde(default)]
    pub docs: Option<String>,
    /// The provider's documented retry horizon: the dedup window of a
    /// provider of this kind is at least this long unless its config sets
    /// `window` (a retry after the window would pass as a new event).
    #[serde(default, with = "humantime_serde")]
    pub window: Option<std::time::Duration>,
    /// The tolerance of a provider of this kind unless its config sets
    /// `tolerance`: for providers whose signed time is the original one
    /// on every retry (AWS SNS), as long as their retries go on. Without
    /// it, the configuration's default (`5m`).
    #[serde(default, with = "humantime_serde")]
    pub tolerance: Option<std::time::Duration>,
    /// The hosts a request's URLs may be fetched from (a signing
    /// certificate, SNS's `SubscribeURL`), e.g. `sns.*.amazonaws.com`
    /// (see [`FetchHosts`]); required by, and only allowed with, a scheme
    /// or handshake that fetches. A provider's config may replace it.
    #[serde(default)]
    pub fetch_hosts: FetchHosts,
    /// The content type the provider sends (used by `hookline sign`).
    #[serde(default = "default_content_type")]
    pub content_type: String,
    /// The signature scheme: `scheme = "..."` and that family's parameters.
    pub signature: Scheme,
    /// The handshake the provider sends, if any: `kind = "..."` and its
    /// parameters.
    #[serde(default)]
    pub handshake: Option<Handshake>,
    /// The JSON pointer of an array of events ("" for a body that is the
    /// array): each item is then an event of its own, and `event_id`,
    /// `event_type` and `fingerprint` are read from each item (see
    /// `batch.rs`).
    #[serde(default)]
    pub batch: Option<String>,
    /// The delivery envelope the provider rewrites on a retry, left out of
    /// the conflict check (see `fingerprint.rs`).
    #[serde(default)]
    pub fingerprint: Fingerprint,
    /// Where the event ID is.
    pub event_id: FieldSource,
    /// Where the event type is; without it, the type is empty.
    #[serde(default)]
    pub event_type: Option<FieldSource>,
    /// A second dedup key on the body's digest, for providers whose event
    /// ID is not covered by the signature: a captured request resent under
    /// a fresh ID is then a duplicate. Default `none`; every built-in whose
    /// signature leaves the ID out says which, with its reason.
    #[serde(default)]
    pub replay_guard: Option<ReplayGuard>,
    /// How long a body accepted under one event ID is held against a
    /// replay under another (`replay_guard = "body"`); default the
    /// provider's dedup window.
    #[serde(default, with = "humantime_serde")]
    pub replay_window: Option<std::time::Duration>,
    /// The body of the `200` answering an event this provider sent that
    /// was recorded (accepted, held, or a duplicate), as `text/plain`,
    /// for providers that resend unless the answer's body is exactly some
    /// text (Alipay: `success`). Without it, the JSON status body.
    #[serde(default)]
    pub ack_body: Option<String>,
}

/// What a body already accepted under one event ID is when it comes again
/// under another ID within the replay window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayGuard {
    /// Only the event ID is a dedup key: for providers that sign the ID
    /// (or carry it in the signed body), and for those whose real events
    /// can share a body.
    #[default]
    None,
    /// The body's digest is a second key: for providers that sign the
    /// body but not the header carrying the ID. A body seen again under a
    /// fresh ID is held as a suspected replay: kept, counted, listed, and
    /// delivered only once an operator releases it, never dropped.
    Body,
}

impl ReplayGuard {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplayGuard::None => "none",
            ReplayGuard::Body => "body",
        }
    }
}

fn default_content_type() -> String {
    "application/json".to_owned()
}

impl ProviderDef {
    /// Decode one configured tenant secret into the key its family
    /// verifies with. The error names what is wrong and never contains the
    /// secret.
    pub fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        self.signature.family().decode_secret(secret)
    }

    /// Decode a private key for signing (public-key families only).
    pub fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        self.signature.family().decode_private_key(text)
    }

    /// The tenant secret that verifies what `private` signs, for
    /// public-key families.
    pub fn public_secret(&self, private: &Key) -> Option<String> {
        self.signature.family().public_secret(private)
    }

    /// Whether verification reads the external URL, so the HTTP layer
    /// builds [`UntrustedRequest::url`](super::UntrustedRequest::url) only
    /// then.
    pub fn needs_url(&self) -> bool {
        self.signature.family().needs_url()
    }

    /// The methods the route accepts: `POST`, and those a handshake
    /// answers (for the `Allow` header of a 405).
    pub fn methods(&self) -> Vec<&'static str> {
        let mut methods = vec!["POST"];
        if let Some(h) = &self.handshake {
            methods.extend(h.kind().methods());
        }
        methods
    }

    /// Whether verifying or answering a request of this kind may fetch a
    /// URL the request names (from [`ProviderDef::fetch_hosts`]).
    pub fn fetches(&self) -> bool {
        self.signature.family().fetches()
            || self.handshake.as_ref().is_some_and(|h| h.kind().fetches())
    }

    /// The headers that carry the signature.
    pub fn signature_headers(&self) -> &[String] {
        self.signature.family().signature_headers()
    }

    /// Headers whose value is the secret itself: captures redact them.
    pub fn secret_headers(&self) -> &[String] {
        self.signature.family().secret_headers()
    }

    /// Query parameters whose value is the secret (`query-token`).
    pub fn secret_query_params(&self) -> &[String] {
        self.signature.family().secret_query_params()
    }

    /// The header of the message ID the signature covers, which a
    /// re-signed replay keeps.
    pub fn signed_id_header(&self) -> Option<&HeaderNames> {
        self.signature.family().id_header()
    }

    /// The headers this scheme adds to a request (signature, timestamp,
    /// id): the inverse of verification.
    pub fn sign(
        &self,
        key: &Key,
        input: &SignInput<'_>,
    ) -> Result<Vec<(String, String)>, SignError> {
        self.signature.family().sign(key, input)
    }

    /// Cross-field rules, checked once at load.
    fn check(&self) -> Result<(), String> {
        self.signature
            .family()
            .check()
            .map_err(|e| format!("signature: {e}"))?;
        if let Some(h) = &self.handshake {
            h.kind().check().map_err(|e| format!("handshake: {e}"))?;
        }
        match (self.fetches(), self.fetch_hosts.is_empty()) {
            (true, true) => {
                return Err("fetch_hosts is required by this scheme or handshake".into())
            }
            (false, false) => {
                return Err(
                    "fetch_hosts is set, but neither the scheme nor the handshake fetches".into(),
                )
            }
            _ => {}
        }
        if let Some(ack) = &self.ack_body {
            if ack.is_empty() || ack.len() > 64 || !ack.bytes().all(|b| b.is_ascii_graphic()) {
                return Err("ack_body: 1 to 64 printable ASCII characters, no spaces".into());
            }
        }
        if self.event_type == Some(FieldSource::BodySha256) {
            return Err("event_type: body_sha256 is an event ID source only".into());
        }
        self.fingerprint.check()?;
        if let Some(batch) = &self.batch {
            check_pointer(batch).map_err(|e| format!("batch: {e}"))?;
            // Every item needs an ID of its own, read from the item.
            if matches!(
                self.event_id,
                FieldSource::Header(_)
                    | FieldSource::FormField(_)
                    | FieldSource::FormBase64Xml(..)
                    | FieldSource::JwtPayloadPointer(..)
            ) {
                return Err(
                    "batch: event_id must be read from each item (a JSON pointer or body_sha256)"
                        .into(),
                );
            }
        }
        Ok(())
    }
}

/// Definitions by kind (aliases included), shared across providers.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    by_kind: BTreeMap<String, Arc<ProviderDef>>,
}

/// A problem with one definition file.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct DefinitionError {
    pub file: String,
    pub reason: String,
}

impl Definitions {
    /// The built-in definitions, then every `*.toml` in `dir` (replacing a
    /// built-in of the same kind).
    pub fn load(dir: Option<&Path>) -> Result<Self, Vec<DefinitionError>> {
        let mut defs = Definitions::default();
        let mut errors = Vec::new();
        for (file, text) in BUILT_INS {
            match parse(file, text) {
                Ok(def) => defs.insert(def),
                Err(e) => errors.push(e),
            }
        }
        if let Some(dir) = dir {
            match std::fs::read_dir(dir) {
                Ok(entries) => {
                    let mut paths: Vec<_> = entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                        .collect();
                    paths.sort();
                    for path in paths {
                        let file = path.display().to_string();
                        match std::fs::read_to_string(&path) {
                            Ok(text) => match parse(&file, &text) {
                                Ok(def) => defs.insert(def),
                                Err(e) => errors.push(e),
                            },
                            Err(e) => errors.push(DefinitionError {
                                file,
                                reason: e.to_string(),
                            }),
                        }
                    }
                }
                Err(e) => errors.push(DefinitionError {
                    file: dir.display().to_string(),
                    reason: format!("cannot read directory: {e}"),
                }),
            }
        }
        if errors.is_empty() {
            Ok(defs)
        } else {
            Err(errors)
        }
    }

    fn insert(&mut self, def: ProviderDef) {
        let def = Arc::new(def);
        for name in std::iter::once(&def.kind).chain(&def.aliases) {
            self.by_kind.insert(name.clone(), def.clone());
        }
    }

    pub fn get(&self, kind: &str) -> Option<&Arc<ProviderDef>> {
        self.by_kind.get(kind)
    }

    /// Every definition once (aliases folded in), sorted by kind.
    pub fn definitions(&self) -> impl Iterator<Item = &Arc<ProviderDef>> {
        self.by_kind
            .iter()
            .filter(|(name, def)| **name == def.kind)
            .map(|(_, def)| def)
    }

    /// Every kind and alias, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.by_kind.keys().map(String::as_str)
    }
}

/// One definition file's text, parsed and checked.
pub(crate) fn parse(file: &str, text: &str) -> Result<ProviderDef, DefinitionError> {
    let err = |reason: String| DefinitionError {
        file: file.to_owned(),
        reason,
    };
    let def: ProviderDef = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    def.check().map_err(err)?;
    Ok(def)
}
