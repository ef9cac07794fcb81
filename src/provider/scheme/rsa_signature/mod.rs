//! `scheme = "rsa"`: an RSA PKCS#1 v1.5 signature over a template of the
//! request, checked with the provider's RSA public key, which the tenant
//! configures as its secret (PEM, or base64 DER): nothing is fetched.
//!
//! Bridge signs `X-Webhook-Signature: t=<unix ms>,v0=<base64>` over the
//! SHA-256 of `<t>.<body>`, hashed once more by the signature itself
//! (`prehash`): its docs' worked example verifies only that way
//! (<https://apidocs.bridge.xyz/v1/docs/webhook-event-signature-verification>).
//!
//! The signature is either the whole header (after `prefix`), with the
//! timestamp in `timestamp_header`, or `key=value` pairs of one header
//! (`[signature.pairs]`: the timestamp and one or more signatures), or a
//! field of a form body over the other fields (`[signature.form]`, Alipay:
//! see [`message::FormSignature`]).

mod message;

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding, TimestampFormat};
use super::rsa_key::{private_key, public_key, public_pem};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{MissingHeader, Template, Values};
pub use message::FormSignature;
use message::{digest, padding, FormError};

/// The parameters of `scheme = "rsa"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RsaParams {
    /// Header that carries the signature (or the pairs); required unless
    /// `form` is set, and not allowed with it.
    #[serde(default)]
    pub header: Option<HeaderNames>,
    /// How the signature is written: `base64`, `base64url`, `hex`.
    pub encoding: DigestEncoding,
    /// The hash of the PKCS#1 v1.5 signature: `sha1`, `sha256` (default),
    /// `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// The sender hashed the signed content once before signing it, so the
    /// signed message is that digest's bytes (Bridge).
    #[serde(default)]
    pub prehash: bool,
    /// Text before the signature when the header is the signature alone.
    #[serde(default)]
    pub prefix: String,
    /// The signed content (see [`Template`]); required unless `form` is
    /// set, and not allowed with it.
    #[serde(default)]
    pub signed_content: Option<Template>,
    /// Header carrying the signed timestamp; required by, and only allowed
    /// with, `{timestamp}` when the header is not `pairs`.
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// How the timestamp is written (default `unix`; Bridge `unix-ms`).
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// The header is `key=value` pairs holding the timestamp and the
    /// signatures (Bridge's `t=...,v0=...`).
    #[serde(default)]
    pub pairs: Option<Pairs>,
    /// The signature is a field of a form body, over the other fields
    /// sorted (Alipay); exclusive with `header`, `signed_content`,
    /// `prefix`, `pairs`, `timestamp_header` and `prehash`.
    #[serde(default)]
    pub form: Option<FormSignature>,
}

/// The syntax of a header of `key=value` pairs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairs {
    /// Between pairs (Bridge: `,`).
    pub pair_separator: String,
    /// Between a key and its value (Bridge: `=`).
    pub kv_separator: String,
    /// Key of the timestamp (Bridge: `t`).
    pub timestamp_key: String,
    /// Key of the signatures, of which there may be several (Bridge: `v0`).
    pub signature_key: String,
}

/// A request's signatures and the timestamp text it signed.
struct Offered<'r> {
    signatures: Vec<Vec<u8>>,
    timestamp: Option<&'r str>,
    /// With `form`: the signed message, built from the body.
    message: Option<Vec<u8>>,
}

impl RsaParams {
    fn offered<'r>(&self, req: &'r UntrustedRequest<'_>) -> Result<Offered<'r>, VerifyError> {
        if let Some(form) = &self.form {
            return match form.split(&req.body) {
                Ok((text, message)) => Ok(Offered {
                    signatures: mac::decode_digest(self.encoding, text.trim())
                        .into_iter()
                        .collect(),
                    timestamp: None,
                    message: Some(message),
                }),
                Err(FormError::Missing) => Err(VerifyError::MissingSignature),
                Err(FormError::Ambiguous) => Err(VerifyError::InvalidSignature),
            };
        }
        let names = self.header.as_ref().ok_or(VerifyError::MissingSignature)?;
        let header = super::required(req, names)?;
        let Some(pairs) = &self.pairs else {
            let text = header
                .trim()
                .strip_prefix(self.prefix.as_str())
                .ok_or(VerifyError::InvalidSignature)?;
            return Ok(Offered {
                signatures: mac::decode_digest(self.encoding, text.trim())
                    .into_iter()
                    .collect(),
                timestamp: super::optional(req, self.timestamp_header.as_ref())?,
                message: None,
            });
        };
        let mut offered = Offered {
            signatures: Vec::new(),
            timestamp: None,
            message: None,
        };
        for pair in header.split(pairs.pair_separator.as_str()) {
            let Some((k, v)) = pair.trim().split_once(pairs.kv_separator.as_str()) else {
                continue;
            };
            if k == pairs.timestamp_key {
                offered.timestamp = Some(v.trim());
            } else if k == pairs.signature_key {
                offered
                    .signatures
                    .extend(mac::decode_digest(self.encoding, v.trim()));
            }
        }
        Ok(offered)
    }

    /// The signed content of a template.
    fn content(&self, values: &Values<'_>) -> Result<Vec<u8>, MissingHeader> {
        let mut content = Vec::with_capacity(values.body.len() + 32);
        self.template()
            .feed(values, &mut |bytes| content.extend_from_slice(bytes))?;
        Ok(content)
    }

    /// What the PKCS#1 v1.5 signature covers: the digest of the signed
    /// content, or with `prehash` the digest of that digest.
    fn hashed(&self, content: &[u8]) -> Vec<u8> {
        let once = digest(self.algorithm, content);
        if self.prehash {
            digest(self.algorithm, &once)
        } else {
            once
        }
    }

    fn padding(&self) -> rsa::Pkcs1v15Sign {
        padding(self.algorithm)
    }

    /// The template (checked at load: set unless `form` is).
    fn template(&self) -> &Template {
        static BODY: std::sync::OnceLock<Template> = std::sync::OnceLock::new();
        self.signed_content
            .as_ref()
            .unwrap_or_else(|| BODY.get_or_init(Template::body))
    }
}

impl Family for RsaParams {
    fn name(&self) -> &'static str {
        "rsa"
    }

    fn check(&self) -> Result<(), String> {
        if let Some(form) = &self.form {
            if self.header.is_some()
                || self.signed_content.is_some()
                || !self.prefix.is_empty()
                || self.pairs.is_some()
                || self.timestamp_header.is_some()
                || self.prehash
            {
                return Err("form is exclusive with header, signed_content, prefix, pairs, timestamp_header and prehash".into());
            }
            return form.check();
        }
        let (Some(t), Some(_)) = (&self.signed_content, &self.header) else {
            return Err("header and signed_content are required without form".into());
        };
        t.refuse_pairs()?;
        if t.uses_id() {
            return Err("signed_content uses {id}, which this family has no source for".into());
        }
        let timestamp_source = self.timestamp_header.is_some() || self.pairs.is_some();
        match (t.uses_timestamp(), timestamp_source) {
            (true, false) => {
                return Err(
                    "signed_content uses {timestamp} but neither timestamp_header nor pairs is set"
                        .into(),
                )
            }
            (false, true) if self.timestamp_header.is_some() => {
                return Err("timestamp_header is set but signed_content has no {timestamp}".into())
            }
            _ => {}
        }
        if let Some(p) = &self.pairs {
            if self.timestamp_header.is_some() || !self.prefix.is_empty() {
                return Err("pairs is exclusive with timestamp_header and prefix".into());
            }
            for (field, v) in [
                ("pair_separator", &p.pair_separator),
                ("kv_separator", &p.kv_separator),
                ("timestamp_key", &p.timestamp_key),
                ("signature_key", &p.signature_key),
            ] {
                if v.is_empty() {
                    return Err(format!("pairs.{field}: must not be empty"));
                }
            }
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        public_key(secret).map(Key::rsa)
    }

    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        private_key(text)
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        public_pem(private)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let offered = self.offered(req)?;
        if offered.signatures.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        let uses_timestamp = self.form.is_none() && self.template().uses_timestamp();
        if uses_timestamp && offered.timestamp.is_none() {
            return Err(VerifyError::InvalidSignature);
        }
        let content = match offered.message {
            Some(message) => message,
            None => {
                let values = Values {
                    id: "",
                    timestamp: offered.timestamp.unwrap_or(""),
                    method: req.method,
                    url: req.url,
                    headers: req.headers,
                    body: &req.body,
                    pairs: &[],
                };
                self.content(&values)
                    .map_err(|_| VerifyError::MissingSignature)?
            }
        };
        let hashed = self.hashed(&content);
        // The keys are public: trying them in turn reveals nothing secret.
        let ok = keys.iter().filter_map(|k| k.rsa_public()).any(|key| {
            offered
                .signatures
                .iter()
                .any(|s| key.verify(self.padding(), &hashed, s).is_ok())
        });
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        match offered.timestamp {
            Some(t) if uses_timestamp => self.timestamp_format.parse(t).map(Some),
            _ => Ok(None),
        }
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        // A form field signature is in the body: its sender builds it.
        let Some(names) = self.header.as_ref().filter(|_| self.form.is_none()) else {
            return Err(SignError::SignedInBody);
        };
        let key = key.rsa_private().ok_or(SignError::WrongKey)?;
        let timestamp = self.timestamp_format.format(input.timestamp);
        let values = Values {
            id: "",
            timestamp: &timestamp,
            method: input.method,
            url: input.url,
            headers: &input.headers,
            body: input.body,
            pairs: &[],
        };
        let content = self
            .content(&values)
            .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
        let hashed = self.hashed(&content);
        let signature = key
            .sign(self.padding(), &hashed)
            .map_err(|_| SignError::WrongKey)?;
        let signature = mac::encode_digest(self.encoding, &signature);
        let name = names.primary().to_owned();
        Ok(match &self.pairs {
            Some(p) => vec![(
                name,
                format!(
                    "{}{kv}{timestamp}{}{}{kv}{signature}",
                    p.timestamp_key,
                    p.pair_separator,
                    p.signature_key,
                    kv = p.kv_separator
                ),
            )],
            None => {
                let mut headers = Vec::new();
                if let Some(names) = &self.timestamp_header {
                    headers.push((names.primary().to_owned(), timestamp));
                }
                headers.push((name, format!("{}{signature}", self.prefix)));
                headers
            }
        })
    }

    fn needs_url(&self) -> bool {
        self.signed_content.as_ref().is_some_and(Template::uses_url)
    }

    fn signature_headers(&self) -> &[String] {
        self.header.as_ref().map_or(&[], |h| &h.0)
    }
}

#[cfg(test)]
mod tests;
