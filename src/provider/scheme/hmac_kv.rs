//! `scheme = "hmac-kv"`: a timestamp and one or more signatures as
//! `key=value` pairs in one header, an HMAC over a template that includes
//! the timestamp. Stripe's `t=...,v1=...,v1=...`.
//!
//! The other pairs of the header can be signed too, with `{pair:Name}`:
//! Hygraph's `gcms-signature: sign=<s>, env=<environment>, t=<ms>` signs the
//! environment named beside the signature (`@hygraph/utils`
//! `verifyWebhookSignature`).
//!
//! A header may hold several whole sets of pairs (`set_separator`): Persona
//! sends `t=..,v1=.. t=..,v1=..`, one set per secret while one rotates.

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
    /// Separator between whole sets of pairs, each with its own timestamp
    /// and signatures (Persona, while a secret rotates: a space); any set
    /// may match. Without it the header is one set.
    #[serde(default)]
    pub set_separator: Option<String>,
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

impl HmacKvParams {
    /// One set of pairs: its timestamp when one of its signatures matches.
    /// A set without its timestamp or without signatures matches nothing:
    /// the timestamp is part of the signed content.
    fn verify_set<'h>(
        &self,
        set: &'h str,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<&'h str>, VerifyError> {
        let mut timestamp = None;
        let mut candidates = Vec::new();
        let mut pairs = Vec::new();
        for pair in set.split(self.pair_separator.as_str()) {
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
        let Some(timestamp) = timestamp else {
            return Ok(None);
        };
        if candidates.is_empty() {
            return Ok(None);
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
        let matched = mac::any_matches(
            self.algorithm,
            &self.signed_content,
            keys,
            &values,
            &candidates,
        )?;
        Ok(matched.then_some(timestamp))
    }
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
        if let Some(sep) = &self.set_separator {
            if sep.is_empty() || *sep == self.pair_separator || *sep == self.kv_separator {
                return Err(
                    "set_separator: must be non-empty and differ from the pair and key separators"
                        .into(),
                );
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
        let sets: Vec<&str> = match &self.set_separator {
            Some(sep) => header
                .split(sep.as_str())
                .filter(|s| !s.trim().is_empty())
                .collect(),
            None => vec![header],
        };
        for set in sets {
            if let Some(timestamp) = self.verify_set(set, req, keys)? {
                return self.timestamp_format.parse(timestamp).map(Some);
            }
        }
        Err(VerifyError::InvalidSignature)
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

#[cfg(test)]
mod tests {
    use hmac::{Hmac, Mac};
    use sha2::Sha256;

    use super::*;

    fn persona_like() -> HmacKvParams {
        toml::from_str(
            r#"
            header = "Persona-Signature"
            pair_separator = ","
            kv_separator = "="
            set_separator = " "
            timestamp_key = "t"
            signature_key = "v1"
            signed_content = "{timestamp}.{body}"
            "#,
        )
        .unwrap()
    }

    fn hex_mac(secret: &str, msg: &str) -> String {
        let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        m.update(msg.as_bytes());
        hex::encode(m.finalize().into_bytes())
    }

    fn verify(p: &HmacKvParams, header: &str, secret: &str) -> Result<Option<i64>, VerifyError> {
        let headers = vec![("Persona-Signature".to_owned(), header.to_owned())];
        let req = UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &headers,
            body: bytes::Bytes::from_static(b"{}"),
            received_at: 1_700_000_000,
        };
        let key = p.decode_secret(secret).unwrap();
        p.verify(&req, &[&key])
    }

    #[test]
    fn each_set_is_checked_with_its_own_timestamp() {
        let p = persona_like();
        p.check().unwrap();
        let (old, new) = ("wbhsec_old", "wbhsec_new");
        let header = format!(
            "t=1700000000,v1={} t=1700000001,v1={}",
            hex_mac(old, "1700000000.{}"),
            hex_mac(new, "1700000001.{}")
        );
        assert_eq!(verify(&p, &header, old).unwrap(), Some(1_700_000_000));
        assert_eq!(verify(&p, &header, new).unwrap(), Some(1_700_000_001));
        // A signature is never checked against another set's timestamp.
        let crossed = format!(
            "t=1700000001,v1={} t=1700000000,v1=00",
            hex_mac(old, "1700000000.{}")
        );
        assert!(matches!(
            verify(&p, &crossed, old),
            Err(VerifyError::InvalidSignature)
        ));
        assert!(matches!(
            verify(&p, &header, "wbhsec_other"),
            Err(VerifyError::InvalidSignature)
        ));
    }

    #[test]
    fn a_set_separator_equal_to_another_separator_is_refused() {
        let mut p = persona_like();
        p.set_separator = Some(",".into());
        assert!(p.check().unwrap_err().contains("set_separator"));
    }
}
