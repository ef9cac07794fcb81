//! `scheme = "url-nonce-hmac"`: an HMAC over the URL called with its query
//! sorted, then the sorted form parameters, then `.` and a nonce header.
//! Plivo's voice callbacks (signature V3): base64 HMAC-SHA256(Auth Token,
//! S + "." + X-Plivo-Signature-V3-Nonce) in `X-Plivo-Signature-V3`, and
//! with the main account's token in `X-Plivo-Signature-Ma-V3`
//! (<https://docs.plivo.com/docs/voice/xml/request/validation>).
//!
//! The canonical string is the official SDK's (`plivo` 4.79.0 on npm,
//! `dist/utils/v3Security.js`, `construct_post_url`), rule for rule:
//! - the base is `scheme://host[:port]/path`;
//! - the query's pairs, decoded, sorted by name and each name's values
//!   sorted, are written `k=v` joined by `&`;
//! - with form parameters, `?` + the query follows the base even when the
//!   query is empty, then `.` when it is not; without parameters, `?` +
//!   the query only when there is one;
//! - then every parameter as `name` + `value` (decoded, no separator),
//!   sorted by name and each name's values sorted, repeats kept.
//!
//! No timestamp: the nonce is random, so there is no freshness check.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{Template, Values};

/// The parameters of `scheme = "url-nonce-hmac"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlNonceHmacParams {
    /// Headers carrying signatures: every one present offers its
    /// signatures (Plivo's account and main-account headers).
    pub header: HeaderNames,
    /// Separator between several signatures in one header (Plivo: `,`,
    /// old and new token while one rotates).
    pub separator: String,
    /// Header carrying the signed nonce.
    pub nonce_header: HeaderNames,
    /// `sha1`, `sha256` (default) or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How each signature is written (Plivo: `base64`).
    pub encoding: DigestEncoding,
    /// How a configured secret becomes key bytes (default `utf8`).
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
}

/// Decoded pairs grouped by name, names and each name's values sorted.
/// Rust orders strings by their UTF-8 bytes, JavaScript by UTF-16 code
/// units: the two agree except between astral characters and U+E000 to
/// U+FFFF, which do not occur in Plivo's parameter names or values.
fn sorted_pairs(encoded: &[u8]) -> Vec<(String, String)> {
    let mut grouped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in form_urlencoded::parse(encoded) {
        grouped
            .entry(k.into_owned())
            .or_default()
            .push(v.into_owned());
    }
    grouped
        .into_iter()
        .flat_map(|(k, mut vs)| {
            vs.sort();
            vs.into_iter().map(move |v| (k.clone(), v))
        })
        .collect()
}

/// The string signed for a POST of `body` to `url`, before `.` + nonce.
fn canonical(url: &str, body: &[u8]) -> Vec<u8> {
    let url = url.split('#').next().unwrap_or(url);
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let query: Vec<String> = sorted_pairs(query.as_bytes())
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let query = query.join("&");
    let params = sorted_pairs(body);
    let mut out = base.as_bytes().to_vec();
    if !query.is_empty() || !params.is_empty() {
        out.push(b'?');
        out.extend_from_slice(query.as_bytes());
    }
    if !query.is_empty() && !params.is_empty() {
        out.push(b'.');
    }
    for (k, v) in params {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(v.as_bytes());
    }
    out
}

/// The whole signed content: the canonical string, `.`, the nonce.
fn content(url: &str, body: &[u8], nonce: &str) -> Vec<u8> {
    let mut content = canonical(url, body);
    content.push(b'.');
    content.extend_from_slice(nonce.as_bytes());
    content
}

impl Family for UrlNonceHmacParams {
    fn name(&self) -> &'static str {
        "url-nonce-hmac"
    }

    fn check(&self) -> Result<(), String> {
        if self.separator.is_empty() {
            return Err("separator: must not be empty".into());
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
        let present: Vec<&str> = self
            .header
            .0
            .iter()
            .filter_map(|n| req.headers.header(n))
            .collect();
        if present.is_empty() {
            return Err(VerifyError::MissingSignature);
        }
        let nonce = super::required(req, &self.nonce_header)?;
        let candidates: Vec<Vec<u8>> = present
            .iter()
            .flat_map(|h| h.split(self.separator.as_str()))
            .filter_map(|c| mac::decode_digest(self.encoding, c.trim()))
            .collect();
        if candidates.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        let content = content(req.url, &req.body, nonce);
        mac::any_raw_matches(self.algorithm, keys, &content, &candidates)
            .then_some(None)
            .ok_or(VerifyError::InvalidSignature)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let key = key.shared_bytes().ok_or(SignError::WrongKey)?;
        // The sender makes the nonce: any fresh value will do.
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let content = content(input.url, input.body, &nonce);
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
        let digest = mac::sign_with(
            self.algorithm,
            self.encoding,
            &Template::body(),
            key,
            &values,
        )?;
        Ok(vec![
            (self.nonce_header.primary().to_owned(), nonce),
            (self.header.primary().to_owned(), digest),
        ])
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
    use super::canonical;

    /// The SDK's three shapes: params with a query, params without one
    /// (a bare `?`), and no params (the query alone, or nothing).
    #[test]
    fn the_canonical_string_follows_the_sdk() {
        let url = "https://h.example/p?tenant=acme&b=2&b=1";
        assert_eq!(
            canonical(url, b"To=2&From=1&To=1"),
            b"https://h.example/p?b=1&b=2&tenant=acme.From1To1To2".to_vec()
        );
        assert_eq!(
            canonical("https://h.example/p", b"A=x+y"),
            b"https://h.example/p?Ax y".to_vec()
        );
        assert_eq!(
            canonical(url, b""),
            b"https://h.example/p?b=1&b=2&tenant=acme".to_vec()
        );
        assert_eq!(
            canonical("https://h.example/p#f", b""),
            b"https://h.example/p".to_vec()
        );
    }
}
