//! `scheme = "hmac"`: one or more `prefix + digest` signatures in a header,
//! an HMAC over a template of the request. GitHub, Shopify, Slack,
//! Standard Webhooks.

use serde::Deserialize;

use super::mac::{self, Algorithm, DigestEncoding, SecretEncoding, TimestampFormat};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::{HeaderLookup, HeaderNames};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{Template, Values};

/// The parameters of `scheme = "hmac"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HmacParams {
    /// Header that carries the signature(s); a list accepts the first one
    /// present.
    pub header: HeaderNames,
    /// `sha1`, `sha256` (default) or `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// How the digest is written: `hex` (default), `base64`, `base64url`.
    #[serde(default)]
    pub encoding: DigestEncoding,
    /// Text before each digest (`sha256=`, `v0=`, `v1,`); a signature
    /// without it is not a candidate.
    #[serde(default)]
    pub prefix: String,
    /// Separator between several signatures in the header (Standard
    /// Webhooks: a space); any one of them may match.
    #[serde(default)]
    pub separator: Option<String>,
    /// The signed content (see [`Template`]); default `{body}`.
    #[serde(default = "Template::body")]
    pub signed_content: Template,
    /// Header carrying the signed unix timestamp; required by, and only
    /// allowed with, `{timestamp}` in `signed_content`.
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// Header carrying the signed message ID; required by, and only allowed
    /// with, `{id}` in `signed_content`.
    #[serde(default)]
    pub id_header: Option<HeaderNames>,
    /// RFC 6901 pointer to a timestamp inside the (signed) JSON body, for
    /// providers that put it there instead of in a header (Linear's
    /// `/webhookTimestamp`). Exclusive with `timestamp_header`.
    #[serde(default)]
    pub timestamp_json_pointer: Option<String>,
    /// How the timestamp is written: `unix` (default), `unix-ms`,
    /// `rfc3339`, `iso8601-utc`, `http-date`.
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// How a configured secret becomes key bytes: `utf8` (default),
    /// `whsec-base64`, `base64`, `hex`.
    #[serde(default)]
    pub secret_encoding: SecretEncoding,
}

impl Family for HmacParams {
    fn name(&self) -> &'static str {
        "hmac"
    }

    fn check(&self) -> Result<(), String> {
        let t = &self.signed_content;
        // A timestamp or ID the signature does not cover proves nothing, so
        // a header without its placeholder is as wrong as the reverse.
        match (t.uses_timestamp(), self.timestamp_header.is_some()) {
            (true, false) => return Err("signed_content uses {timestamp} but timestamp_header is not set".into()),
            (false, true) => return Err("timestamp_header is set but signed_content has no {timestamp}: an unsigned timestamp proves nothing".into()),
            _ => {}
        }
        match (t.uses_id(), self.id_header.is_some()) {
            (true, false) => return Err("signed_content uses {id} but id_header is not set".into()),
            (false, true) => return Err("id_header is set but signed_content has no {id}".into()),
            _ => {}
        }
        if self.timestamp_json_pointer.is_some() && self.timestamp_header.is_some() {
            return Err("timestamp_json_pointer and timestamp_header are exclusive".into());
        }
        if self.separator.as_deref() == Some("") {
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
        let header = super::required(req, &self.header)?;
        let timestamp = super::optional(req, self.timestamp_header.as_ref())?;
        let id = super::optional(req, self.id_header.as_ref())?.unwrap_or("");
        let candidates: Vec<Vec<u8>> = match self.separator.as_deref() {
            Some(sep) => header.split(sep).collect(),
            None => vec![header],
        }
        .into_iter()
        .filter_map(|c| c.trim().strip_prefix(self.prefix.as_str()))
        .filter_map(|c| mac::decode_digest(self.encoding, c))
        .collect();
        if candidates.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        let values = Values {
            id,
            timestamp: timestamp.unwrap_or(""),
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: &req.body,
        };
        if !mac::any_matches(
            self.algorithm,
            &self.signed_content,
            keys,
            &values,
            &candidates,
        )? {
            return Err(VerifyError::InvalidSignature);
        }
        if let Some(pointer) = &self.timestamp_json_pointer {
            // The body is signed, so a timestamp inside it is too.
            return mac::body_timestamp(&req.body, pointer, self.timestamp_format).map(Some);
        }
        timestamp
            .map(|t| self.timestamp_format.parse(t))
            .transpose()
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let timestamp = self.timestamp_format.format(input.timestamp);
        // A signed header the caller did not supply is a per-request nonce
        // (Sinch's x-sinch-webhook-signature-nonce): the sender makes one.
        let nonces: Vec<(String, String)> = self
            .signed_content
            .header_names()
            .filter(|name| input.headers.header(name).is_none())
            .map(|name| (name.to_owned(), uuid::Uuid::new_v4().simple().to_string()))
            .collect();
        let all: Vec<(String, String)> = input.headers.iter().chain(&nonces).cloned().collect();
        let values = Values {
            id: input.id,
            timestamp: &timestamp,
            method: input.method,
            url: input.url,
            headers: &all,
            body: input.body,
        };
        let digest = mac::sign(
            self.algorithm,
            self.encoding,
            &self.signed_content,
            key,
            &values,
        )?;
        let mut headers = nonces;
        if let Some(names) = &self.id_header {
            headers.push((names.primary().to_owned(), input.id.to_owned()));
        }
        if let Some(names) = &self.timestamp_header {
            headers.push((names.primary().to_owned(), timestamp));
        }
        headers.push((
            self.header.primary().to_owned(),
            format!("{}{digest}", self.prefix),
        ));
        Ok(headers)
    }

    fn needs_url(&self) -> bool {
        self.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }

    fn id_header(&self) -> Option<&HeaderNames> {
        self.id_header.as_ref()
    }
}
