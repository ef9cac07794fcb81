//! `scheme = "canonical-request"`: an HMAC over a canonical form of the
//! request (method, encoded path and query, the headers the request names
//! as signed, body), Contentful's webhook request verification
//! (<https://www.contentful.com/developers/docs/webhooks/request-verification/>).
//!
//! The canonical string is the official toolkit's (`@contentful/node-apps-toolkit`
//! 3.16.1 on npm, `verifyRequest`, rule for rule):
//!
//! ```text
//! METHOD \n encoded path?query \n name:value;name:value… \n body
//! ```
//!
//! - the path and query are the request's own, normalised as the toolkit
//!   does: the query (up to a second `?`) escaped as Node's
//!   `querystring.escape` escapes it, then the whole passed through
//!   `encodeURI`, which escapes the `%` the first step wrote (`?a=b` is
//!   signed as `?a%253Db`);
//! - the headers are those of the request whose lower-cased names the
//!   signed-headers header lists, values trimmed, sorted by name; the list
//!   itself and the timestamp are always among them, the list written
//!   back as the sorted names that were found, the timestamp as the number
//!   it parses to;
//! - the timestamp is unix milliseconds.

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding, TimestampFormat};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "canonical-request"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanonicalRequestParams {
    /// Header carrying the signature (Contentful: `x-contentful-signature`).
    pub header: HeaderNames,
    /// Header listing the signed headers, comma-separated, lower case
    /// (`x-contentful-signed-headers`).
    pub signed_headers_header: String,
    /// Header carrying the signed timestamp, unix milliseconds
    /// (`x-contentful-timestamp`).
    pub timestamp_header: String,
    /// `sha256` (default), `sha1` or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the signature is written (Contentful: `hex`).
    pub encoding: DigestEncoding,
    /// How a configured secret becomes key bytes (default `utf8`).
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
}

/// Whether `encodeURIComponent` (and Node's `querystring.escape`) leaves
/// `b` as it is.
fn component_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b)
}

/// Whether `encodeURI` leaves `b` as it is.
fn uri_safe(b: u8) -> bool {
    component_safe(b) || b";,/?:@&=+$#".contains(&b)
}

fn percent_encode(s: &str, keep: fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The toolkit's `getNormalizedEncodedURI` of the path and query of `url`.
fn encoded_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path_and_query = rest.find('/').map_or("/", |at| &rest[at..]);
    let path_and_query = path_and_query.split('#').next().unwrap_or("");
    // JavaScript's `uri.split("?")` then `[pathname, search]`: a second `?`
    // and what follows it are dropped.
    let mut parts = path_and_query.split('?');
    let pathname = parts.next().unwrap_or("");
    let search = parts.next().unwrap_or("");
    let joined = if search.is_empty() {
        pathname.to_owned()
    } else {
        format!("{pathname}?{}", percent_encode(search, component_safe))
    };
    percent_encode(&joined, uri_safe)
}

impl CanonicalRequestParams {
    /// The canonical string of `req` and the timestamp it signs (ms).
    fn canonical(&self, req: &UntrustedRequest<'_>) -> Result<(Vec<u8>, i64), VerifyError> {
        let listed = req
            .headers
            .header(&self.signed_headers_header)
            .ok_or(VerifyError::MissingSignature)?;
        let raw_ts = req
            .headers
            .header(&self.timestamp_header)
            .ok_or(VerifyError::MissingSignature)?;
        // `Number.parseInt`: leading digits; anything else is malformed.
        let ts_ms: i64 = raw_ts
            .trim()
            .parse()
            .map_err(|_| VerifyError::InvalidSignature)?;
        let mut names: Vec<String> = listed
            .split(',')
            // As the toolkit: names taken as listed, matched against the
            // request's lower-cased header names.
            .filter(|n| !n.is_empty() && *n == n.to_ascii_lowercase())
            .filter(|n| req.headers.header(n).is_some())
            .map(str::to_owned)
            .collect();
        for always in [&self.signed_headers_header, &self.timestamp_header] {
            let always = always.to_ascii_lowercase();
            if !names.contains(&always) {
                names.push(always);
            }
        }
        names.sort();
        names.dedup();
        let list = names.join(",");
        let headers: Vec<String> = names
            .iter()
            .map(|n| {
                let value = if *n == self.signed_headers_header.to_ascii_lowercase() {
                    list.clone()
                } else if *n == self.timestamp_header.to_ascii_lowercase() {
                    ts_ms.to_string()
                } else {
                    req.headers.header(n).unwrap_or_default().trim().to_owned()
                };
                format!("{n}:{value}")
            })
            .collect();
        let mut out = Vec::with_capacity(req.body.len() + 256);
        out.extend_from_slice(req.method.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(encoded_path(req.url).as_bytes());
        out.push(b'\n');
        out.extend_from_slice(headers.join(";").as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&req.body);
        Ok((out, ts_ms))
    }
}

impl Family for CanonicalRequestParams {
    fn name(&self) -> &'static str {
        "canonical-request"
    }

    fn check(&self) -> Result<(), String> {
        if self.signed_headers_header.is_empty() || self.timestamp_header.is_empty() {
            return Err("signed_headers_header and timestamp_header must be named".into());
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
        let signature = super::required(req, &self.header)?;
        let candidate = mac::decode_digest(self.encoding, signature.trim())
            .ok_or(VerifyError::InvalidSignature)?;
        let (content, ts_ms) = self.canonical(req)?;
        if !mac::any_raw_matches(self.algorithm, keys, &content, &[candidate]) {
            return Err(VerifyError::InvalidSignature);
        }
        TimestampFormat::UnixMs.parse(&ts_ms.to_string()).map(Some)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let ts_ms = input.timestamp.saturating_mul(1000);
        // The request's own headers are signed, as Contentful signs the
        // webhook's: every one given, plus the list and the timestamp.
        let mut headers: Vec<(String, String)> = input.headers.to_vec();
        let mut names: Vec<String> = headers
            .iter()
            .map(|(k, _)| k.to_ascii_lowercase())
            .collect();
        names.push(self.signed_headers_header.to_ascii_lowercase());
        names.push(self.timestamp_header.to_ascii_lowercase());
        names.sort();
        names.dedup();
        headers.push((self.signed_headers_header.clone(), names.join(",")));
        headers.push((self.timestamp_header.clone(), ts_ms.to_string()));
        let req = UntrustedRequest {
            method: input.method,
            url: input.url,
            query: "",
            headers: &headers,
            body: bytes::Bytes::copy_from_slice(input.body),
            received_at: input.timestamp,
        };
        let (content, _) = self
            .canonical(&req)
            .map_err(|_| SignError::MissingHeader(self.timestamp_header.clone()))?;
        let key = key.shared_bytes().ok_or(SignError::WrongKey)?;
        let digest = mac::sign_with(
            self.algorithm,
            self.encoding,
            &crate::provider::template::Template::body(),
            key,
            &crate::provider::template::Values {
                id: "",
                timestamp: "",
                method: input.method,
                url: "",
                headers: &headers,
                body: &content,
                pairs: &[],
            },
        )?;
        let n = input.headers.len();
        let mut added: Vec<(String, String)> = headers.split_off(n);
        added.push((self.header.primary().to_owned(), digest));
        Ok(added)
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
    use super::encoded_path;

    /// What node prints for the toolkit's getNormalizedEncodedURI.
    #[test]
    fn the_path_is_encoded_as_the_toolkit_encodes_it() {
        assert_eq!(
            encoded_path("https://h.example/webhooks/contentful/acme?env=master"),
            "/webhooks/contentful/acme?env%253Dmaster"
        );
        assert_eq!(
            encoded_path("https://h.example/p%20q?x=%41"),
            "/p%2520q?x%253D%252541"
        );
        assert_eq!(encoded_path("https://h.example/a b"), "/a%20b");
        assert_eq!(encoded_path("https://h.example"), "/");
        assert_eq!(encoded_path("https://h.example/p?a=1?b=2"), "/p?a%253D1");
    }
}
