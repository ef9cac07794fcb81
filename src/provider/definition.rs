//! Provider definitions: the data half of a provider.
//!
//! A definition names one of the signature schemes implemented in
//! [`super::scheme`] and fills in its parameters, and says where the event ID
//! and event type live. Built-in definitions are the files in `providers/`,
//! embedded in the binary; a directory of `*.toml` files can add to or replace
//! them.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

/// The built-in definitions, embedded at compile time.
const BUILT_INS: &[(&str, &str)] = &[
    ("stripe.toml", include_str!("../../providers/stripe.toml")),
    ("github.toml", include_str!("../../providers/github.toml")),
    ("shopify.toml", include_str!("../../providers/shopify.toml")),
    ("slack.toml", include_str!("../../providers/slack.toml")),
    (
        "standard-webhooks.toml",
        include_str!("../../providers/standard-webhooks.toml"),
    ),
    ("gitlab.toml", include_str!("../../providers/gitlab.toml")),
    (
        "generic-hmac.toml",
        include_str!("../../providers/generic-hmac.toml"),
    ),
];

/// One or several header names; the first one present in a request is used.
/// Lets a definition accept e.g. both `webhook-id` and `svix-id`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(from = "OneOrMany")]
pub struct HeaderNames(pub Vec<String>);

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl From<OneOrMany> for HeaderNames {
    fn from(v: OneOrMany) -> Self {
        match v {
            OneOrMany::One(s) => HeaderNames(vec![s]),
            OneOrMany::Many(v) => HeaderNames(v),
        }
    }
}

impl HeaderNames {
    /// The name a sender uses (the first listed).
    pub fn primary(&self) -> &str {
        &self.0[0]
    }
}

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
    /// The content type the provider sends (used by `hookline sign`).
    #[serde(default = "default_content_type")]
    pub content_type: String,
    pub signature: SignatureDef,
    pub event_id: FieldSource,
    #[serde(default)]
    pub event_type: Option<FieldSource>,
}

fn default_content_type() -> String {
    "application/json".to_owned()
}

/// The signature scheme and its parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureDef {
    pub scheme: SchemeKind,
    /// Header that carries the signature (or, for `token`, the shared token).
    pub header: HeaderNames,
    /// MAC algorithm. Only `sha256` is implemented.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the digest is written: `hex` or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
    /// Text before each digest (`sha256=`, `v0=`, `v1,`).
    #[serde(default)]
    pub prefix: String,
    /// `hmac-header`: separator between several signatures in one header.
    #[serde(default)]
    pub separator: Option<String>,
    /// The signed content: literal text with `{id}`, `{timestamp}`, `{url}`
    /// and `{body}` placeholders.
    #[serde(default = "default_signed_content")]
    pub signed_content: String,
    /// `hmac-header`: header that carries the signed timestamp.
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// Header whose value is `{id}` in the signed content.
    #[serde(default)]
    pub id_header: Option<HeaderNames>,
    /// `hmac-kv`: separator between `key=value` pairs.
    #[serde(default)]
    pub pair_separator: Option<String>,
    /// `hmac-kv`: separator between a key and its value.
    #[serde(default)]
    pub kv_separator: Option<String>,
    /// `hmac-kv`: key of the timestamp pair.
    #[serde(default)]
    pub timestamp_key: Option<String>,
    /// `hmac-kv`: key of the signature pairs (there may be several).
    #[serde(default)]
    pub signature_key: Option<String>,
    /// How a configured secret becomes MAC key bytes.
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
    /// `signed_content`, parsed once when the definition is loaded.
    #[serde(skip)]
    pub template: super::scheme::Template,
}

fn default_signed_content() -> String {
    "{body}".to_owned()
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeKind {
    /// One or more `prefix + digest` signatures in a header; optional
    /// timestamp header. GitHub, Shopify, Slack, Standard Webhooks.
    HmacHeader,
    /// `t=...,v1=...,v1=...` in one header. Stripe.
    HmacKv,
    /// A shared token compared verbatim. GitLab.
    Token,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    #[default]
    Sha256,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    #[default]
    Hex,
    Base64,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SecretEncoding {
    /// The secret's UTF-8 bytes are the key.
    #[default]
    Utf8,
    /// Standard Webhooks: optional `whsec_` prefix, then base64.
    WhsecBase64,
    /// Plain base64.
    Base64,
    /// Hex.
    Hex,
}

/// Where a value (event ID, event type) lives.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSource {
    /// Header name(s); the first present wins.
    #[serde(default)]
    pub header: Option<HeaderNames>,
    /// RFC 6901 JSON pointer into the body.
    #[serde(default)]
    pub json_pointer: Option<String>,
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

    /// Every kind and alias, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.by_kind.keys().map(String::as_str)
    }
}

fn parse(file: &str, text: &str) -> Result<ProviderDef, DefinitionError> {
    let err = |reason: String| DefinitionError {
        file: file.to_owned(),
        reason,
    };
    let mut def: ProviderDef = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    def.check().map_err(err)?;
    Ok(def)
}

impl ProviderDef {
    /// Cross-field rules a scheme needs.
    fn check(&mut self) -> Result<(), String> {
        self.signature.template = super::scheme::Template::parse(&self.signature.signed_content)
            .map_err(|e| format!("signature.signed_content: {e}"))?;
        let s = &self.signature;
        let template = &s.template;
        if s.header.0.is_empty() {
            return Err("signature.header: at least one header name is required".into());
        }
        match s.scheme {
            SchemeKind::HmacHeader => {
                if template.uses_timestamp() && s.timestamp_header.is_none() {
                    return Err(
                        "signature: signed_content uses {timestamp} but timestamp_header is not set"
                            .into(),
                    );
                }
            }
            SchemeKind::HmacKv => {
                for (field, v) in [
                    ("pair_separator", &s.pair_separator),
                    ("kv_separator", &s.kv_separator),
                    ("timestamp_key", &s.timestamp_key),
                    ("signature_key", &s.signature_key),
                ] {
                    if v.as_deref().is_none_or(str::is_empty) {
                        return Err(format!("signature.{field}: required by scheme hmac-kv"));
                    }
                }
            }
            SchemeKind::Token => {}
        }
        if template.uses_id() && s.id_header.is_none() {
            return Err("signature: signed_content uses {id} but id_header is not set".into());
        }
        if self.event_id.header.is_none() && self.event_id.json_pointer.is_none() {
            return Err("event_id: set header or json_pointer".into());
        }
        Ok(())
    }
}
