//! `scheme = "jwt"`: the request carries a JWT, HMAC-signed with the shared
//! secret, whose claim holds the SHA-256 of the raw body. FusionAuth
//! (`X-FusionAuth-Signature-JWT`, claim `request_body_sha256`), Upstash
//! QStash (`Upstash-Signature`, claim `body`, issuer `Upstash`, subject =
//! the URL called), LiveKit (`Authorization`, claim `sha256`, issuer = the
//! API key, the secret configured as `API_KEY:API_SECRET`), MessageBird
//! (`MessageBird-Signature-JWT`, issuer `MessageBird`, claim `url_hash` =
//! hex SHA-256 of the full URL called, claim `payload_hash` only when the
//! request has a body).
//!
//! Only the HMAC algorithms are accepted (never `none`, never an
//! algorithm the token picks outside the list). The token's `nbf`/`exp`
//! window is checked against the provider's tolerance like any signed
//! timestamp.

use jsonwebtoken::{Algorithm as JwtAlgorithm, DecodingKey, EncodingKey, Header};
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
    /// The claim holding the SHA-256 of the URL the provider called
    /// (scheme, host, port, path and query as sent), written in
    /// `body_hash_encoding` (MessageBird's `url_hash`).
    #[serde(default)]
    pub url_hash_claim: Option<String>,
    /// The body-hash claim is there only when the body is not empty: a
    /// token without it verifies only an empty body, and a token with it
    /// only a non-empty one (MessageBird's `payload_hash`).
    #[serde(default)]
    pub body_hash_if_body: bool,
    /// Claims the token must carry, whatever their value (MessageBird's
    /// verifier refuses a token without `jti`).
    #[serde(default)]
    pub required_claims: Vec<String>,
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
        let hashes = |claim: &str, content: &[u8]| {
            text(claim)
                .and_then(|h| mac::decode_digest(self.body_hash_encoding, h))
                .is_some_and(|h| bool::from(h.as_slice().ct_eq(Sha256::digest(content).as_slice())))
        };
        let hash_ok = if self.body_hash_if_body && body.is_empty() {
            claims.get(&self.body_hash_claim).is_none()
        } else {
            hashes(&self.body_hash_claim, body)
        };
        let url_ok = self
            .url_hash_claim
            .as_ref()
            .is_none_or(|claim| hashes(claim, url.as_bytes()));
        let required_ok = self.required_claims.iter().all(|c| claims.get(c).is_some());
        issuer_ok && subject_ok && hash_ok && url_ok && required_ok
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
        if self.url_hash_claim.as_deref() == Some("")
            || self.url_hash_claim.as_ref() == Some(&self.body_hash_claim)
        {
            return Err("url_hash_claim: must be a claim of its own, not empty".into());
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
        let validation = super::jws::signature_only(alg);
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
        Ok(super::jws::window_time(&claims, req.received_at, false))
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
        if !(self.body_hash_if_body && input.body.is_empty()) {
            claims[&self.body_hash_claim] =
                mac::encode_digest(self.body_hash_encoding, &Sha256::digest(input.body)).into();
        }
        for claim in &self.required_claims {
            if claims.get(claim).is_none() {
                claims[claim] = format!("{}-{}", input.timestamp, input.id).into();
            }
        }
        if let Some(claim) = &self.url_hash_claim {
            claims[claim] =
                mac::encode_digest(self.body_hash_encoding, &Sha256::digest(input.url)).into();
        }
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
        self.subject_is_url || self.url_hash_claim.is_some()
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://hooks.example.com/webhooks/messagebird?b=1&a=2";

    fn messagebird() -> JwtParams {
        JwtParams {
            header: HeaderNames(vec!["MessageBird-Signature-JWT".into()]),
            prefix: String::new(),
            body_hash_claim: "payload_hash".into(),
            body_hash_encoding: DigestEncoding::Hex,
            issuer: Some("MessageBird".into()),
            issuer_in_secret: false,
            subject_is_url: false,
            url_hash_claim: Some("url_hash".into()),
            body_hash_if_body: true,
            required_claims: vec!["jti".into()],
        }
    }

    fn hex_sha256(data: &[u8]) -> String {
        hex::encode(Sha256::digest(data))
    }

    fn token(claims: &Value, secret: &str) -> String {
        jsonwebtoken::encode(
            &Header::new(JwtAlgorithm::HS256),
            claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    fn verify(
        token: Option<&str>,
        url: &str,
        body: &str,
        secret: &str,
    ) -> Result<Option<i64>, VerifyError> {
        let p = messagebird();
        let headers: Vec<(String, String)> = token
            .map(|t| ("MessageBird-Signature-JWT".to_owned(), t.to_owned()))
            .into_iter()
            .collect();
        let req = UntrustedRequest {
            method: "POST",
            url,
            query: "",
            headers: &headers,
            body: bytes::Bytes::copy_from_slice(body.as_bytes()),
            received_at: 1_000,
        };
        let key = p.decode_secret(secret).unwrap();
        p.verify(&req, &[&key])
    }

    fn claims(url: &str, body: Option<&str>) -> Value {
        let mut c = serde_json::json!({
            "iss": "MessageBird", "nbf": 1_000, "exp": 1_060, "jti": "x",
            "url_hash": hex_sha256(url.as_bytes()),
        });
        if let Some(b) = body {
            c["payload_hash"] = hex_sha256(b.as_bytes()).into();
        }
        c
    }

    #[test]
    fn url_and_body_hashes_are_both_checked() {
        assert!(messagebird().check().is_ok());
        let t = token(&claims(URL, Some("{}")), "key");
        assert_eq!(verify(Some(&t), URL, "{}", "key"), Ok(Some(1_000)));
        // Wrong key, other body, other URL (reordered query), no token.
        let err = Err(VerifyError::InvalidSignature);
        assert_eq!(verify(Some(&t), URL, "{}", "other"), err);
        assert_eq!(verify(Some(&t), URL, "{ }", "key"), err);
        let reordered = "https://hooks.example.com/webhooks/messagebird?a=2&b=1";
        assert_eq!(verify(Some(&t), reordered, "{}", "key"), err);
        assert_eq!(
            verify(None, URL, "{}", "key"),
            Err(VerifyError::MissingSignature)
        );
    }

    #[test]
    fn the_body_hash_is_there_exactly_when_there_is_a_body() {
        let err = Err(VerifyError::InvalidSignature);
        let bodyless = token(&claims(URL, None), "key");
        assert_eq!(verify(Some(&bodyless), URL, "", "key"), Ok(Some(1_000)));
        // A body added in transit, or removed.
        assert_eq!(verify(Some(&bodyless), URL, "{}", "key"), err);
        let with_body = token(&claims(URL, Some("")), "key");
        assert_eq!(verify(Some(&with_body), URL, "", "key"), err);
    }

    #[test]
    fn missing_or_malformed_claims_and_tokens_fail() {
        let err = Err(VerifyError::InvalidSignature);
        let mut no_url = claims(URL, Some("{}"));
        no_url.as_object_mut().unwrap().remove("url_hash");
        assert_eq!(verify(Some(&token(&no_url, "key")), URL, "{}", "key"), err);
        let mut bad_hex = claims(URL, Some("{}"));
        bad_hex["url_hash"] = "zz".into();
        assert_eq!(verify(Some(&token(&bad_hex, "key")), URL, "{}", "key"), err);
        let mut no_jti = claims(URL, Some("{}"));
        no_jti.as_object_mut().unwrap().remove("jti");
        assert_eq!(verify(Some(&token(&no_jti, "key")), URL, "{}", "key"), err);
        let mut other_issuer = claims(URL, Some("{}"));
        other_issuer["iss"] = "Bird".into();
        assert_eq!(
            verify(Some(&token(&other_issuer, "key")), URL, "{}", "key"),
            err
        );
        for junk in ["", "a.b", "a.b.c", "\u{0}.\u{1}.\u{2}"] {
            assert_eq!(verify(Some(junk), URL, "{}", "key"), err, "{junk:?}");
        }
        // alg none is never accepted.
        let none = format!(
            "eyJhbGciOiJub25lIn0.{}.",
            URL_SAFE_NO_PAD_ENGINE.encode(claims(URL, Some("{}")).to_string())
        );
        assert_eq!(verify(Some(&none), URL, "{}", "key"), err);
    }

    #[test]
    fn what_it_signs_it_verifies() {
        let p = messagebird();
        let key = p.decode_secret("key").unwrap();
        for body in ["", "{\"a\":1}"] {
            let input = SignInput {
                method: "POST",
                url: URL,
                headers: &[],
                body: body.as_bytes(),
                id: "",
                timestamp: 1_000,
            };
            let headers = p.sign(&key, &input).unwrap();
            assert_eq!(
                verify(Some(&headers[0].1), URL, body, "key"),
                Ok(Some(1_000))
            );
        }
    }

    #[test]
    fn a_url_hash_claim_must_be_its_own() {
        let mut p = messagebird();
        p.url_hash_claim = Some("payload_hash".into());
        assert!(p.check().is_err());
        p.url_hash_claim = Some(String::new());
        assert!(p.check().is_err());
    }

    use base64::engine::general_purpose::URL_SAFE_NO_PAD as URL_SAFE_NO_PAD_ENGINE;
    use base64::Engine as _;
}
