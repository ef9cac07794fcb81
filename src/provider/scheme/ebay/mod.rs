//! `scheme = "ebay"`: eBay's Notification API pushes (Marketplace Account
//! Deletion and the other topics), as eBay's own SDK verifies them
//! (`event-notification-nodejs-sdk` 1.0.3, `lib/validator.js`):
//!
//! - `X-EBAY-SIGNATURE` is base64 of a JSON object
//!   `{"alg": "ecdsa", "kid": <key ID>, "signature": <base64 DER>,
//!   "digest": "SHA1"}`; the SDK reads `kid` and `signature` only;
//! - the signature is ECDSA P-256 over SHA-1 (`createVerify('ssl3-sha1')`)
//!   of `JSON.stringify` of the parsed body: hookline checks it over the
//!   raw bytes and, where they differ, over that re-serialization
//!   ([`stringify`], which refuses what could be read two ways); either
//!   verifies;
//! - the key is fetched by `kid` from the Notification API's getPublicKey
//!   (`GET https://api.ebay.com/commerce/notification/v1/public_key/{kid}`,
//!   sandbox `api.sandbox.ebay.com`) with `Authorization: bearer <token>`,
//!   answered `{"key": <PEM>, "algorithm": "ECDSA", "digest": "SHA1"}`
//!   (see `Key::fetched`), and kept an hour, as eBay recommends;
//! - the token is an application token (`ebay-oauth-nodejs-client`'s
//!   `getApplicationToken`): `POST /identity/v1/oauth2/token` on the same
//!   host with `Authorization: Basic base64(client ID:client secret)` and
//!   `grant_type=client_credentials&scope=https://api.ebay.com/oauth/api_scope`,
//!   answered `{"access_token", "expires_in"}`; the HTTP layer obtains and
//!   caches it (`http::fetch_token`).
//!
//! # The credential, and what a forged request can make hookline do
//!
//! As for `ecdsa-key-id` (Circle): the key is fetched before the signature
//! can be checked, so only after every check that needs no key (the header
//! there, base64 JSON with a `kid` shaped like an ID and a base64 DER
//! signature), only over `https` from the definition's `fetch_hosts`,
//! within the credentialed budget per provider and tenant (503 +
//! `Retry-After` past it); the token is fetched only for a key fetch, and
//! reused until it expires. The client secret goes only into the token
//! call's `Authorization` header, the token only into the key call's: never
//! into a log, an error or a `Debug` output.
//!
//! A tenant's secret is `CLIENT_ID:CLIENT_SECRET` (the keyset's App ID and
//! Cert ID) for a production app, or `ENVIRONMENT CLIENT_ID:CLIENT_SECRET`
//! for another environment of the definition (`sandbox`).

pub mod stringify;

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use p256::ecdsa::signature::hazmat::PrehashVerifier;
use p256::ecdsa::Signature;
use serde::Deserialize;
use sha1::{Digest as _, Sha1};

use super::ecdsa_key_id::key_id_shaped;
use super::{
    Bearer, CertificateNeeded, ClientCredentials, Family, KeyAuth, SignError, SignInput,
    VerifyError,
};
use crate::provider::fetch_url::FetchHosts;
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// What a key URL writes for the request's key ID.
const KEY_ID: &str = "{key_id}";

/// The parameters of `scheme = "ebay"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbayParams {
    /// Header carrying the base64 JSON signature object.
    pub header: HeaderNames,
    /// The OAuth scope of the application token.
    pub scope: String,
    /// The `https` URL of a production key by ID, `{key_id}` standing for
    /// the ID, for a tenant secret that names no environment.
    pub keys_url: String,
    /// The `https` URL a production application token is obtained from.
    pub token_url: String,
    /// Other environments' endpoints, by name: a tenant secret `NAME
    /// CLIENT_ID:CLIENT_SECRET` uses NAME's.
    #[serde(default)]
    pub environments: BTreeMap<String, Endpoints>,
}

/// One environment's token and key endpoints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    /// The `https` URL of a key by ID, `{key_id}` standing for the ID.
    pub keys_url: String,
    /// The `https` URL the application token is obtained from.
    pub token_url: String,
}

/// One decoded tenant secret.
struct Secret<'s> {
    keys_url: &'s str,
    token_url: &'s str,
    client_id: &'s str,
    client_secret: &'s str,
}

/// What `X-EBAY-SIGNATURE` decodes to; `alg` and `digest` are not read
/// (the SDK reads neither: the key's answer says the algorithm).
#[derive(Deserialize)]
struct SignatureHeader {
    kid: String,
    signature: String,
}

impl EbayParams {
    /// The endpoints and credentials of one decoded tenant secret.
    fn expect<'s>(&'s self, secret: &'s [u8]) -> Option<Secret<'s>> {
        let secret = std::str::from_utf8(secret).ok()?;
        let ((keys_url, token_url), credentials) = match secret.split_once(' ') {
            None => ((&self.keys_url, &self.token_url), secret),
            Some((environment, credentials)) => {
                let e = self.environments.get(environment)?;
                ((&e.keys_url, &e.token_url), credentials)
            }
        };
        let (client_id, client_secret) = credentials.split_once(':')?;
        Some(Secret {
            keys_url,
            token_url,
            client_id,
            client_secret,
        })
    }

    /// The signature (DER, read in low-S form) and the key ID, once the
    /// header decodes and both are well formed.
    fn read(&self, req: &UntrustedRequest<'_>) -> Result<(Signature, String), VerifyError> {
        let header = super::required(req, &self.header)?.trim();
        let json = STANDARD
            .decode(header)
            .map_err(|_| VerifyError::InvalidSignature)?;
        let header: SignatureHeader =
            serde_json::from_slice(&json).map_err(|_| VerifyError::InvalidSignature)?;
        let der = STANDARD
            .decode(header.signature.trim())
            .map_err(|_| VerifyError::InvalidSignature)?;
        let signature = Signature::from_der(&der).map_err(|_| VerifyError::InvalidSignature)?;
        // OpenSSL (the SDK's verifier) accepts a high-S signature.
        let signature = signature.normalize_s().unwrap_or(signature);
        if !key_id_shaped(&header.kid) {
            return Err(VerifyError::InvalidSignature);
        }
        Ok((signature, header.kid))
    }
}

/// Whether `template` is an `https` URL with exactly one `{key_id}`, in
/// its path.
fn check_keys_url(name: &str, template: &str) -> Result<(), String> {
    if template.matches(KEY_ID).count() != 1 {
        return Err(format!("{name}: must hold {KEY_ID} once"));
    }
    match url::Url::parse(&template.replace(KEY_ID, "id")) {
        Ok(u)
            if u.scheme() == "https"
                && u.query().is_none()
                && u.path().contains("id")
                && !u.host_str().unwrap_or_default().contains("id") =>
        {
            Ok(())
        }
        _ => Err(format!(
            "{name}: must be an https URL with {KEY_ID} in its path"
        )),
    }
}

fn check_endpoints(name: &str, keys_url: &str, token_url: &str) -> Result<(), String> {
    check_keys_url(&format!("{name}keys_url"), keys_url)?;
    match url::Url::parse(token_url) {
        Ok(u) if u.scheme() == "https" && u.query().is_none() => Ok(()),
        _ => Err(format!("{name}token_url: must be an https URL")),
    }
}

/// `message` signed by `key` (ECDSA over SHA-1)?
fn verifies(key: &p256::ecdsa::VerifyingKey, message: &[u8], signature: &Signature) -> bool {
    key.verify_prehash(&Sha1::digest(message), signature)
        .is_ok()
}

impl Family for EbayParams {
    fn name(&self) -> &'static str {
        "ebay"
    }

    fn check(&self) -> Result<(), String> {
        check_endpoints("", &self.keys_url, &self.token_url)?;
        for (name, endpoints) in &self.environments {
            if name.is_empty() || name.contains(char::is_whitespace) || name.contains(':') {
                return Err("environments: a name has no spaces or colons".into());
            }
            let at = format!("environments.{name}.");
            check_endpoints(&at, &endpoints.keys_url, &endpoints.token_url)?;
        }
        if self.scope.trim().is_empty() {
            return Err("scope: must not be empty".into());
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let parts: Vec<&str> = secret.split_whitespace().collect();
        let (environment, credentials) = match parts.as_slice() {
            [credentials] => (None, *credentials),
            [environment, credentials] => (Some(*environment), *credentials),
            _ => (None, ""),
        };
        let known = environment.is_none_or(|e| self.environments.contains_key(e));
        let paired = credentials
            .split_once(':')
            .is_some_and(|(id, secret)| !id.is_empty() && !secret.is_empty());
        if !known || !paired {
            let names: Vec<&str> = self.environments.keys().map(String::as_str).collect();
            return Err(KeyError::new(format!(
                "this provider's secret is CLIENT_ID:CLIENT_SECRET (the keyset's App ID and Cert ID), or \"ENVIRONMENT CLIENT_ID:CLIENT_SECRET\" with ENVIRONMENT one of: {}",
                names.join(", ")
            )));
        }
        Key::shared(parts.join(" ").into_bytes())
    }

    fn decode_private_key(&self, _text: &str) -> Result<Key, KeyError> {
        Err(KeyError::new(
            "only the provider signs for this scheme, with the keys its API serves",
        ))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let (signature, key_id) = self.read(req)?;
        let fetched: Vec<&p256::ecdsa::VerifyingKey> = keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|s| self.expect(s))
            .map(|s| s.keys_url.replacen(KEY_ID, &key_id, 1))
            .filter_map(|url| keys.iter().find_map(|k| k.fetched_p256_sha1_from(&url)))
            .collect();
        if fetched.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        if fetched.iter().any(|k| verifies(k, &req.body, &signature)) {
            return Ok(None);
        }
        // What the SDK verifies: JSON.stringify of the parsed body.
        match stringify::stringify(&req.body) {
            Ok(text) if text.as_bytes() != &req.body[..] => {
                if fetched
                    .iter()
                    .any(|k| verifies(k, text.as_bytes(), &signature))
                {
                    return Ok(None);
                }
            }
            Ok(_) => {}
            Err(refused) => {
                tracing::debug!(
                    reason = refused.reason(),
                    "not verified over a re-serialization of the body"
                );
            }
        }
        Err(VerifyError::InvalidSignature)
    }

    fn fetches(&self) -> bool {
        true
    }

    fn certificate(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
        hosts: &FetchHosts,
    ) -> Result<Option<CertificateNeeded>, VerifyError> {
        let (_, key_id) = self.read(req)?;
        let pairs = keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|s| self.expect(s))
            .filter_map(|secret| {
                let url = hosts.allow(&secret.keys_url.replacen(KEY_ID, &key_id, 1))?;
                let token_url = hosts.allow(secret.token_url)?;
                let grant = ClientCredentials {
                    token_url,
                    client_id: secret.client_id.to_owned(),
                    client_secret: Bearer::new(secret.client_secret),
                    scope: self.scope.clone(),
                };
                Some((url, KeyAuth::ClientCredentials(grant)))
            });
        CertificateNeeded::credentialed(pairs)
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    /// The endpoint challenge hashes the endpoint's URL.
    fn needs_url(&self) -> bool {
        true
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}

#[cfg(test)]
mod tests;
