//! RSA keys as tenants and `hookline sign` give them, shared by the
//! families that verify with a configured RSA public key (`rsa`,
//! `jwt-public-key`).

use rsa::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey};
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey, LineEnding};
use rsa::traits::PublicKeyParts;
use rsa::{RsaPrivateKey, RsaPublicKey};

use super::mac::{self, DigestEncoding};
use crate::provider::key::{Key, KeyError};

/// Keys shorter than this are refused: a 1024-bit RSA key is within reach
/// of a well-funded forger, and no provider built in uses one.
const MIN_KEY_BITS: usize = 2048;

/// An RSA public key from PEM (SubjectPublicKeyInfo or PKCS#1) or from
/// base64 DER (as Alipay and others show a key, without armour).
pub(crate) fn public_key(text: &str) -> Result<RsaPublicKey, KeyError> {
    let text = text.trim();
    let key = if text.starts_with("-----BEGIN") {
        RsaPublicKey::from_public_key_pem(text)
            .or_else(|_| RsaPublicKey::from_pkcs1_pem(text))
            .ok()
    } else {
        mac::decode_digest(DigestEncoding::Base64, text).and_then(|der| {
            RsaPublicKey::from_public_key_der(&der)
                .or_else(|_| RsaPublicKey::from_pkcs1_der(&der))
                .ok()
        })
    };
    let key = key.ok_or_else(|| {
        KeyError::new("not an RSA public key (PEM, or base64 DER SubjectPublicKeyInfo)")
    })?;
    if key.size() * 8 < MIN_KEY_BITS {
        return Err(KeyError::new(
            "the RSA public key is shorter than 2048 bits",
        ));
    }
    Ok(key)
}

/// An RSA private key from PKCS#8 or PKCS#1 PEM, for `hookline sign
/// --private-key` and the tests.
pub(crate) fn private_key(text: &str) -> Result<Key, KeyError> {
    RsaPrivateKey::from_pkcs8_pem(text)
        .or_else(|_| RsaPrivateKey::from_pkcs1_pem(text))
        .map(Key::rsa_signing)
        .map_err(|_| KeyError::new("an RSA private key is a PKCS#8 or PKCS#1 PEM"))
}

/// The PEM public key a tenant configures to verify what `private` signs.
pub(crate) fn public_pem(private: &Key) -> Option<String> {
    RsaPublicKey::from(private.rsa_private()?)
        .to_public_key_pem(LineEnding::LF)
        .ok()
}
