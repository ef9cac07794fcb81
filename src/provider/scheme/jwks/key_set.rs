//! A provider's published signing keys, as its key URL answers them: a
//! JWK Set (RFC 7517: `{"keys": [...]}`, Kinde, Google's `oauth2/v3/certs`)
//! or Google's map of key ID to PEM X.509 certificate
//! (`oauth2/v1/certs`, what `google-auth` fetches).
//!
//! Only public RSA and EC keys are kept: a symmetric (`oct`) key in a
//! published set would let anyone who read it sign, so it is dropped, as
//! is a key marked for encryption (`"use": "enc"`) or an RSA key shorter
//! than 2048 bits.

use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use rsa::traits::PublicKeyParts;
use serde_json::Value;

use crate::provider::key::KeyError;

/// The smallest RSA key accepted, in bytes of modulus.
const MIN_RSA_BYTES: usize = 2048 / 8;

/// One published key.
#[derive(Clone)]
pub(crate) struct PublishedKey {
    /// `kid`: what a token's header names to pick it.
    pub id: Option<String>,
    /// `alg`, when the set pins one.
    pub alg: Option<Algorithm>,
    pub key: DecodingKey,
}

/// The keys one URL answered, and how long the answer may be used.
#[derive(Clone)]
pub(crate) struct KeySet {
    pub keys: Vec<PublishedKey>,
    /// The answer's `Cache-Control: max-age`, if it had one.
    pub max_age: Option<Duration>,
}

impl KeySet {
    /// Parse what a key URL answered. A set with no usable key is an
    /// error: it would only ever refuse.
    pub(crate) fn parse(body: &[u8], max_age: Option<Duration>) -> Result<KeySet, KeyError> {
        let value: Value =
            serde_json::from_slice(body).map_err(|_| KeyError::new("the key set is not JSON"))?;
        let keys = if value.get("keys").is_some() {
            let set: JwkSet = serde_json::from_value(value)
                .map_err(|_| KeyError::new("the key set is not a JWK Set"))?;
            set.keys.iter().filter_map(from_jwk).collect()
        } else {
            let map = value
                .as_object()
                .ok_or_else(|| KeyError::new("the key set is neither a JWK Set nor a map"))?;
            map.iter()
                .filter_map(|(id, pem)| from_certificate(id, pem.as_str()?))
                .collect::<Vec<_>>()
        };
        if keys.is_empty() {
            return Err(KeyError::new("the key set holds no usable public key"));
        }
        Ok(KeySet { keys, max_age })
    }

    /// Whether a key has ID `id`.
    pub(crate) fn has(&self, id: &str) -> bool {
        self.keys.iter().any(|k| k.id.as_deref() == Some(id))
    }
}

fn from_jwk(jwk: &Jwk) -> Option<PublishedKey> {
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    match &jwk.algorithm {
        AlgorithmParameters::RSA(rsa) => {
            let n = URL_SAFE_NO_PAD.decode(rsa.n.trim_end_matches('=')).ok()?;
            let significant = n.iter().skip_while(|&&b| b == 0).count();
            if significant < MIN_RSA_BYTES {
                return None;
            }
        }
        AlgorithmParameters::EllipticCurve(_) => {}
        AlgorithmParameters::OctetKey(_) | AlgorithmParameters::OctetKeyPair(_) => return None,
    }
    let alg = jwk
        .common
        .key_algorithm
        .and_then(|a| a.to_string().parse::<Algorithm>().ok());
    Some(PublishedKey {
        id: jwk.common.key_id.clone(),
        alg,
        key: DecodingKey::from_jwk(jwk).ok()?,
    })
}

fn from_certificate(id: &str, pem: &str) -> Option<PublishedKey> {
    let key = super::super::rsa_cert_url::certificate_key(pem.as_bytes()).ok()?;
    Some(PublishedKey {
        id: Some(id.to_owned()),
        alg: None,
        key: DecodingKey::from_rsa_raw_components(&key.n().to_bytes_be(), &key.e().to_bytes_be()),
    })
}
