//! `scheme = "jwt"`: the request carries a JWT, HMAC-signed with the shared
//! secret, whose claim holds the SHA-256 of the raw body. FusionAuth
//! (`X-FusionAuth-Signature-JWT`, claim `request_body_sha256`), Upstash
//! QStash (`Upstash-Signature`, claim `body`, issuer `Upstash`, subject =
//! the URL called), LiveKit (`Authorization`, claim `sha256`, issuer = the
//! API key, the secret configured as `API_KEY:API_SECRET`).
//!
//! Only the HMAC algorithms are accepted (never `none`, never an
//! algorithm the token picks outside the list). The token's `nbf`/`exp`
//! window is checked against the provider's tolerance like any signed
//! timestamp.

use jsonwebtoken::{Algorithm as JwtAlgorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::mac::{self, DigestEncoding};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "jwt"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JwtParams {
    /// Header that carries the token.
    pub header: HeaderNames,
    /// Text before the token in the header (`Bearer `), if any.
    #[serde(default)]
    pub prefix: String,
    /// The claim holding the body's SHA-256.
    pub body_hash_claim: String,
    /// How that hash is written: `base64` (padding optional), `base64url`,
    /// `hex`.
    pub body_hash_encoding: DigestEncoding,
    /// The `iss` the token must carry, if fixed.
    #[serde(default)]
    pub issuer: Option<String>,
    /// The secret is `ISSUER:SECRET`: the token's `iss` must be the first
    /// part, the second is the HMAC key (LiveKit's API key and secret).
    #[serde(default)]
    pub issuer_in_secret: bool,
    /// The token's `sub` must be the URL the provider called (Upstash).
    #[serde(default)]
    pub subject_is_url: bool,
}

const ALGORITHMS: [JwtAlgorithm; 3] = [
    JwtAlgorithm::HS256,
    JwtAlgorithm::HS384,
    JwtAlgorithm::HS512,
];

impl JwtParams {
    /// The expected issuer and the HMAC key a configured secret holds.
    fn split<'k>(&self, key: &'k [u8]) -> Option<(Option<&'k [u8]>, &'k [u8])> {
        if !self.issuer_in_secret {
            return Some((None, key));
        }
        let colon = key.iter().position(|&b| b == b':')?;
        Some((Some(&key[..colon]), &key[colon + 1..]))
    }

    /// Whether `claims` name the right issuer, subject and body.
    fn claims_hold(&self, claims: &Value, issuer: Option<&[u8]>, url: &str, body: &[u8]) -> bool {
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let issuer_ok = match (issuer, &self.issuer) {
            (Some(want), _) => text("iss").is_some_and(|iss| iss.as_bytes() == want),
            (None, Some(want)) => text("iss") == Some(want.as_str()),
            (None, None) => true,
        };
        let subject_ok = !self.subject_is_url || text("sub") == Some(url);
        let hash_ok = text(&self.body_hash_claim)
            .and_then(|h| mac::decode_digest(self.body_hash_encoding, h))
            .is_some_and(|h| bool::from(h.as_slice().ct_eq(Sha256::digest(body).as_slice())));
        issuer_ok && subject_ok && hash_ok
    }
}

impl Family for JwtParams {
    fn name(&self) -> &'static str {
        "jwt"
    }

    fn check(&self) -> Result<(), String> {
        if self.body_hash_claim.is_empty() {
            return Err("body_hash_claim: must not be empty".into());
        }
        if self.issuer_in_secret && self.issuer.is_some() {
            return Err("issuer and issuer_in_secret are exclusive".into());
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        if self.issuer_in_secret && !secret.contains(':') {
            return Err(KeyError::new(
                "this provider's secret is API_KEY:API_SECRET",
            ));
        }
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let value = super::required(req, &self.header)?;
        let token = value
            .trim()
            .strip_prefix(self.prefix.as_str())
            .ok_or(VerifyError::InvalidSignature)?;
        let alg = jsonwebtoken::decode_header(token)
            .map_err(|_| VerifyError::InvalidSignature)?
            .alg;
        if !ALGORITHMS.contains(&alg) {
            return Err(VerifyError::InvalidSignature);
        }
        // Times are checked by the caller against the tolerance, so the
        // library checks only the signature.
        let mut validation = Validation::new(alg);
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|k| self.split(k))
            .find_map(|(issuer, secret)| {
                let data = jsonwebtoken::decode::<Value>(
                    token,
                    &DecodingKey::from_secret(secret),
                    &validation,
                )
                .ok()?;
                self.claims_hold(&data.claims, issuer, req.url, &req.body)
                    .then_some(data.claims)
            })
            .ok_or(VerifyError::InvalidSignature)?;
        // The distance from now to the [nbf, exp] window is what the
        // tolerance bounds: inside the window, the time is now.
        let at = |name: &str| claims.get(name).and_then(Value::as_i64);
        Ok(match (at("nbf"), at("exp")) {
            (None, None) => None,
            (nbf, exp) => Some(
                req.received_at
                    .max(nbf.unwrap_or(i64::MIN))
                    .min(exp.unwrap_or(i64::MAX)),
            ),
        })
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let (issuer, secret) = key
            .shared_bytes()
            .and_then(|k| self.split(k))
            .ok_or(SignError::WrongKey)?;
        let mut claims = serde_json::json!({
            "iat": input.timestamp,
            "nbf": input.timestamp,
            "exp": input.timestamp + 300,
        });
        claims[&self.body_hash_claim] =
            mac::encode_digest(self.body_hash_encoding, &Sha256::digest(input.body)).into();
        if let Some(iss) = issuer.map(String::from_utf8_lossy) {
            claims["iss"] = iss.into_owned().into();
        } else if let Some(iss) = &self.issuer {
            claims["iss"] = iss.clone().into();
        }
        if self.subject_is_url {
            claims["sub"] = input.url.into();
        }
        let token = jsonwebtoken::encode(
            &Header::new(JwtAlgorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret),
        )
        .map_err(|_| SignError::WrongKey)?;
        Ok(vec![(
            self.header.primary().to_owned(),
            format!("{}{token}", self.prefix),
        )])
    }

    fn needs_url(&self) -> bool {
        self.subject_is_url
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}
