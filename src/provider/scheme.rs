//! The signature schemes: the code half of a provider.
//!
//! Each scheme verifies over the exact raw body bytes, compares in constant
//! time, accepts any of several secrets (rotation) and any of several
//! signatures in one header, and checks a signed timestamp in both directions.
//! [`sign`] is the inverse, used by `hookline sign` and `replay --resign`.

use std::time::Duration;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretSlice};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::definition::{
    Encoding, HeaderNames, ProviderDef, SchemeKind, SecretEncoding, SignatureDef,
};

type HmacSha256 = Hmac<Sha256>;

/// Why a request failed verification. Maps to 401 with the same `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the signature header is missing")]
    MissingSignature,
    #[error("no signature matches any configured secret")]
    InvalidSignature,
    #[error("the signed timestamp is outside the tolerance")]
    TimestampOutOfTolerance,
}

/// Case-insensitive header access, so the schemes work on actix requests,
/// capture files and test fixtures alike.
pub trait HeaderLookup {
    fn header(&self, name: &str) -> Option<&str>;

    /// The value of the first of `names` that is present.
    fn first_of(&self, names: &HeaderNames) -> Option<&str> {
        names.0.iter().find_map(|n| self.header(n))
    }
}

impl HeaderLookup for [(String, String)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl HeaderLookup for Vec<(String, String)> {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

/// A MAC key (or shared token) decoded from a configured secret.
pub struct SigningKey(SecretSlice<u8>);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey([redacted])")
    }
}

impl SigningKey {
    /// Decode `secret` as the definition says. The error never contains the
    /// secret.
    pub fn decode(encoding: SecretEncoding, secret: &str) -> Result<Self, String> {
        let bytes = match encoding {
            SecretEncoding::Utf8 => secret.as_bytes().to_vec(),
            SecretEncoding::WhsecBase64 => BASE64
                .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
                .map_err(|_| "not a whsec_ base64 secret".to_owned())?,
            SecretEncoding::Base64 => BASE64
                .decode(secret)
                .map_err(|_| "not valid base64".to_owned())?,
            SecretEncoding::Hex => hex::decode(secret).map_err(|_| "not valid hex".to_owned())?,
        };
        if bytes.is_empty() {
            return Err("the secret is empty".into());
        }
        Ok(SigningKey(bytes.into()))
    }

    fn bytes(&self) -> &[u8] {
        self.0.expose_secret()
    }
}

/// A parsed `signed_content` template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template(Vec<Part>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Id,
    Timestamp,
    Url,
    Body,
}

impl Template {
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed '{{' in {s:?}"))?;
            parts.push(match &rest[open + 1..open + close] {
                "id" => Part::Id,
                "timestamp" => Part::Timestamp,
                "url" => Part::Url,
                "body" => Part::Body,
                other => return Err(format!("unknown placeholder {{{other}}}")),
            });
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        if !parts.contains(&Part::Body) {
            return Err("the signed content must include {body}".into());
        }
        Ok(Template(parts))
    }

    pub fn uses_timestamp(&self) -> bool {
        self.0.contains(&Part::Timestamp)
    }

    pub fn uses_url(&self) -> bool {
        self.0.contains(&Part::Url)
    }

    pub fn uses_id(&self) -> bool {
        self.0.contains(&Part::Id)
    }

    /// HMAC of the content, fed part by part so the body is never copied.
    fn mac(&self, key: &SigningKey, v: &Signed<'_>) -> [u8; 32] {
        let mut mac = HmacSha256::new_from_slice(key.bytes()).expect("HMAC takes any key length");
        for part in &self.0 {
            mac.update(match part {
                Part::Literal(s) => s.as_bytes(),
                Part::Id => v.id.as_bytes(),
                Part::Timestamp => v.timestamp.as_bytes(),
                Part::Url => v.url.as_bytes(),
                Part::Body => v.body,
            });
        }
        mac.finalize().into_bytes().into()
    }
}

/// The values the signed content is made of.
struct Signed<'a> {
    id: &'a str,
    timestamp: &'a str,
    url: &'a str,
    body: &'a [u8],
}

/// What a request offers for verification.
pub struct Request<'a, H: HeaderLookup + ?Sized> {
    pub headers: &'a H,
    pub body: &'a [u8],
    /// The URL as the sender saw it; only used by `{url}` templates.
    pub url: &'a str,
}

/// Verify `req` against any of `keys`.
///
/// The signature is checked before the timestamp, so a forged request is
/// reported as forged whatever its timestamp says.
pub fn verify<H: HeaderLookup + ?Sized>(
    def: &ProviderDef,
    keys: &[SigningKey],
    req: &Request<'_, H>,
    now_unix: i64,
    tolerance: Duration,
) -> Result<(), VerifyError> {
    let sig = &def.signature;
    let header = req
        .headers
        .first_of(&sig.header)
        .ok_or(VerifyError::MissingSignature)?;
    let (timestamp, candidates): (Option<&str>, Vec<&str>) = match sig.scheme {
        SchemeKind::Token => {
            // Hash both sides so the comparison is constant-time and length
            // independent.
            let offered = Sha256::digest(header.as_bytes());
            let ok = keys.iter().fold(subtle::Choice::from(0), |acc, k| {
                acc | Sha256::digest(k.bytes()).ct_eq(&offered)
            });
            return if bool::from(ok) {
                Ok(())
            } else {
                Err(VerifyError::InvalidSignature)
            };
        }
        SchemeKind::HmacHeader => {
            let ts = match &sig.timestamp_header {
                Some(names) => Some(
                    req.headers
                        .first_of(names)
                        .ok_or(VerifyError::MissingSignature)?,
                ),
                None => None,
            };
            let list = match sig.separator.as_deref() {
                Some(sep) => header.split(sep).collect(),
                None => vec![header],
            };
            (ts, list)
        }
        SchemeKind::HmacKv => parse_kv(sig, header),
    };
    let id = match &sig.id_header {
        Some(names) if sig.template.uses_id() => req
            .headers
            .first_of(names)
            .ok_or(VerifyError::MissingSignature)?,
        _ => "",
    };
    let decoded: Vec<Vec<u8>> = candidates
        .iter()
        .filter_map(|c| c.trim().strip_prefix(sig.prefix.as_str()))
        .filter_map(|c| decode_digest(sig.encoding, c))
        .collect();
    if decoded.is_empty() {
        return Err(VerifyError::InvalidSignature);
    }
    let signed = Signed {
        id,
        timestamp: timestamp.unwrap_or(""),
        url: req.url,
        body: req.body,
    };
    // Every key is tried against every candidate, without stopping early, so
    // timing does not reveal which secret matched.
    let mut matched = subtle::Choice::from(0);
    for key in keys {
        let expected = sig.template.mac(key, &signed);
        for candidate in &decoded {
            matched |= expected.as_slice().ct_eq(candidate.as_slice());
        }
    }
    if !bool::from(matched) {
        return Err(VerifyError::InvalidSignature);
    }
    if let Some(ts) = timestamp {
        let ts: i64 = ts
            .trim()
            .parse()
            .map_err(|_| VerifyError::InvalidSignature)?;
        if now_unix.abs_diff(ts) > tolerance.as_secs() {
            return Err(VerifyError::TimestampOutOfTolerance);
        }
    }
    Ok(())
}

/// Split Stripe's `t=...,v1=...,v1=...` into the timestamp and signatures.
fn parse_kv<'h>(sig: &SignatureDef, header: &'h str) -> (Option<&'h str>, Vec<&'h str>) {
    let pair_sep = sig.pair_separator.as_deref().unwrap_or(",");
    let kv_sep = sig.kv_separator.as_deref().unwrap_or("=");
    let ts_key = sig.timestamp_key.as_deref().unwrap_or("t");
    let sig_key = sig.signature_key.as_deref().unwrap_or("v1");
    let mut ts = None;
    let mut sigs = Vec::new();
    for pair in header.split(pair_sep) {
        if let Some((k, v)) = pair.trim().split_once(kv_sep) {
            if k == ts_key {
                ts = Some(v);
            } else if k == sig_key {
                sigs.push(v);
            }
        }
    }
    // A header with signatures but no timestamp cannot be checked: the
    // timestamp is part of the signed content.
    if ts.is_none() {
        sigs.clear();
    }
    (ts, sigs)
}

fn decode_digest(encoding: Encoding, s: &str) -> Option<Vec<u8>> {
    match encoding {
        Encoding::Hex => hex::decode(s).ok(),
        Encoding::Base64 => BASE64.decode(s).ok(),
    }
}

fn encode_digest(encoding: Encoding, d: &[u8]) -> String {
    match encoding {
        Encoding::Hex => hex::encode(d),
        Encoding::Base64 => BASE64.encode(d),
    }
}

/// What to sign: the inverse of [`verify`].
pub struct SignInput<'a> {
    pub body: &'a [u8],
    pub id: &'a str,
    pub timestamp: i64,
    pub url: &'a str,
}

/// The headers the provider would send for this body: the signature header
/// and, where the scheme has them, the timestamp and id headers.
pub fn sign(def: &ProviderDef, key: &SigningKey, input: &SignInput<'_>) -> Vec<(String, String)> {
    let sig = &def.signature;
    let timestamp = input.timestamp.to_string();
    let signed = Signed {
        id: input.id,
        timestamp: &timestamp,
        url: input.url,
        body: input.body,
    };
    let mut headers = Vec::new();
    let value = match sig.scheme {
        SchemeKind::Token => String::from_utf8_lossy(key.bytes()).into_owned(),
        SchemeKind::HmacHeader => {
            format!(
                "{}{}",
                sig.prefix,
                encode_digest(sig.encoding, &sig.template.mac(key, &signed))
            )
        }
        SchemeKind::HmacKv => format!(
            "{}{}{}{}{}{}{}",
            sig.timestamp_key.as_deref().unwrap_or("t"),
            sig.kv_separator.as_deref().unwrap_or("="),
            timestamp,
            sig.pair_separator.as_deref().unwrap_or(","),
            sig.signature_key.as_deref().unwrap_or("v1"),
            sig.kv_separator.as_deref().unwrap_or("="),
            encode_digest(sig.encoding, &sig.template.mac(key, &signed)),
        ),
    };
    if let (Some(names), true) = (&sig.id_header, sig.template.uses_id()) {
        headers.push((names.primary().to_owned(), input.id.to_owned()));
    }
    if let (SchemeKind::HmacHeader, Some(names)) = (sig.scheme, &sig.timestamp_header) {
        headers.push((names.primary().to_owned(), timestamp.clone()));
    }
    headers.push((sig.header.primary().to_owned(), value));
    headers
}
