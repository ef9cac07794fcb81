//! `scheme = "rsa"`: an RSA PKCS#1 v1.5 signature over a template of the
//! request, checked with the provider's RSA public key, which the tenant
//! configures as its secret (PEM, or base64 DER): nothing is fetched.
//!
//! Bridge signs `X-Webhook-Signature: t=<unix ms>,v0=<base64>` over the
//! SHA-256 of `<t>.<body>`, hashed once more by the signature itself
//! (`prehash`): its docs' worked example verifies only that way
//! (<https://apidocs.bridge.xyz/v1/docs/webhook-event-signature-verification>).
//!
//! The signature is either the whole header (after `prefix`), with the
//! timestamp in `timestamp_header`, or `key=value` pairs of one header
//! (`[signature.pairs]`: the timestamp and one or more signatures).

use rsa::Pkcs1v15Sign;
use serde::Deserialize;
use sha2::Digest;

use super::mac::{self, Algorithm, DigestEncoding, TimestampFormat};
use super::rsa_key::{private_key, public_key, public_pem};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;
use crate::provider::template::{MissingHeader, Template, Values};

/// The parameters of `scheme = "rsa"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RsaParams {
    /// Header that carries the signature (or the pairs).
    pub header: HeaderNames,
    /// How the signature is written: `base64`, `base64url`, `hex`.
    pub encoding: DigestEncoding,
    /// The hash of the PKCS#1 v1.5 signature: `sha1`, `sha256` (default),
    /// `sha512`.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// The sender hashed the signed content once before signing it, so the
    /// signed message is that digest's bytes (Bridge).
    #[serde(default)]
    pub prehash: bool,
    /// Text before the signature when the header is the signature alone.
    #[serde(default)]
    pub prefix: String,
    /// The signed content (see [`Template`]).
    pub signed_content: Template,
    /// Header carrying the signed timestamp; required by, and only allowed
    /// with, `{timestamp}` when the header is not `pairs`.
    #[serde(default)]
    pub timestamp_header: Option<HeaderNames>,
    /// How the timestamp is written (default `unix`; Bridge `unix-ms`).
    #[serde(default)]
    pub timestamp_format: TimestampFormat,
    /// The header is `key=value` pairs holding the timestamp and the
    /// signatures (Bridge's `t=...,v0=...`).
    #[serde(default)]
    pub pairs: Option<Pairs>,
}

/// The syntax of a header of `key=value` pairs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairs {
    /// Between pairs (Bridge: `,`).
    pub pair_separator: String,
    /// Between a key and its value (Bridge: `=`).
    pub kv_separator: String,
    /// Key of the timestamp (Bridge: `t`).
    pub timestamp_key: String,
    /// Key of the signatures, of which there may be several (Bridge: `v0`).
    pub signature_key: String,
}

/// A request's signatures and the timestamp text it signed.
struct Offered<'r> {
    signatures: Vec<Vec<u8>>,
    timestamp: Option<&'r str>,
}

impl RsaParams {
    fn offered<'r>(&self, req: &'r UntrustedRequest<'_>) -> Result<Offered<'r>, VerifyError> {
        let header = super::required(req, &self.header)?;
        let Some(pairs) = &self.pairs else {
            let text = header
                .trim()
                .strip_prefix(self.prefix.as_str())
                .ok_or(VerifyError::InvalidSignature)?;
            return Ok(Offered {
                signatures: mac::decode_digest(self.encoding, text.trim())
                    .into_iter()
                    .collect(),
                timestamp: super::optional(req, self.timestamp_header.as_ref())?,
            });
        };
        let mut offered = Offered {
            signatures: Vec::new(),
            timestamp: None,
        };
        for pair in header.split(pairs.pair_separator.as_str()) {
            let Some((k, v)) = pair.trim().split_once(pairs.kv_separator.as_str()) else {
                continue;
            };
            if k == pairs.timestamp_key {
                offered.timestamp = Some(v.trim());
            } else if k == pairs.signature_key {
                offered
                    .signatures
                    .extend(mac::decode_digest(self.encoding, v.trim()));
            }
        }
        Ok(offered)
    }

    /// What the PKCS#1 v1.5 signature covers: the digest of the signed
    /// content, or with `prehash` the digest of that digest.
    fn hashed(&self, values: &Values<'_>) -> Result<Vec<u8>, MissingHeader> {
        let mut content = Vec::with_capacity(values.body.len() + 32);
        self.signed_content
            .feed(values, &mut |bytes| content.extend_from_slice(bytes))?;
        let once = digest(self.algorithm, &content);
        Ok(if self.prehash {
            digest(self.algorithm, &once)
        } else {
            once
        })
    }

    fn padding(&self) -> Pkcs1v15Sign {
        match self.algorithm {
            Algorithm::Sha1 => Pkcs1v15Sign::new::<sha1::Sha1>(),
            Algorithm::Sha256 => Pkcs1v15Sign::new::<sha2::Sha256>(),
            Algorithm::Sha512 => Pkcs1v15Sign::new::<sha2::Sha512>(),
        }
    }
}

fn digest(algorithm: Algorithm, data: &[u8]) -> Vec<u8> {
    match algorithm {
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
    }
}

impl Family for RsaParams {
    fn name(&self) -> &'static str {
        "rsa"
    }

    fn check(&self) -> Result<(), String> {
        let t = &self.signed_content;
        t.refuse_pairs()?;
        if t.uses_id() {
            return Err("signed_content uses {id}, which this family has no source for".into());
        }
        let timestamp_source = self.timestamp_header.is_some() || self.pairs.is_some();
        match (t.uses_timestamp(), timestamp_source) {
            (true, false) => {
                return Err(
                    "signed_content uses {timestamp} but neither timestamp_header nor pairs is set"
                        .into(),
                )
            }
            (false, true) if self.timestamp_header.is_some() => {
                return Err("timestamp_header is set but signed_content has no {timestamp}".into())
            }
            _ => {}
        }
        if let Some(p) = &self.pairs {
            if self.timestamp_header.is_some() || !self.prefix.is_empty() {
                return Err("pairs is exclusive with timestamp_header and prefix".into());
            }
            for (field, v) in [
                ("pair_separator", &p.pair_separator),
                ("kv_separator", &p.kv_separator),
                ("timestamp_key", &p.timestamp_key),
                ("signature_key", &p.signature_key),
            ] {
                if v.is_empty() {
                    return Err(format!("pairs.{field}: must not be empty"));
                }
            }
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        public_key(secret).map(Key::rsa)
    }

    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        private_key(text)
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        public_pem(private)
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let offered = self.offered(req)?;
        if offered.signatures.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        if self.signed_content.uses_timestamp() && offered.timestamp.is_none() {
            return Err(VerifyError::InvalidSignature);
        }
        let values = Values {
            id: "",
            timestamp: offered.timestamp.unwrap_or(""),
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: &req.body,
            pairs: &[],
        };
        let hashed = self
            .hashed(&values)
            .map_err(|_| VerifyError::MissingSignature)?;
        // The keys are public: trying them in turn reveals nothing secret.
        let ok = keys.iter().filter_map(|k| k.rsa_public()).any(|key| {
            offered
                .signatures
                .iter()
                .any(|s| key.verify(self.padding(), &hashed, s).is_ok())
        });
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        match offered.timestamp {
            Some(t) if self.signed_content.uses_timestamp() => {
                self.timestamp_format.parse(t).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let key = key.rsa_private().ok_or(SignError::WrongKey)?;
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
        let hashed = self
            .hashed(&values)
            .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
        let signature = key
            .sign(self.padding(), &hashed)
            .map_err(|_| SignError::WrongKey)?;
        let signature = mac::encode_digest(self.encoding, &signature);
        let name = self.header.primary().to_owned();
        Ok(match &self.pairs {
            Some(p) => vec![(
                name,
                format!(
                    "{}{kv}{timestamp}{}{}{kv}{signature}",
                    p.timestamp_key,
                    p.pair_separator,
                    p.signature_key,
                    kv = p.kv_separator
                ),
            )],
            None => {
                let mut headers = Vec::new();
                if let Some(names) = &self.timestamp_header {
                    headers.push((names.primary().to_owned(), timestamp));
                }
                headers.push((name, format!("{}{signature}", self.prefix)));
                headers
            }
        })
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
    use super::*;
    use rsa::pkcs8::{EncodePublicKey, LineEnding};
    use rsa::{RsaPrivateKey, RsaPublicKey};

    fn bridge() -> RsaParams {
        toml::from_str(
            r#"
            header = "X-Webhook-Signature"
            encoding = "base64"
            prehash = true
            signed_content = "{timestamp}.{body}"
            timestamp_format = "unix-ms"
            [pairs]
            pair_separator = ","
            kv_separator = "="
            timestamp_key = "t"
            signature_key = "v0"
            "#,
        )
        .unwrap()
    }

    #[test]
    fn a_signature_this_family_makes_verifies_and_a_changed_body_does_not() {
        let params = bridge();
        params.check().unwrap();
        // Generating a 2048-bit key takes seconds in a debug build: use the
        // fuzzing harness's throwaway key.
        let pem = include_str!("../../fuzzing/rsa-2048.pem");
        let signing = params.decode_private_key(pem).unwrap();
        let public = params.public_secret(&signing).unwrap();
        let key = params.decode_secret(&public).unwrap();
        let input = SignInput {
            method: "POST",
            url: "https://hooks.example/bridge",
            headers: &[],
            body: br#"{"event_id":"wh_1"}"#,
            id: "",
            timestamp: 1_700_000_000,
        };
        let headers = params.sign(&signing, &input).unwrap();
        assert!(headers[0].1.starts_with("t=1700000000000,v0="));
        let req = |body: &[u8]| UntrustedRequest {
            method: "POST",
            url: input.url,
            query: "",
            headers: &headers,
            body: bytes::Bytes::copy_from_slice(body),
            received_at: 1_700_000_000,
        };
        assert_eq!(
            params.verify(&req(input.body), &[&key]),
            Ok(Some(1_700_000_000))
        );
        assert_eq!(
            params.verify(&req(br#"{"event_id":"wh_2"}"#), &[&key]),
            Err(VerifyError::InvalidSignature)
        );
    }

    #[test]
    fn short_keys_and_garbage_are_refused_without_quoting_them() {
        let mut rng = rand::thread_rng();
        let short = RsaPublicKey::from(&RsaPrivateKey::new(&mut rng, 1024).unwrap());
        // (1024 bits generate quickly, and are refused.)
        let pem = short.to_public_key_pem(LineEnding::LF).unwrap();
        let err = bridge().decode_secret(&pem).unwrap_err().to_string();
        assert!(err.contains("2048"), "{err}");
        let err = bridge().decode_secret("c2VjcmV0").unwrap_err().to_string();
        assert!(!err.contains("c2VjcmV0"), "{err}");
    }

    #[test]
    fn a_timestamp_without_its_placeholder_is_a_load_error() {
        let mut params = bridge();
        params.pairs = None;
        params.timestamp_header = Some(HeaderNames(vec!["X-Time".into()]));
        params.signed_content = Template::body();
        assert!(params.check().is_err());
    }
}
