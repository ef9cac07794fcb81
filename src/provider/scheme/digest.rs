//! `scheme = "digest"`: a plain hash (not an HMAC) of the signed content
//! with the secret prepended or appended, as some providers define it.
//! Cloudinary: hex SHA-1(body + `X-Cld-Timestamp` + API secret); HubSpot's
//! v2 signature: hex SHA-256(client secret + method + URL + body). Weaker
//! than an HMAC by construction, and verified exactly as the providers'
//! SDKs do, in constant time.

use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::mac::{self, Algorithm, DigestEncoding, TimestampFormat};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{Template, Values};

/// The parameters of `scheme = "digest"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DigestParams {
    /// Header that carries the digest.
    pub header: HeaderNames,
    /// `sha1`, `sha256` (default) or `sha512`; or a list of them, the
    /// offered digest's length picking which (Cloudinary signs with SHA-1
    /// or, when the account is set to it, SHA-256: 20 bytes or 32).
    #[serde(default)]
    pub algorithm: Algorithms,
    /// How the digest is written (default `hex`).
    #[serde(default)]
    pub encoding: DigestEncoding,
    /// The hashed content besides the secret (see [`Template`]).
    pub signed_content: Template,
    /// Where the secret goes: `prefix` or `suffix`.
    pub secret_position: SecretPosition,
    /// Header carrying the signed timestamp (with `{timestamp}`).
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// How the timestamp is written (default `unix`).
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
}

/// One algorithm, or several told apart by their digest's length.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Algorithms {
    One(Algorithm),
    Several(Vec<Algorithm>),
}

impl Default for Algorithms {
    fn default() -> Self {
        Algorithms::One(Algorithm::default())
    }
}

impl Algorithms {
    fn list(&self) -> &[Algorithm] {
        match self {
            Algorithms::One(a) => std::slice::from_ref(a),
            Algorithms::Several(list) => list,
        }
    }
}

/// The length in bytes of an algorithm's digest.
fn digest_len(algorithm: Algorithm) -> usize {
    match algorithm {
        Algorithm::Sha1 => 20,
        Algorithm::Sha256 => 32,
        Algorithm::Sha512 => 64,
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SecretPosition {
    Prefix,
    Suffix,
}

impl DigestParams {
    fn hash(
        &self,
        algorithm: Algorithm,
        secret: &[u8],
        values: &Values<'_>,
    ) -> Result<Vec<u8>, VerifyError> {
        fn run<D: sha2::Digest>(
            p: &DigestParams,
            secret: &[u8],
            values: &Values<'_>,
        ) -> Result<Vec<u8>, VerifyError> {
            let mut d = D::new();
            if p.secret_position == SecretPosition::Prefix {
                d.update(secret);
            }
            p.signed_content
                .feed(values, &mut |bytes| d.update(bytes))
                .map_err(|_| VerifyError::MissingSignature)?;
            if p.secret_position == SecretPosition::Suffix {
                d.update(secret);
            }
            Ok(d.finalize().to_vec())
        }
        match algorithm {
            Algorithm::Sha1 => run::<sha1::Sha1>(self, secret, values),
            Algorithm::Sha256 => run::<sha2::Sha256>(self, secret, values),
            Algorithm::Sha512 => run::<sha2::Sha512>(self, secret, values),
        }
    }
}

impl Family for DigestParams {
    fn name(&self) -> &'static str {
        "digest"
    }

    fn check(&self) -> Result<(), String> {
        self.signed_content.refuse_pairs()?;
        let list = self.algorithm.list();
        if list.is_empty() {
            return Err("algorithm: name one at least".into());
        }
        for (i, a) in list.iter().enumerate() {
            // The digest's length says which algorithm made it: two of
            // one length could not be told apart.
            if list[..i].iter().any(|b| digest_len(*b) == digest_len(*a)) {
                return Err("algorithm: two algorithms with digests of one length".into());
            }
        }
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
            _ => Ok(()),
        }
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        Key::shared(secret.as_bytes().to_vec())
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let header = super::required(req, &self.header)?;
        let offered = mac::decode_digest(self.encoding, header.trim())
            .ok_or(VerifyError::InvalidSignature)?;
        let timestamp = super::optional(req, self.timestamp_header.as_ref())?;
        let values = Values {
            id: "",
            timestamp: timestamp.unwrap_or(""),
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: &req.body,
            pairs: &[],
        };
        // The digest's length is public: it picks the algorithm, if any.
        let Some(&algorithm) =
            (self.algorithm.list().iter()).find(|a| digest_len(**a) == offered.len())
        else {
            return Err(VerifyError::InvalidSignature);
        };
        let mut matched = subtle::Choice::from(0);
        for key in keys.iter().filter_map(|k| k.shared_bytes()) {
            matched |= self
                .hash(algorithm, key, &values)?
                .as_slice()
                .ct_eq(offered.as_slice());
        }
        if !bool::from(matched) {
            return Err(VerifyError::InvalidSignature);
        }
        timestamp
            .map(|t| self.timestamp_format.parse(t))
            .transpose()
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let secret = key.shared_bytes().ok_or(SignError::WrongKey)?;
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
        // A sender signs with the first listed.
        let digest = self
            .hash(self.algorithm.list()[0], secret, &values)
            .map_err(|_| SignError::MissingHeader("a signed header".into()))?;
        let mut headers = Vec::new();
        if let Some(names) = &self.timestamp_header {
            headers.push((names.primary().to_owned(), timestamp));
        }
        headers.push((
            self.header.primary().to_owned(),
            mac::encode_digest(self.encoding, &digest),
        ));
        Ok(headers)
    }

    fn needs_url(&self) -> bool {
        self.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.header.0
    }
}

#[cfg(test)]
mod tests {
    use super::{DigestParams, Family};

    fn params(algorithm: &str) -> DigestParams {
        toml::from_str(&format!(
            "header = \"X-Sig\"\nalgorithm = {algorithm}\nsigned_content = \"{{body}}\"\nsecret_position = \"suffix\""
        ))
        .unwrap()
    }

    /// The digest's length picks the algorithm, so two of one length (or
    /// none) cannot be listed.
    #[test]
    fn listed_algorithms_differ_in_length() {
        params("\"sha1\"").check().unwrap();
        params("[\"sha1\", \"sha256\"]").check().unwrap();
        assert!(params("[\"sha256\", \"sha256\"]").check().is_err());
        assert!(params("[]").check().is_err());
    }
}
