//! The HMAC machinery the `hmac` and `hmac-kv` families share: algorithms,
//! digest and secret encodings, computing a MAC over a template, and the
//! constant-time match of every key against every offered signature.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::{SignError, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::template::{MissingHeader, Template, Values};

/// The hash under the HMAC.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    Sha1,
    #[default]
    Sha256,
    Sha512,
}

/// How a digest is written in the header.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DigestEncoding {
    /// Lower or upper case hex.
    #[default]
    Hex,
    /// Standard base64; padded or not on input, padded on output.
    Base64,
    /// URL-safe base64; padded or not on input, unpadded on output.
    Base64url,
}

/// How a configured secret becomes MAC key bytes.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SecretEncoding {
    /// The secret's UTF-8 bytes are the key.
    #[default]
    Utf8,
    /// Standard Webhooks: an optional `whsec_` prefix, then base64.
    WhsecBase64,
    /// Plain base64.
    Base64,
    /// Hex.
    Hex,
}

/// Decoders that accept a digest with or without its `=` padding.
const BASE64_ANY: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);
const BASE64URL_ANY: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A shared MAC key from a configured secret.
pub(crate) fn decode_secret(encoding: SecretEncoding, secret: &str) -> Result<Key, KeyError> {
    let bytes = match encoding {
        SecretEncoding::Utf8 => secret.as_bytes().to_vec(),
        SecretEncoding::WhsecBase64 => STANDARD
            .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
            .map_err(|_| KeyError::new("not a whsec_ base64 secret"))?,
        SecretEncoding::Base64 => STANDARD
            .decode(secret)
            .map_err(|_| KeyError::new("not valid base64"))?,
        SecretEncoding::Hex => hex::decode(secret).map_err(|_| KeyError::new("not valid hex"))?,
    };
    Key::shared(bytes)
}

pub(crate) fn decode_digest(encoding: DigestEncoding, s: &str) -> Option<Vec<u8>> {
    match encoding {
        DigestEncoding::Hex => hex::decode(s).ok(),
        DigestEncoding::Base64 => BASE64_ANY.decode(s).ok(),
        DigestEncoding::Base64url => BASE64URL_ANY.decode(s).ok(),
    }
}

pub(crate) fn encode_digest(encoding: DigestEncoding, d: &[u8]) -> String {
    match encoding {
        DigestEncoding::Hex => hex::encode(d),
        DigestEncoding::Base64 => STANDARD.encode(d),
        DigestEncoding::Base64url => BASE64URL_ANY.encode(d),
    }
}

/// The HMAC of `template` filled with `values`.
pub(crate) fn compute(
    algorithm: Algorithm,
    key: &[u8],
    template: &Template,
    values: &Values<'_>,
) -> Result<Vec<u8>, MissingHeader> {
    match algorithm {
        Algorithm::Sha1 => run::<Hmac<sha1::Sha1>>(key, template, values),
        Algorithm::Sha256 => run::<Hmac<sha2::Sha256>>(key, template, values),
        Algorithm::Sha512 => run::<Hmac<sha2::Sha512>>(key, template, values),
    }
}

fn run<M: Mac + KeyInit>(
    key: &[u8],
    template: &Template,
    values: &Values<'_>,
) -> Result<Vec<u8>, MissingHeader> {
    let mut mac = <M as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    template.feed(values, &mut |bytes| mac.update(bytes))?;
    Ok(mac.finalize().into_bytes().to_vec())
}

/// Whether any key's MAC equals any offered digest. Every key is tried
/// against every candidate without stopping early, so timing does not
/// reveal which secret (or which signature) matched. A `{header:Name}` the
/// request lacks is a missing signature.
pub(crate) fn any_matches(
    algorithm: Algorithm,
    template: &Template,
    keys: &[&Key],
    values: &Values<'_>,
    candidates: &[Vec<u8>],
) -> Result<bool, VerifyError> {
    let mut matched = subtle::Choice::from(0);
    for key in keys.iter().filter_map(|k| k.shared_bytes()) {
        let expected =
            compute(algorithm, key, template, values).map_err(|_| VerifyError::MissingSignature)?;
        for candidate in candidates {
            matched |= expected.as_slice().ct_eq(candidate.as_slice());
        }
    }
    Ok(bool::from(matched))
}

/// The MAC a sender puts in its header, encoded.
pub(crate) fn sign(
    algorithm: Algorithm,
    encoding: DigestEncoding,
    template: &Template,
    key: &Key,
    values: &Values<'_>,
) -> Result<String, SignError> {
    let key = key.shared_bytes().ok_or(SignError::WrongKey)?;
    let digest = compute(algorithm, key, template, values)
        .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
    Ok(encode_digest(encoding, &digest))
}

/// A signed timestamp in unix seconds. One that does not parse makes the
/// signature malformed.
pub(crate) fn parse_timestamp(s: &str) -> Result<i64, VerifyError> {
    s.trim().parse().map_err(|_| VerifyError::InvalidSignature)
}
