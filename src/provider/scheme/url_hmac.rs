//! `scheme = "url-hmac"`: an HMAC over the full URL the provider called,
//! followed by the form parameters sorted by name (see
//! [`crate::provider::form::sorted_params`]). Twilio: base64
//! HMAC-SHA1(Auth Token, URL + params) in `X-Twilio-Signature`
//! (<https://www.twilio.com/docs/usage/webhooks/webhooks-security>).
//!
//! Two of Twilio's rules are parameters here, as its SDK applies them
//! (`twilio` on PyPI, `RequestValidator.validate`):
//! - a proxy may add or strip the default port, so the URL is also tried
//!   with `:443`/`:80` added or removed;
//! - a JSON body is not a form: the URL carries `bodySHA256` (hex SHA-256
//!   of the raw body), the URL alone is signed, and the body must match
//!   the hash (`body_hash_param`).

use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::form;
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{Template, Values};

/// The parameters of `scheme = "url-hmac"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlHmacParams {
    /// Header that carries the signature.
    pub header: HeaderNames,
    /// `sha1`, `sha256` (default) or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the signature is written (default `hex`).
    #[serde(default)]
    pub encoding: DigestEncoding,
    /// A query parameter that, when present, carries the hex SHA-256 of a
    /// non-form body; the URL alone is then signed.
    #[serde(default)]
    pub body_hash_param: Option<String>,
    /// How a configured secret becomes key bytes (default `utf8`).
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
}

/// `url` as given, and with its default port added or removed.
fn port_variants(url: &str) -> Vec<String> {
    let mut out = vec![url.to_owned()];
    let Some((scheme, rest)) = url.split_once("://") else {
        return out;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let default = match scheme {
        "https" => "443",
        "http" => "80",
        _ => return out,
    };
    match authority.rsplit_once(':') {
        Some((host, port)) if port == default => out.push(format!("{scheme}://{host}{tail}")),
        Some(_) => {}
        None => out.push(format!("{scheme}://{authority}:{default}{tail}")),
    }
    out
}

/// The value of query parameter `name` in `url`.
fn query_value(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1.split('#').next()?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

impl UrlHmacParams {
    /// The signed content for `url`: the URL, then the sorted form
    /// parameters unless the body is hashed into the URL.
    fn content(&self, url: &str, body: &[u8], hashed: bool) -> Vec<u8> {
        let mut content = url.as_bytes().to_vec();
        if !hashed {
            content.extend(form::sorted_params(body));
        }
        content
    }
}

impl Family for UrlHmacParams {
    fn name(&self) -> &'static str {
        "url-hmac"
    }

    fn check(&self) -> Result<(), String> {
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
        let candidate = mac::decode_digest(self.encoding, header.trim())
            .ok_or(VerifyError::InvalidSignature)?;
        let hash = self
            .body_hash_param
            .as_deref()
            .and_then(|p| query_value(req.url, p));
        if let Some(hash) = &hash {
            // The URL signature covers the hash; the hash must cover the
            // body.
            let actual = hex::encode(Sha256::digest(&req.body));
            if !bool::from(
                actual
                    .as_bytes()
                    .ct_eq(hash.to_ascii_lowercase().as_bytes()),
            ) {
                return Err(VerifyError::InvalidSignature);
            }
        }
        let candidates = [candidate];
        let mut matched = false;
        for url in port_variants(req.url) {
            let content = self.content(&url, &req.body, hash.is_some());
            matched |= mac::any_raw_matches(self.algorithm, keys, &content, &candidates);
        }
        matched.then_some(None).ok_or(VerifyError::InvalidSignature)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let hashed = self
            .body_hash_param
            .as_deref()
            .is_some_and(|p| query_value(input.url, p).is_some());
        let content = self.content(input.url, input.body, hashed);
        let no_headers: Vec<(String, String)> = Vec::new();
        let values = Values {
            id: "",
            timestamp: "",
            method: input.method,
            url: "",
            headers: &no_headers,
            body: &content,
            pairs: &[],
        };
        let digest = mac::sign(
            self.algorithm,
            self.encoding,
            &Template::body(),
            key,
            &values,
        )?;
        Ok(vec![(self.header.primary().to_owned(), digest)])
    }

    fn needs_url(&self) -> bool {
        true
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}

#[cfg(test)]
mod tests {
    use super::port_variants;

    #[test]
    fn the_default_port_is_tried_added_and_removed() {
        assert_eq!(
            port_variants("https://h.example/p?q=1"),
            ["https://h.example/p?q=1", "https://h.example:443/p?q=1"]
        );
        assert_eq!(
            port_variants("http://h.example:80"),
            ["http://h.example:80", "http://h.example"]
        );
        assert_eq!(
            port_variants("https://h.example:8443/p"),
            ["https://h.example:8443/p"]
        );
    }
}
