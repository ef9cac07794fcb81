//! `scheme = "jwt-public-key"`: the body is a JWT signed with the
//! provider's RSA key, checked with the public key the tenant configures
//! (nothing is fetched). Wix: the whole body is an RS256 JWT verified with
//! the app's public key; its claims are the event.
//!
//! Only the algorithms the definition lists are accepted (never `none`,
//! never HMAC, which a public key would turn into a shared secret). The
//! token's `[nbf or iat, exp]` window is checked against the provider's
//! tolerance like any signed timestamp.

use jsonwebtoken::{Algorithm, DecodingKey};
use rsa::traits::PublicKeyParts;
use serde::Deserialize;
use serde_json::Value;

use super::jws;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "jwt-public-key"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JwtPublicKeyParams {
    /// The algorithms accepted: `RS256`, `RS384`, `RS512`, `PS256`,
    /// `PS384`, `PS512` (the key is RSA).
    pub algorithms: Vec<Algorithm>,
}

const RSA: [Algorithm; 6] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

impl Family for JwtPublicKeyParams {
    fn name(&self) -> &'static str {
        "jwt-public-key"
    }

    fn check(&self) -> Result<(), String> {
        if self.algorithms.is_empty() {
            return Err("algorithms: must list at least one".into());
        }
        match self.algorithms.iter().find(|a| !RSA.contains(a)) {
            Some(alg) => Err(format!(
                "algorithms: {alg:?} is not an RSA algorithm; the key is an RSA public key"
            )),
            None => Ok(()),
        }
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        super::rsa_key::public_key(secret).map(Key::rsa)
    }

    /// A private key decodes (tests, fuzzing), though only the provider
    /// signs: [`Family::sign`] refuses.
    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        super::rsa_key::private_key(text)
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        super::rsa_key::public_pem(private)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let token = jws::body_token(&req.body)?;
        let alg = jsonwebtoken::decode_header(token)
            .map_err(|_| VerifyError::InvalidSignature)?
            .alg;
        if !self.algorithms.contains(&alg) {
            return Err(VerifyError::InvalidSignature);
        }
        let validation = jws::signature_only(alg);
        let claims = keys
            .iter()
            .filter_map(|k| k.rsa_public())
            .find_map(|key| {
                let key = DecodingKey::from_rsa_raw_components(
                    &key.n().to_bytes_be(),
                    &key.e().to_bytes_be(),
                );
                jsonwebtoken::decode::<Value>(token, &key, &validation)
                    .ok()
                    .map(|data| data.claims)
            })
            .ok_or(VerifyError::InvalidSignature)?;
        Ok(jws::window_time(&claims, req.received_at, true))
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};
    use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};

    const WIX: &str = include_str!("../../../tests/vectors/wix/test-wix-key.pem");
    const OTHER: &str = include_str!("../../../tests/vectors/wix/test-other-key.pem");

    fn public(private: &str) -> String {
        rsa::RsaPublicKey::from(rsa::RsaPrivateKey::from_pkcs8_pem(private).unwrap())
            .to_public_key_pem(LineEnding::LF)
            .unwrap()
    }

    fn params() -> JwtPublicKeyParams {
        JwtPublicKeyParams {
            algorithms: vec![Algorithm::RS256],
        }
    }

    fn token(alg: Algorithm, claims: &Value, private: &str) -> String {
        jsonwebtoken::encode(
            &Header::new(alg),
            claims,
            &EncodingKey::from_rsa_pem(private.as_bytes()).unwrap(),
        )
        .unwrap()
    }

    fn verify(body: &str, secrets: &[String]) -> Result<Option<i64>, VerifyError> {
        let p = params();
        let keys: Vec<Key> = secrets
            .iter()
            .map(|s| p.decode_secret(s).unwrap())
            .collect();
        let keys: Vec<&Key> = keys.iter().collect();
        let headers: Vec<(String, String)> = Vec::new();
        let req = UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &headers,
            body: bytes::Bytes::copy_from_slice(body.as_bytes()),
            received_at: 1_000,
        };
        p.verify(&req, &keys)
    }

    fn claims() -> Value {
        serde_json::json!({"data": "{\"eventType\":\"x\"}", "iat": 990, "exp": 1_290})
    }

    #[test]
    fn the_app_key_verifies_and_another_does_not() {
        assert!(params().check().is_ok());
        let body = token(Algorithm::RS256, &claims(), WIX);
        assert_eq!(verify(&body, &[public(WIX)]), Ok(Some(1_000)));
        assert_eq!(
            verify(&format!("{body}\n"), &[public(WIX)]),
            Ok(Some(1_000))
        );
        let err = Err(VerifyError::InvalidSignature);
        assert_eq!(verify(&body, &[public(OTHER)]), err);
        // Rotation: either configured key.
        assert_eq!(
            verify(&body, &[public(OTHER), public(WIX)]),
            Ok(Some(1_000))
        );
        // The signed window: received after exp, the time is exp.
        let mut late = claims();
        late["exp"] = 900.into();
        let late = token(Algorithm::RS256, &late, WIX);
        assert_eq!(verify(&late, &[public(WIX)]), Ok(Some(900)));
    }

    #[test]
    fn tampered_unlisted_and_malformed_tokens_fail() {
        let err = Err(VerifyError::InvalidSignature);
        let body = token(Algorithm::RS256, &claims(), WIX);
        let mut parts: Vec<&str> = body.split('.').collect();
        let mut other = claims();
        other["data"] = "{\"eventType\":\"y\"}".into();
        let forged = base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            other.to_string(),
        );
        parts[1] = &forged;
        assert_eq!(verify(&parts.join("."), &[public(WIX)]), err);
        // An algorithm the definition does not list.
        let ps = token(Algorithm::PS256, &claims(), WIX);
        assert_eq!(verify(&ps, &[public(WIX)]), err);
        // HMAC keyed with the public key's text: never accepted.
        let hs = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims(),
            &EncodingKey::from_secret(public(WIX).as_bytes()),
        )
        .unwrap();
        assert_eq!(verify(&hs, &[public(WIX)]), err);
        assert_eq!(verify("a.b.c", &[public(WIX)]), err);
        for missing in ["", "{\"data\":1}", "a.b", "\u{0}"] {
            assert_eq!(
                verify(missing, &[public(WIX)]),
                Err(VerifyError::MissingSignature),
                "{missing:?}"
            );
        }
    }

    #[test]
    fn only_rsa_public_keys_and_algorithms() {
        let p = params();
        assert!(p.decode_secret("not a key").is_err());
        assert!(p.decode_secret(WIX).is_err());
        for bad in [vec![], vec![Algorithm::HS256], vec![Algorithm::ES256]] {
            assert!(JwtPublicKeyParams { algorithms: bad }.check().is_err());
        }
    }
}
