//! `scheme = "hmac-kv"`: a timestamp and one or more signatures as
//! `key=value` pairs in one header, an HMAC over a template that includes
//! the timestamp. Stripe's `t=...,v1=...,v1=...`.
//!
//! The other pairs of the header can be signed too, with `{pair:Name}`:
//! Hygraph's `gcms-signature: sign=<s>, env=<environment>, t=<ms>` signs the
//! environment named beside the signature (`@hygraph/utils`
//! `verifyWebhookSignature`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding, TimestampFormat};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{Template, Values};

/// The parameters of `scheme = "hmac-kv"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HmacKvParams {
    /// Header that carries the pairs.
    pub header: HeaderNames,
    /// `sha1`, `sha256` (default) or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How each digest is written: `hex` (default), `base64`, `base64url`.
    #[serde(default)]
    pub encoding: DigestEncoding,
    /// Separator between pairs (Stripe: `,`).
    pub pair_separator: String,
    /// Separator between a key and its value (Stripe: `=`).
    pub kv_separator: String,
    /// Key of the timestamp pair (Stripe: `t`).
    pub timestamp_key: String,
    /// Key of the signature pairs, of which there may be several (Stripe:
    /// `v1`); pairs with other keys are ignored.
    pub signature_key: String,
    /// The signed content (see [`Template`]); it must include `{timestamp}`.
    pub signed_content: Template,
    /// How the timestamp is written: `unix` (default), `unix-ms`,
    /// `rfc3339`, `iso8601-utc`, `http-date`.
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// How a configured secret becomes key bytes: `utf8` (default),
    /// `whsec-base64`, `base64`, `hex`.
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
    /// The value a sender (`hookline sign`) writes for each `{pair:Name}`
    /// the signed content names (Hygraph: `env = "master"`, its default
    /// environment). Verification reads the pair from the request.
    #[serde(default)]
    pub sign_pairs: BTreeMap<String, String>,
}

impl Family for HmacKvParams {
    fn name(&self) -> &'static str {
        "hmac-kv"
    }

    fn check(&self) -> Result<(), String> {
        for (field, v) in [
            ("pair_separator", &self.pair_separator),
            ("kv_separator", &self.kv_separator),
            ("timestamp_key", &self.timestamp_key),
            ("signature_key", &self.signature_key),
        ] {
            if v.is_empty() {
                return Err(format!("{field}: must not be empty"));
            }
        }
        // The header's timestamp is checked against the tolerance, which
        // only means something if the signature covers it.
        if !self.signed_content.uses_timestamp() {
            return Err("signed_content must include {timestamp}".into());
        }
        if self.signed_content.uses_id() {
            return Err("signed_content uses {id}, which hmac-kv has no source for".into());
        }
        if let Some(name) = self
            .signed_content
            .pair_names()
            .find(|n| !self.sign_pairs.contains_key(*n))
        {
            return Err(format!(
                "signed_content uses {{pair:{name}}}: sign_pairs needs a value for it"
            ));
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        mac::decode_secret(self.secret_encoding, secret)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let header = super::required(req, &self.header)?;
        let mut timestamp = None;
        let mut candidates = Vec::new();
        let mut pairs = Vec::new();
        for pair in header.split(self.pair_separator.as_str()) {
            if let Some((k, v)) = pair.trim().split_once(self.kv_separator.as_str()) {
                if k == self.timestamp_key {
                    timestamp = Some(v);
                } else if k == self.signature_key {
                    candidates.extend(mac::decode_digest(self.encoding, v.trim()));
                } else if self.signed_content.pair_names().any(|n| n == k) {
                    pairs.push((k.to_owned(), v.to_owned()));
                }
            }
        }
        // Without its timestamp no signature can be checked: the timestamp
        // is part of the signed content.
        let Some(timestamp) = timestamp else {
            return Err(VerifyError::InvalidSignature);
        };
        if candidates.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        let values = Values {
            id: "",
            timestamp,
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: &req.body,
            pairs: &pairs,
        };
        if !mac::any_matches(
            self.algorithm,
            &self.signed_content,
            keys,
            &values,
            &candidates,
        )? {
            return Err(VerifyError::InvalidSignature);
        }
        self.timestamp_format.parse(timestamp).map(Some)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let timestamp = self.timestamp_format.format(input.timestamp);
        let pairs: Vec<(String, String)> = self
            .sign_pairs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let values = Values {
            id: "",
            timestamp: &timestamp,
            method: input.method,
            url: input.url,
            headers: &input.headers,
            body: input.body,
            pairs: &pairs,
        };
        let digest = mac::sign(
            self.algorithm,
            self.encoding,
            &self.signed_content,
            key,
            &values,
        )?;
        let (kv, sep) = (&self.kv_separator, &self.pair_separator);
        let mut header = format!(
            "{}{kv}{timestamp}{sep}{}{kv}{digest}",
            self.timestamp_key, self.signature_key
        );
        for (k, v) in &pairs {
            header.push_str(&format!("{sep}{k}{kv}{v}"));
        }
        Ok(vec![(self.header.primary().to_owned(), header)])
    }

    fn needs_url(&self) -> bool {
        self.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}
