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
    /// Standard base64 of the digest's lower-case hex text, not of its
    /// bytes: Solidgate's `base64(hex(HMAC-SHA512(...)))`
    /// (`@solidgate/node-sdk` `Api._generateSignature`).
    Base64OfHex,
}

/// How a configured secret becomes MAC key bytes.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SecretEncoding {
    /// The secret's UTF-8 bytes are the key.
    #[default]
    Utf8,
    /// Standard Webhooks: an optional `whsec_` prefix (or `v1,whsec_`, as
    /// Supabase shows it), then base64.
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

/// A Standard Webhooks secret without its optional `v1,` and `whsec_`.
fn strip_whsec(secret: &str) -> &str {
    let secret = secret.strip_prefix("v1,").unwrap_or(secret);
    secret.strip_prefix("whsec_").unwrap_or(secret)
}

/// A shared MAC key from a configured secret.
pub(crate) fn decode_secret(encoding: SecretEncoding, secret: &str) -> Result<Key, KeyError> {
    let bytes = match encoding {
        SecretEncoding::Utf8 => secret.as_bytes().to_vec(),
        // Supabase shows its secrets as `v1,whsec_...`.
        SecretEncoding::WhsecBase64 => STANDARD
            .decode(strip_whsec(secret))
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
        DigestEncoding::Base64OfHex => hex::decode(BASE64_ANY.decode(s).ok()?).ok(),
    }
}

pub(crate) fn encode_digest(encoding: DigestEncoding, d: &[u8]) -> String {
    match encoding {
        DigestEncoding::Hex => hex::encode(d),
        DigestEncoding::Base64 => STANDARD.encode(d),
        DigestEncoding::Base64url => BASE64URL_ANY.encode(d),
        DigestEncoding::Base64OfHex => STANDARD.encode(hex::encode(d)),
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
    let secrets: Vec<&[u8]> = keys.iter().filter_map(|k| k.shared_bytes()).collect();
    any_secret_matches(algorithm, template, &secrets, values, candidates)
}

/// [`any_matches`] over key bytes a family has already picked out of its
/// keys (the secret half of an `ID:SECRET` key).
pub(crate) fn any_secret_matches(
    algorithm: Algorithm,
    template: &Template,
    secrets: &[&[u8]],
    values: &Values<'_>,
    candidates: &[Vec<u8>],
) -> Result<bool, VerifyError> {
    let mut matched = subtle::Choice::from(0);
    for &key in secrets {
        let expected =
            compute(algorithm, key, template, values).map_err(|_| VerifyError::MissingSignature)?;
        for candidate in candidates {
            matched |= expected.as_slice().ct_eq(candidate.as_slice());
        }
    }
    Ok(bool::from(matched))
}

/// Whether any key's MAC of `content` equals any offered digest, every
/// pair compared in constant time without stopping early.
pub(crate) fn any_raw_matches(
    algorithm: Algorithm,
    keys: &[&Key],
    content: &[u8],
    candidates: &[Vec<u8>],
) -> bool {
    let template = Template::body();
    let no_headers: Vec<(String, String)> = Vec::new();
    let values = Values {
        id: "",
        timestamp: "",
        method: "",
        url: "",
        headers: &no_headers,
        body: content,
        pairs: &[],
    };
    any_matches(algorithm, &template, keys, &values, candidates).unwrap_or(false)
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
    sign_with(algorithm, encoding, template, key, values)
}

/// [`sign`] with key bytes a family picked out of its key.
pub(crate) fn sign_with(
    algorithm: Algorithm,
    encoding: DigestEncoding,
    template: &Template,
    key: &[u8],
    values: &Values<'_>,
) -> Result<String, SignError> {
    let digest = compute(algorithm, key, template, values)
        .map_err(|MissingHeader(name)| SignError::MissingHeader(name))?;
    Ok(encode_digest(encoding, &digest))
}

/// How a signed timestamp is written. Whatever the format, the text is
/// signed verbatim and read as unix seconds for the tolerance check.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TimestampFormat {
    /// Unix seconds (`1700000000`).
    #[default]
    Unix,
    /// Unix milliseconds (`1700000000000`): Recurly, Sanity, WorkOS, HubSpot.
    UnixMs,
    /// RFC 3339 with a zone (`2023-11-14T22:13:20+00:00`): Box.
    Rfc3339,
    /// ISO 8601 without a zone, read as UTC (`2023-11-14T22:13:20.000000`):
    /// Orb.
    Iso8601Utc,
    /// An HTTP date (`Tue, 14 Nov 2023 22:13:20 GMT`): Metronome.
    HttpDate,
}

impl TimestampFormat {
    /// The unix seconds `s` names. One that does not parse makes the
    /// signature malformed.
    pub(crate) fn parse(self, s: &str) -> Result<i64, VerifyError> {
        let s = s.trim();
        let parsed = match self {
            TimestampFormat::Unix => s.parse().ok(),
            TimestampFormat::UnixMs => s.parse::<i64>().ok().map(|ms| ms.div_euclid(1000)),
            TimestampFormat::Rfc3339 => chrono::DateTime::parse_from_rfc3339(s)
                .ok()
                .map(|t| t.timestamp()),
            TimestampFormat::Iso8601Utc => {
                chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                    .ok()
                    .map(|t| t.and_utc().timestamp())
            }
            TimestampFormat::HttpDate => chrono::DateTime::parse_from_rfc2822(s)
                .ok()
                .map(|t| t.timestamp()),
        };
        parsed.ok_or(VerifyError::InvalidSignature)
    }

    /// The text a sender writes for unix time `t` (`hookline sign`).
    pub fn format(self, t: i64) -> String {
        let utc = || chrono::DateTime::from_timestamp(t, 0).unwrap_or_default();
        match self {
            TimestampFormat::Unix => t.to_string(),
            TimestampFormat::UnixMs => (t * 1000).to_string(),
            TimestampFormat::Rfc3339 => utc().to_rfc3339(),
            TimestampFormat::Iso8601Utc => utc().format("%Y-%m-%dT%H:%M:%S%.6f").to_string(),
            TimestampFormat::HttpDate => utc().format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
        }
    }
}

/// The timestamp at `pointer` in a JSON body (a number or a string), in
/// unix seconds. A body without one is malformed.
pub(crate) fn body_timestamp(
    body: &[u8],
    pointer: &str,
    format: TimestampFormat,
) -> Result<i64, VerifyError> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| VerifyError::InvalidSignature)?;
    match value.pointer(pointer) {
        Some(serde_json::Value::Number(n)) => format.parse(&n.to_string()),
        Some(serde_json::Value::String(s)) => format.parse(s),
        _ => Err(VerifyError::InvalidSignature),
    }
}

#[cfg(test)]
mod tests {
    use super::TimestampFormat::*;
    use super::{decode_digest, encode_digest, DigestEncoding};

    #[test]
    fn base64_of_hex_encodes_the_hex_text() {
        let digest = [0xab, 0x01, 0xff];
        let written = encode_digest(DigestEncoding::Base64OfHex, &digest);
        // base64("ab01ff")
        assert_eq!(written, "YWIwMWZm");
        assert_eq!(
            decode_digest(DigestEncoding::Base64OfHex, &written).as_deref(),
            Some(&digest[..])
        );
        // Base64 of the raw bytes is not the same encoding.
        assert_eq!(decode_digest(DigestEncoding::Base64OfHex, "qwH/"), None);
    }

    #[test]
    fn every_timestamp_format_reads_back_what_it_writes() {
        let t = 1_700_000_000;
        for f in [Unix, UnixMs, Rfc3339, Iso8601Utc, HttpDate] {
            assert_eq!(
                f.parse(&f.format(t)).ok(),
                Some(t),
                "{f:?}: {}",
                f.format(t)
            );
        }
        assert_eq!(HttpDate.format(t), "Tue, 14 Nov 2023 22:13:20 GMT");
        assert_eq!(Iso8601Utc.parse("2023-11-14T22:13:20.999").ok(), Some(t));
        assert_eq!(UnixMs.parse("1700000000999").ok(), Some(t));
        assert!(
            Rfc3339.parse("2023-11-14T22:13:20").is_err(),
            "a zone is required"
        );
        assert!(Unix.parse("1.7e9").is_err());
    }
}
