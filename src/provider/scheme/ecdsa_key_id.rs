//! `scheme = "ecdsa-key-id"`: an ECDSA P-256/SHA-256 signature (base64
//! DER) over the raw body, checked with the public key the request names
//! by ID, fetched from the provider's API with the tenant's API key.
//! Circle's v2 notifications (Wallets, Contracts, CPN, Gateway, StableFX):
//! `X-Circle-Signature` and `X-Circle-Key-Id`, the key from
//! `GET /v2/notifications/publicKey/{id}` (or the product's own path) with
//! `Authorization: Bearer <API key>`, answered as
//! `{"data": {"publicKey": <base64 DER SPKI>, "algorithm": "ECDSA_SHA_256"}}`
//! (see [`Key::fetched`]).
//!
//! # The credential, and what a forged request can make hookline do
//!
//! The key is fetched before the signature can be checked, so anyone can
//! make hookline ask the provider's API for a key ID of their choosing,
//! with the tenant's API key. Hence:
//!
//! - only over `https`, only from the definition's `fetch_hosts`
//!   ([`FetchHosts::allow`]), only after every check that needs no key
//!   (both headers there, the signature base64 DER, the key ID shaped like
//!   an ID: letters, digits and `-`, at most [`MAX_KEY_ID`] bytes, so it
//!   cannot change the URL's path or query);
//! - the API key goes only in the `Authorization` header of that fetch
//!   (marked sensitive), never in a log, an error or a `Debug` output
//!   ([`Bearer`]);
//! - a fetched key is cached by its URL, which holds the key ID, for a day
//!   (a key ID's key never changes); an ID the API does not know (404) is
//!   a verification failure (401 `invalid_signature`), remembered as such
//!   for a minute, not fetched again meanwhile; a 401 or 403 (the tenant's
//!   API key refused) is a verification failure too, logged as a warning,
//!   and remembered a minute for that tenant only (other tenants fetch
//!   the URL with their own key);
//! - new key IDs are fetched within a small budget per provider and tenant
//!   (`CREDENTIALED_FETCH_BURST` in `http::fetch_cache`); past it, requests
//!   are answered 503 + `Retry-After` (`fetch_failed`, counted in the
//!   request metrics): never 2xx, and the provider retries.
//!
//! A tenant's secret is the API key (`PREFIX:ID:SECRET`), or
//! `PRODUCT API_KEY` for a product whose key endpoint differs
//! (`product_keys_urls`).

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::Signature;
use serde::Deserialize;

use super::{Bearer, CertificateNeeded, Family, KeyAuth, SignError, SignInput, VerifyError};
use crate::provider::fetch_url::FetchHosts;
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// What a key URL writes for the request's key ID.
const KEY_ID: &str = "{key_id}";
/// The longest key ID accepted (Circle's are UUIDs: 36).
pub const MAX_KEY_ID: usize = 64;

/// The parameters of `scheme = "ecdsa-key-id"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcdsaKeyIdParams {
    /// Header carrying the base64 DER ECDSA P-256/SHA-256 signature of the
    /// raw body.
    pub header: HeaderNames,
    /// Header naming the ID of the key that signed.
    pub key_id_header: HeaderNames,
    /// The `https` URL of a key by ID, `{key_id}` standing for the ID; for
    /// a tenant whose secret names no product.
    pub keys_url: String,
    /// Other products' key URLs (same form), by product name: a tenant
    /// secret `NAME API_KEY` fetches from NAME's.
    #[serde(default)]
    pub product_keys_urls: BTreeMap<String, String>,
}

impl EcdsaKeyIdParams {
    /// The URL template and the API key of one decoded tenant secret.
    fn expect<'s>(&'s self, secret: &'s [u8]) -> Option<(&'s str, &'s str)> {
        let secret = std::str::from_utf8(secret).ok()?;
        match secret.split_once(' ') {
            None => Some((self.keys_url.as_str(), secret)),
            Some((product, api_key)) => self
                .product_keys_urls
                .get(product)
                .map(|url| (url.as_str(), api_key)),
        }
    }

    /// The signature (DER, read in low-S form) and the key ID, once both
    /// are well formed.
    fn read<'r>(&self, req: &'r UntrustedRequest<'_>) -> Result<(Signature, &'r str), VerifyError> {
        let signature = super::required(req, &self.header)?.trim();
        let key_id = super::required(req, &self.key_id_header)?.trim();
        let der = STANDARD
            .decode(signature)
            .map_err(|_| VerifyError::InvalidSignature)?;
        let signature = Signature::from_der(&der).map_err(|_| VerifyError::InvalidSignature)?;
        // Node's verifier (Circle's sample) accepts a high-S signature.
        let signature = signature.normalize_s().unwrap_or(signature);
        if !key_id_shaped(key_id) {
            return Err(VerifyError::InvalidSignature);
        }
        Ok((signature, key_id))
    }
}

/// Whether `id` may go into a URL's path as it is: 1 to [`MAX_KEY_ID`]
/// letters, digits and `-`.
pub(crate) fn key_id_shaped(id: &str) -> bool {
    (1..=MAX_KEY_ID).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Whether `template` is an `https` URL with exactly one `{key_id}`, in
/// its path.
fn check_template(name: &str, template: &str) -> Result<(), String> {
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

impl Family for EcdsaKeyIdParams {
    fn name(&self) -> &'static str {
        "ecdsa-key-id"
    }

    fn check(&self) -> Result<(), String> {
        check_template("keys_url", &self.keys_url)?;
        for (product, url) in &self.product_keys_urls {
            if product.is_empty() || product.contains(char::is_whitespace) {
                return Err("product_keys_urls: a product name has no spaces".into());
            }
            check_template(&format!("product_keys_urls.{product}"), url)?;
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let secret = secret.trim();
        let parts: Vec<&str> = secret.split_whitespace().collect();
        let valid = match parts.as_slice() {
            [_] => true,
            [product, _] => self.product_keys_urls.contains_key(*product),
            _ => false,
        };
        if !valid {
            let products: Vec<&str> = self.product_keys_urls.keys().map(String::as_str).collect();
            return Err(KeyError::new(format!(
                "this provider's secret is its API key, or \"PRODUCT API_KEY\" with PRODUCT one of: {}",
                products.join(", ")
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
        let ok = keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|s| self.expect(s))
            .map(|(template, _)| template.replacen(KEY_ID, key_id, 1))
            .filter_map(|url| keys.iter().find_map(|k| k.fetched_p256_from(&url)))
            .any(|key| key.verify(&req.body, &signature).is_ok());
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(None)
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
            .filter_map(|(template, api_key)| {
                let url = hosts.allow(&template.replacen(KEY_ID, key_id, 1))?;
                Some((url, KeyAuth::Bearer(Bearer::new(api_key))))
            });
        CertificateNeeded::credentialed(pairs)
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}

#[cfg(test)]
#[path = "ecdsa_key_id_tests.rs"]
mod tests;
