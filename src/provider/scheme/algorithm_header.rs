//! A header naming which HMAC hash signed the request, for the `hmac`
//! family's `algorithm_header`: Sumsub sends `X-Payload-Digest-Alg:
//! HMAC_SHA256_HEX` (or `_SHA1_`, `_SHA512_`) beside `X-Payload-Digest`,
//! and its own receiver example picks the hash by it, SHA-256 when the
//! header is absent (github.com/SumSubstance/agent-skills,
//! `skills/sumsub-integrate-websdk/examples/webhook-verify.js`).
//!
//! Every hash offered is an HMAC with the tenant's key, so letting the
//! request choose among them gives a forger nothing; a name the table
//! does not hold is a refusal, never a fallback.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::mac::Algorithm;
use super::VerifyError;
use crate::provider::header::{HeaderLookup, HeaderNames};

/// `[signature.algorithm_header]`: the header and what its values mean.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlgorithmHeader {
    /// The header naming the hash (Sumsub: `X-Payload-Digest-Alg`).
    pub name: HeaderNames,
    /// Each value the header may carry and the hash it names
    /// (`HMAC_SHA256_HEX = "sha256"`). Without the header, the family's
    /// `algorithm` is used.
    pub values: BTreeMap<String, Algorithm>,
}

impl AlgorithmHeader {
    /// The table must name `default`, which is used without the header
    /// and which a sender writes.
    pub(crate) fn check(&self, default: Algorithm) -> Result<(), String> {
        match self.name_of(default) {
            Some(_) => Ok(()),
            None => Err("algorithm_header.values must name the family's algorithm".into()),
        }
    }

    /// The hash `headers` name, or `default` when they name none.
    pub(crate) fn pick(
        &self,
        headers: &dyn HeaderLookup,
        default: Algorithm,
    ) -> Result<Algorithm, VerifyError> {
        match headers.first_of(&self.name) {
            None => Ok(default),
            Some(v) => (self.values.get(v.trim()).copied()).ok_or(VerifyError::InvalidSignature),
        }
    }

    /// The value a sender writes for `algorithm`, if the table has one.
    pub(crate) fn name_of(&self, algorithm: Algorithm) -> Option<&str> {
        self.values
            .iter()
            .find(|(_, a)| **a == algorithm)
            .map(|(name, _)| name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sumsub() -> AlgorithmHeader {
        toml::from_str(
            "name = \"X-Payload-Digest-Alg\"\n[values]\nHMAC_SHA1_HEX = \"sha1\"\nHMAC_SHA256_HEX = \"sha256\"\nHMAC_SHA512_HEX = \"sha512\"",
        )
        .unwrap()
    }

    #[test]
    fn the_header_picks_the_hash_and_an_unknown_name_is_refused() {
        let h = sumsub();
        h.check(Algorithm::Sha256).unwrap();
        assert!(h.check(Algorithm::Sha1).is_ok());
        let with = |v: &str| vec![("x-payload-digest-alg".to_owned(), v.to_owned())];
        assert_eq!(
            h.pick(&with("HMAC_SHA512_HEX"), Algorithm::Sha256),
            Ok(Algorithm::Sha512)
        );
        assert_eq!(
            h.pick(&with("HMAC_SHA1_HEX"), Algorithm::Sha256),
            Ok(Algorithm::Sha1)
        );
        assert_eq!(
            h.pick(&with("MD5"), Algorithm::Sha256),
            Err(VerifyError::InvalidSignature)
        );
        let none: Vec<(String, String)> = Vec::new();
        assert_eq!(h.pick(&none, Algorithm::Sha256), Ok(Algorithm::Sha256));
        assert_eq!(h.name_of(Algorithm::Sha256), Some("HMAC_SHA256_HEX"));
    }
}
