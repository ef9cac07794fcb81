//! Key material: what one configured secret becomes once the provider's
//! scheme family has decoded it.
//!
//! The family decides: a MAC key for HMAC, the token itself for `token`,
//! and later a public key for Ed25519 or ECDSA, `user:password` for Basic.
//! A [`Key`] never shows its bytes in `Debug` output, and a [`KeyError`]
//! says what is wrong with a secret without ever containing it.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretSlice};

use super::fetch_url::FetchUrl;
use super::scheme::jwks::KeySet;

/// One tenant secret, decoded by its provider's family
/// ([`super::ProviderDef::decode_secret`]).
pub struct Key(Material);

/// The kinds of key material. A family whose key is not a shared secret
/// (a public key) adds a variant here and an accessor beside [`Key::shared`].
enum Material {
    /// Bytes both sides hold: a MAC key, a token, `user:password`.
    Shared(SecretSlice<u8>),
    /// An Ed25519 public key (Discord, Telnyx): verifies only.
    Ed25519(ed25519_dalek::VerifyingKey),
    /// An Ed25519 private key, for `hookline sign --private-key`.
    Ed25519Signing(Box<ed25519_dalek::SigningKey>),
    /// An ECDSA P-256 public key (SendGrid): verifies only.
    P256(p256::ecdsa::VerifyingKey),
    /// An ECDSA P-256 private key, for `hookline sign --private-key`.
    P256Signing(Box<p256::ecdsa::SigningKey>),
    /// An RSA public key the tenant configured (`scheme = "rsa"`: Bridge, Wise):
    /// verifies only.
    Rsa(Box<rsa::RsaPublicKey>),
    /// An RSA private key, for `hookline sign --private-key`.
    RsaSigning(Box<rsa::RsaPrivateKey>),
    /// The RSA public key of a certificate fetched from `url` for one
    /// request (AWS SNS, PayPal): verifies only what names that URL.
    Certificate {
        url: FetchUrl,
        key: Box<rsa::RsaPublicKey>,
    },
    /// The keys a provider publishes at `url` (a JWK Set, Google's
    /// certificates), fetched: verifies only what names that URL.
    KeySet { url: FetchUrl, set: Box<KeySet> },
    /// One P-256 public key a provider's API answered for the key ID in
    /// `url` (Circle): verifies only what names that URL.
    FetchedP256 {
        url: FetchUrl,
        key: p256::ecdsa::VerifyingKey,
    },
    /// One P-256 public key a provider's API answered for the key ID in
    /// `url` as ECDSA over SHA-1 (eBay's getPublicKey): verifies only what
    /// names that URL, with SHA-1.
    FetchedP256Sha1 {
        url: FetchUrl,
        key: p256::ecdsa::VerifyingKey,
    },
}

/// How long a key eBay's getPublicKey answered is used: "the retrieved
/// public key value should be cached ... one-hour is recommended".
pub const EBAY_KEY_TTL: Duration = Duration::from_secs(3600);

impl Key {
    /// A shared secret; empty bytes are refused, since they would verify
    /// anything an attacker signs with an empty key.
    pub(crate) fn shared(bytes: Vec<u8>) -> Result<Key, KeyError> {
        if bytes.is_empty() {
            return Err(KeyError::new("the secret is empty"));
        }
        Ok(Key(Material::Shared(bytes.into())))
    }

    /// The shared-secret bytes, if this key is one.
    pub(crate) fn shared_bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            Material::Shared(s) => Some(s.expose_secret()),
            _ => None,
        }
    }

    pub(crate) fn ed25519(key: ed25519_dalek::VerifyingKey) -> Key {
        Key(Material::Ed25519(key))
    }

    pub(crate) fn ed25519_signing(key: ed25519_dalek::SigningKey) -> Key {
        Key(Material::Ed25519Signing(Box::new(key)))
    }

    pub(crate) fn p256(key: p256::ecdsa::VerifyingKey) -> Key {
        Key(Material::P256(key))
    }

    pub(crate) fn p256_signing(key: p256::ecdsa::SigningKey) -> Key {
        Key(Material::P256Signing(Box::new(key)))
    }

    pub(crate) fn rsa(key: rsa::RsaPublicKey) -> Key {
        Key(Material::Rsa(Box::new(key)))
    }

    pub(crate) fn rsa_signing(key: rsa::RsaPrivateKey) -> Key {
        Key(Material::RsaSigning(Box::new(key)))
    }

    /// What `url` answered, with no lifetime of its own: see
    /// [`Key::fetched`].
    pub fn certificate(url: FetchUrl, answer: &[u8]) -> Result<Key, KeyError> {
        Key::fetched(url, answer, None)
    }

    /// What a key URL answered: a JSON object with `data.publicKey` is
    /// one public key by ID (Circle's answer: see [`public_key_answer`]),
    /// one with `key`, `algorithm` and `digest` one PEM public key by ID
    /// (eBay's: see [`pem_key_answer`]),
    /// any other JSON object a set of published keys ([`KeySet`], used for
    /// `max_age` when given), anything else one PEM X.509 certificate.
    pub fn fetched(
        url: FetchUrl,
        answer: &[u8],
        max_age: Option<Duration>,
    ) -> Result<Key, KeyError> {
        if let Some(key) = public_key_answer(answer) {
            return Ok(Key(Material::FetchedP256 { url, key: key? }));
        }
        if let Some(key) = pem_key_answer(answer) {
            return Ok(Key(Material::FetchedP256Sha1 { url, key: key? }));
        }
        if answer.trim_ascii_start().starts_with(b"{") {
            let set = KeySet::parse(answer, max_age)?;
            return Ok(Key(Material::KeySet {
                url,
                set: Box::new(set),
            }));
        }
        let pem = answer;
        let key = super::scheme::rsa_cert_url::certificate_key(pem)?;
        Ok(Key(Material::Certificate {
            url,
            key: Box::new(key),
        }))
    }

    /// The certificate's RSA key, if this key is a certificate fetched
    /// from the URL `raw` names.
    pub(crate) fn certificate_from(&self, raw: &str) -> Option<&rsa::RsaPublicKey> {
        match &self.0 {
            Material::Certificate { url, key } if url.is(raw) => Some(key),
            _ => None,
        }
    }

    /// The published keys, if this key is the set fetched from the URL
    /// `raw` names.
    pub(crate) fn key_set_from(&self, raw: &str) -> Option<&KeySet> {
        match &self.0 {
            Material::KeySet { url, set } if url.is(raw) => Some(set),
            _ => None,
        }
    }

    /// The P-256 key, if this key is the one fetched from the URL `raw`
    /// names.
    pub(crate) fn fetched_p256_from(&self, raw: &str) -> Option<&p256::ecdsa::VerifyingKey> {
        match &self.0 {
            Material::FetchedP256 { url, key } if url.is(raw) => Some(key),
            _ => None,
        }
    }

    /// The P-256 key to verify SHA-1 signatures with, if this key is the
    /// one fetched from the URL `raw` names (eBay).
    pub(crate) fn fetched_p256_sha1_from(&self, raw: &str) -> Option<&p256::ecdsa::VerifyingKey> {
        match &self.0 {
            Material::FetchedP256Sha1 { url, key } if url.is(raw) => Some(key),
            _ => None,
        }
    }

    /// Whether this is a set of published keys fetched from a URL.
    pub fn is_key_set(&self) -> bool {
        matches!(self.0, Material::KeySet { .. })
    }

    /// How long a fetched key set may be used, if its answer said.
    pub fn max_age(&self) -> Option<Duration> {
        match &self.0 {
            Material::KeySet { set, .. } => set.max_age,
            Material::FetchedP256Sha1 { .. } => Some(EBAY_KEY_TTL),
            _ => None,
        }
    }

    /// Whether this is a fetched key set without a key of ID `id`: the
    /// provider may have published a new key since it was fetched.
    pub fn lacks_key_id(&self, id: &str) -> bool {
        match &self.0 {
            Material::KeySet { set, .. } => !set.has(id),
            _ => false,
        }
    }

    /// The Ed25519 public key, if this key is one.
    pub(crate) fn ed25519_public(&self) -> Option<&ed25519_dalek::VerifyingKey> {
        match &self.0 {
            Material::Ed25519(k) => Some(k),
            _ => None,
        }
    }

    /// The Ed25519 private key, if this key is one.
    pub(crate) fn ed25519_private(&self) -> Option<&ed25519_dalek::SigningKey> {
        match &self.0 {
            Material::Ed25519Signing(k) => Some(k),
            _ => None,
        }
    }

    /// The P-256 public key, if this key is one.
    pub(crate) fn p256_public(&self) -> Option<&p256::ecdsa::VerifyingKey> {
        match &self.0 {
            Material::P256(k) => Some(k),
            _ => None,
        }
    }

    /// The configured RSA public key, if this key is one.
    pub(crate) fn rsa_public(&self) -> Option<&rsa::RsaPublicKey> {
        match &self.0 {
            Material::Rsa(k) => Some(k),
            _ => None,
        }
    }

    /// The RSA private key, if this key is one.
    pub(crate) fn rsa_private(&self) -> Option<&rsa::RsaPrivateKey> {
        match &self.0 {
            Material::RsaSigning(k) => Some(k),
            _ => None,
        }
    }

    /// The P-256 private key, if this key is one.
    pub(crate) fn p256_private(&self) -> Option<&p256::ecdsa::SigningKey> {
        match &self.0 {
            Material::P256Signing(k) => Some(k),
            _ => None,
        }
    }
}

/// The algorithm a key endpoint's answer must name.
const ECDSA_SHA_256: &str = "ECDSA_SHA_256";

/// A key endpoint's answer `{"data": {"publicKey": <base64 DER
/// SubjectPublicKeyInfo>, "algorithm": "ECDSA_SHA_256", ...}}` (Circle's
/// `GET /v2/notifications/publicKey/{id}`): `None` when the answer is not
/// of that shape, an error when it is but the key is not a P-256 key or
/// the algorithm is another.
fn public_key_answer(answer: &[u8]) -> Option<Result<p256::ecdsa::VerifyingKey, KeyError>> {
    use base64::Engine as _;
    use p256::pkcs8::DecodePublicKey as _;
    let value: serde_json::Value = serde_json::from_slice(answer).ok()?;
    let data = value.get("data")?;
    let public_key = data.get("publicKey")?;
    Some((|| {
        if data.get("algorithm").and_then(|a| a.as_str()) != Some(ECDSA_SHA_256) {
            return Err(KeyError::new("the key's algorithm is not ECDSA_SHA_256"));
        }
        let der = public_key
            .as_str()
            .and_then(|k| {
                base64::engine::general_purpose::STANDARD
                    .decode(k.trim())
                    .ok()
            })
            .ok_or_else(|| KeyError::new("the public key is not base64"))?;
        p256::ecdsa::VerifyingKey::from_public_key_der(&der)
            .map_err(|_| KeyError::new("not a P-256 public key (DER SubjectPublicKeyInfo)"))
    })())
}

/// A key endpoint's answer `{"key": "-----BEGIN PUBLIC KEY-----<base64
/// DER SubjectPublicKeyInfo>-----END PUBLIC KEY-----", "algorithm":
/// "ECDSA", "digest": "SHA1"}` (eBay's `GET
/// /commerce/notification/v1/public_key/{id}`; the PEM's line breaks may
/// be missing, as eBay serves it): `None` when the answer is not of that
/// shape, an error when it is but the key is not a P-256 key or the
/// algorithm or digest is another.
fn pem_key_answer(answer: &[u8]) -> Option<Result<p256::ecdsa::VerifyingKey, KeyError>> {
    use base64::Engine as _;
    use p256::pkcs8::DecodePublicKey as _;
    const BEGIN: &str = "-----BEGIN PUBLIC KEY-----";
    const END: &str = "-----END PUBLIC KEY-----";
    let value: serde_json::Value = serde_json::from_slice(answer).ok()?;
    let pem = value.get("key")?.as_str()?;
    let algorithm = value.get("algorithm")?;
    Some((|| {
        let named = |v: Option<&serde_json::Value>, want: &str| {
            v.and_then(|v| v.as_str())
                .is_some_and(|v| v.eq_ignore_ascii_case(want))
        };
        if !named(Some(algorithm), "ECDSA") || !named(value.get("digest"), "SHA1") {
            return Err(KeyError::new("the key is not for ECDSA over SHA1"));
        }
        let body = pem
            .trim()
            .strip_prefix(BEGIN)
            .and_then(|rest| rest.strip_suffix(END))
            .ok_or_else(|| KeyError::new("the key is not a PEM public key"))?;
        let body: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|_| KeyError::new("the PEM public key is not base64"))?;
        p256::ecdsa::VerifyingKey::from_public_key_der(&der)
            .map_err(|_| KeyError::new("not a P-256 public key (DER SubjectPublicKeyInfo)"))
    })())
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key([redacted])")
    }
}

/// Why a configured secret cannot be used. The reason is written by the
/// family and never quotes the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct KeyError {
    reason: String,
}

impl KeyError {
    /// `reason` must describe the secret's shape, never its content.
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        KeyError {
            reason: reason.into(),
        }
    }
}
