//! What the public-key families (`ed25519`, `ecdsa-p256`) share: where the
//! signature and timestamp are, how they are written, and the signed
//! message built from a template. Only the algorithm differs, in
//! [`super::ed25519`] and [`super::ecdsa`].

use serde::Deserialize;

use super::mac::{self, DigestEncoding, TimestampFormat};
use super::{SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::KeyError;
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{MissingHeader, Template, Values};

/// The parameters of a public-key family.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicKeyParams {
    /// Header that carries the signature.
    pub header: HeaderNames,
    /// How the signature is written: `hex` (Discord), `base64` (Telnyx,
    /// SendGrid), `base64url`.
    pub encoding: DigestEncoding,
    /// Header carrying the signed timestamp; required by, and only allowed
    /// with, `{timestamp}` in `signed_content`.
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// How the timestamp is written (default `unix`).
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// The signed message (see [`Template`]), e.g. `{timestamp}{body}`.
    pub signed_content: Template,
    /// How the configured public key is written: `hex` or `base64` (the raw
    /// key for Ed25519), `base64-der` (SubjectPublicKeyInfo, for ECDSA).
    pub key_encoding: KeyEncoding,
}

/// How a configured public key is written.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum KeyEncoding {
    Hex,
    Base64,
    Base64Der,
}

impl KeyEncoding {
    /// The key bytes `text` holds (surrounding whitespace ignored).
    pub(crate) fn decode(self, text: &str) -> Result<Vec<u8>, KeyError> {
        let text = text.trim();
        match self {
            KeyEncoding::Hex => {
                hex::decode(text).map_err(|_| KeyError::new("the public key is not valid hex"))
            }
            KeyEncoding::Base64 | KeyEncoding::Base64Der => {
                mac::decode_digest(DigestEncoding::Base64, text)
                    .ok_or_else(|| KeyError::new("the public key is not valid base64"))
            }
        }
    }

    /// `bytes` written the way a tenant's `secrets` hold them.
    pub(crate) fn encode(self, bytes: &[u8]) -> String {
        match self {
            KeyEncoding::Hex => hex::encode(bytes),
            KeyEncoding::Base64 | KeyEncoding::Base64Der => {
                mac::encode_digest(DigestEncoding::Base64, bytes)
            }
        }
    }
}

/// A request's signature, the message it signs, and its timestamp.
pub(crate) struct Signed {
    pub signature: Vec<u8>,
    pub message: Vec<u8>,
    pub timestamp: Option<i64>,
}

impl PublicKeyParams {
    pub(crate) fn check(&self) -> Result<(), String> {
        self.signed_content.refuse_pairs()?;
        match (
            self.signed_content.uses_timestamp(),
            self.timestamp_header.is_some(),
        ) {
            (true, false) => {
                Err("signed_content uses {timestamp} but timestamp_header is not set".into())
            }
            (false, true) => {
                Err("timestamp_header is set but signed_content has no {timestamp}".into())
            }
            _ if self.signed_content.uses_id() => {
                Err("signed_content uses {id}, which this family has no source for".into())
            }
            _ => Ok(()),
        }
    }

    /// The signature and the signed message of `req`. A missing header is a
    /// missing signature; one that does not decode, or a timestamp that
    /// does not parse, is an invalid one.
    pub(crate) fn read(&self, req: &UntrustedRequest<'_>) -> Result<Signed, VerifyError> {
        let header = super::required(req, &self.header)?;
        let timestamp = super::optional(req, self.timestamp_header.as_ref())?;
        let signature = mac::decode_digest(self.encoding, header.trim())
            .ok_or(VerifyError::InvalidSignature)?;
        let values = Values {
            id: "",
            timestamp: timestamp.unwrap_or(""),
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: &req.body,
            pairs: &[],
        };
        let message = self
            .message(&values)
            .map_err(|_| VerifyError::MissingSignature)?;
        let timestamp = timestamp
            .map(|t| self.timestamp_format.parse(t))
            .transpose()?;
        Ok(Signed {
            signature,
            message,
            timestamp,
        })
    }

    fn message(&self, values: &Values<'_>) -> Result<Vec<u8>, MissingHeader> {
        let mut message = Vec::with_capacity(values.body.len() + 32);
        self.signed_content
            .feed(values, &mut |bytes| message.extend_from_slice(bytes))?;
        Ok(message)
    }

    /// The headers a sender adds, with `sign` turning the message into
    /// signature bytes.
    pub(crate) fn sign(
        &self,
        input: &SignInput<'_>,
        sign: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Result<Vec<(String, String)>, SignError> {
        let timestamp = self.timestamp_format.format(input.timestamp);
        let values = Values {
            id: "",
            timestamp: &timestamp,
            method: input.method,
            url: input.url,
            headers: &input.headers,
            body: input.body,
            pairs: &[],
        };
        let message = self
            .message(&values)
            .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
        let mut headers = Vec::new();
        if let Some(names) = &self.timestamp_header {
            headers.push((names.primary().to_owned(), timestamp));
        }
        headers.push((
            self.header.primary().to_owned(),
            mac::encode_digest(self.encoding, &sign(&message)),
        ));
        Ok(headers)
    }
}
