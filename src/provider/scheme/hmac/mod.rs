//! `scheme = "hmac"`: one or more `prefix + digest` signatures in a header,
//! an HMAC over a template of the request. GitHub, Shopify, Slack,
//! Standard Webhooks. Shapes beyond one header of signatures, each a
//! parameter (and `algorithm_header`: Sumsub names the hash per request):
//! signatures in several headers at once (`every_header`: Box's primary
//! and secondary keys, DocuSign's one header per key); the signed timestamp
//! leading the signature header (`leading_timestamp`: Recurly's
//! `<ms>,<hex>,<hex>`); and a header naming which of the tenant's keys
//! signed (`key_id_header`: Pusher's `X-Pusher-Key`), the secrets then
//! being `ID:SECRET`; or the ID leading the signature itself
//! (`key_id_separator`: Sinch Voice's `Application KEY:SIGNATURE`).

use serde::Deserialize;

use super::algorithm_header::AlgorithmHeader;
use super::content::{self, ContentEncoding};
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
    /// A header naming the hash per request (Sumsub); `algorithm` when
    /// the request names none (see [`AlgorithmHeader`]).
    #[serde(default)]
    pub algorithm_header: Option<AlgorithmHeader>,
    /// How the digest is written: `hex` (default), `base64`, `base64url`,
    /// `base64-of-hex`.
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
    /// How the filled-in content becomes the bytes under the MAC: `bytes`
    /// (default) or `node-binary` (Trello: each UTF-16 unit of the text cut
    /// to 8 bits, see [`ContentEncoding`]).
    #[serde(default)]
    pub content_encoding: ContentEncoding,
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
    /// Every header listed in `header` that the request carries offers
    /// signatures, not only the first present: Box signs with its primary
    /// and its secondary key in two headers, DocuSign with each key in
    /// `X-DocuSign-Signature-1`, `-2`, ...
    #[serde(default)]
    pub every_header: bool,
    /// The signature header starts with the signed timestamp, followed by
    /// `separator` and the signatures (Recurly: `<unix ms>,<hex>,<hex>`).
    /// Exclusive with `timestamp_header` and `timestamp_json_pointer`.
    #[serde(default)]
    pub leading_timestamp: bool,
    /// A header naming the key that signed (Pusher's `X-Pusher-Key`): each
    /// secret is then `ID:SECRET`, and only the secrets whose ID the header
    /// names are tried. `secret_encoding` applies to the part after the
    /// first `:`.
    #[serde(default)]
    pub key_id_header: Option<HeaderNames>,
    /// The key ID leads each signature instead, before this separator:
    /// `<prefix><key id><separator><signature>` (Sinch Voice's
    /// `Authorization: Application KEY:SIGNATURE`); secrets are `ID:SECRET`
    /// as with `key_id_header`.
    #[serde(default)]
    pub key_id_separator: Option<String>,
    /// `prefix` matches in any ASCII case (Sinch writes `Application ` and
    /// `application `).
    #[serde(default)]
    pub prefix_ignore_case: bool,
    /// A signature without `prefix` is a candidate too, taken whole (Mollie's
    /// SDK strips `sha256=` when present and compares the bare digest
    /// otherwise).
    #[serde(default)]
    pub prefix_optional: bool,
}

/// An `ID:SECRET` key's two halves; the ID holds no `:`.
fn split_key_id(key: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = key.iter().position(|&b| b == b':')?;
    Some((&key[..colon], &key[colon + 1..]))
}

impl HmacParams {
    /// The key bytes to try: every key's, or with `key_id_header` the
    /// secret half of the keys whose ID the request names. A key ID is
    /// public (it travels in the header), so skipping the others reveals
    /// nothing.
    fn secrets<'k>(&self, keys: &[&'k Key], named: Option<&str>) -> Vec<&'k [u8]> {
        let shared = keys.iter().filter_map(|k| k.shared_bytes());
        if !self.uses_key_ids() {
            return shared.collect();
        }
        let named = named.unwrap_or_default().as_bytes();
        shared
            .filter_map(split_key_id)
            .filter(|(id, _)| *id == named)
            .map(|(_, secret)| secret)
            .collect()
    }

    /// Whether secrets are `ID:SECRET` and the request names the ID.
    fn uses_key_ids(&self) -> bool {
        self.key_id_header.is_some() || self.key_id_separator.is_some()
    }

    /// `candidate` without `prefix`, if it starts with it; the whole
    /// candidate when the prefix is optional and absent.
    fn strip_prefix<'c>(&self, candidate: &'c str) -> Option<&'c str> {
        let n = self.prefix.len();
        let same = candidate.get(..n).is_some_and(|head| {
            if self.prefix_ignore_case {
                head.eq_ignore_ascii_case(&self.prefix)
            } else {
                head == self.prefix
            }
        });
        match (same, self.prefix_optional) {
            (true, _) => Some(&candidate[n..]),
            (false, true) => Some(candidate),
            (false, false) => None,
        }
    }
}

impl Family for HmacParams {
    fn name(&self) -> &'static str {
        "hmac"
    }

    fn check(&self) -> Result<(), String> {
        let t = &self.signed_content;
        t.refuse_pairs()?;
        // A timestamp or ID the signature does not cover proves nothing, so
        // a header without its placeholder is as wrong as the reverse.
        if self.leading_timestamp {
            if self.separator.is_none() || !t.uses_timestamp() {
                return Err(
                    "leading_timestamp needs a separator and {timestamp} in signed_content".into(),
                );
            }
            if self.timestamp_header.is_some() || self.timestamp_json_pointer.is_some() {
                return Err(
                    "leading_timestamp, timestamp_header and timestamp_json_pointer are exclusive"
                        .into(),
                );
            }
        }
        let timestamp_source = self.timestamp_header.is_some() || self.leading_timestamp;
        match (t.uses_timestamp(), timestamp_source) {
            (true, false) => return Err("signed_content uses {timestamp} but timestamp_header is not set (nor leading_timestamp)".into()),
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
        if self.key_id_separator.as_deref() == Some("") {
            return Err("key_id_separator: must not be empty".into());
        }
        if self.key_id_separator.is_some() && self.key_id_header.is_some() {
            return Err("key_id_separator and key_id_header are exclusive".into());
        }
        if self.prefix_optional && self.prefix.is_empty() {
            return Err("prefix_optional needs a prefix".into());
        }
        (self.algorithm_header.as_ref()).map_or(Ok(()), |a| a.check(self.algorithm))
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        if !self.uses_key_ids() {
            return mac::decode_secret(self.secret_encoding, secret);
        }
        let Some((id, rest)) = secret.split_once(':').filter(|(id, _)| !id.is_empty()) else {
            return Err(KeyError::new(
                "not ID:SECRET (the key's ID, a colon, the secret)",
            ));
        };
        let decoded = mac::decode_secret(self.secret_encoding, rest)?;
        let mut bytes = format!("{id}:").into_bytes();
        bytes.extend_from_slice(decoded.shared_bytes().unwrap_or_default());
        Key::shared(bytes)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let headers: Vec<&str> = if self.every_header {
            let present: Vec<&str> = self
                .header
                .0
                .iter()
                .filter_map(|n| req.headers.header(n))
                .collect();
            if present.is_empty() {
                return Err(VerifyError::MissingSignature);
            }
            present
        } else {
            vec![super::required(req, &self.header)?]
        };
        let mut timestamp = super::optional(req, self.timestamp_header.as_ref())?;
        let id = super::optional(req, self.id_header.as_ref())?.unwrap_or("");
        let mut fields: Vec<&str> = match self.separator.as_deref() {
            Some(sep) => headers.iter().flat_map(|h| h.split(sep)).collect(),
            None => headers,
        };
        if self.leading_timestamp {
            // The first field is the timestamp, which the signatures cover.
            timestamp = Some(fields.remove(0).trim());
        }
        // Each candidate: the key ID it names (with `key_id_separator`)
        // and the digest.
        let candidates: Vec<(Option<&str>, Vec<u8>)> = fields
            .into_iter()
            .filter_map(|c| self.strip_prefix(c.trim()))
            .filter_map(|c| match self.key_id_separator.as_deref() {
                Some(sep) => c.split_once(sep).map(|(id, sig)| (Some(id), sig)),
                None => Some((None, c)),
            })
            .filter_map(|(id, c)| mac::decode_digest(self.encoding, c).map(|d| (id, d)))
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
            pairs: &[],
        };
        let header_id = super::optional(req, self.key_id_header.as_ref())?.map(str::trim);
        let algorithm = (self.algorithm_header.as_ref())
            .map_or(Ok(self.algorithm), |a| a.pick(req.headers, self.algorithm))?;
        let mut matched = false;
        for (id, digest) in &candidates {
            let secrets = self.secrets(keys, id.or(header_id));
            matched |= content::any_encoded_matches(
                (algorithm, self.content_encoding),
                &self.signed_content,
                &secrets,
                &values,
                std::slice::from_ref(digest),
            )?;
        }
        if !matched {
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
        let key = key.shared_bytes().ok_or(SignError::WrongKey)?;
        let (key_id, secret) = if self.uses_key_ids() {
            let (id, secret) = split_key_id(key).ok_or(SignError::WrongKey)?;
            (String::from_utf8_lossy(id).into_owned(), secret)
        } else {
            (String::new(), key)
        };
        // The key ID header is the sender's to write, and may itself be
        // signed (Solidgate signs `merchant` on both sides of the body).
        let id_header: Vec<(String, String)> = self
            .key_id_header
            .iter()
            .map(|names| (names.primary().to_owned(), key_id.clone()))
            .collect();
        // Any other signed header the caller did not supply is a
        // per-request nonce (Sinch's x-sinch-webhook-signature-nonce): the
        // sender makes one.
        let nonces: Vec<(String, String)> = self
            .signed_content
            .header_names()
            .filter(|name| input.headers.header(name).is_none())
            .filter(|name| id_header.header(name).is_none())
            .map(|name| (name.to_owned(), uuid::Uuid::new_v4().simple().to_string()))
            .collect();
        let all: Vec<(String, String)> = input
            .headers
            .iter()
            .chain(&nonces)
            .chain(&id_header)
            .cloned()
            .collect();
        let values = Values {
            id: input.id,
            timestamp: &timestamp,
            method: input.method,
            url: input.url,
            headers: &all,
            body: input.body,
            pairs: &[],
        };
        let mut headers = nonces;
        headers.extend(id_header);
        if let Some(a) = &self.algorithm_header {
            let name = a.name_of(self.algorithm).ok_or(SignError::WrongKey)?;
            headers.push((a.name.primary().to_owned(), name.to_owned()));
        }
        let digest = content::sign_encoded(
            (self.algorithm, self.content_encoding),
            self.encoding,
            &self.signed_content,
            secret,
            &values,
        )?;
        if let Some(names) = &self.id_header {
            headers.push((names.primary().to_owned(), input.id.to_owned()));
        }
        if let Some(names) = &self.timestamp_header {
            headers.push((names.primary().to_owned(), timestamp.clone()));
        }
        let signature = match &self.key_id_separator {
            Some(sep) => format!("{}{key_id}{sep}{digest}", self.prefix),
            None => format!("{}{digest}", self.prefix),
        };
        let signature = match (self.leading_timestamp, &self.separator) {
            (true, Some(sep)) => format!("{timestamp}{sep}{signature}"),
            _ => signature,
        };
        headers.push((self.header.primary().to_owned(), signature));
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

#[cfg(test)]
mod tests;
