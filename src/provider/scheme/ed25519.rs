//! `scheme = "ed25519"`: an Ed25519 signature over a template of the
//! request, verified with the provider's public key. Discord (hex, over
//! timestamp + body), Telnyx (base64, over `timestamp|body`).

use ed25519_dalek::pkcs8::DecodePrivateKey;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::Deserialize;

use super::public_key::PublicKeyParams;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "ed25519"` (see [`PublicKeyParams`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct Ed25519Params(pub PublicKeyParams);

impl Family for Ed25519Params {
    fn name(&self) -> &'static str {
        "ed25519"
    }

    fn check(&self) -> Result<(), String> {
        self.0.check()
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let bytes: [u8; 32] = self
            .0
            .key_encoding
            .decode(secret)?
            .try_into()
            .map_err(|_| KeyError::new("an Ed25519 public key is 32 bytes"))?;
        let key = VerifyingKey::from_bytes(&bytes)
            .map_err(|_| KeyError::new("not a valid Ed25519 public key"))?;
        // A small-order point (the identity among them) is no provider's
        // key: signatures "verify" under it that nobody's private key made
        // (`verify_strict` refuses such keys too, so every request would
        // fail; better said once, at check-config).
        if key.is_weak() {
            return Err(KeyError::new(
                "a weak Ed25519 public key (a small-order point, such as the identity): no provider signs with it",
            ));
        }
        Ok(Key::ed25519(key))
    }

    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        if let Ok(key) = SigningKey::from_pkcs8_pem(text) {
            return Ok(Key::ed25519_signing(key));
        }
        let seed: [u8; 32] = self.0.key_encoding.decode(text)?.try_into().map_err(|_| {
            KeyError::new("an Ed25519 private key is a PKCS#8 PEM or a 32-byte seed")
        })?;
        Ok(Key::ed25519_signing(SigningKey::from_bytes(&seed)))
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        let key = private.ed25519_private()?;
        Some(self.0.key_encoding.encode(key.verifying_key().as_bytes()))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let signed = self.0.read(req)?;
        let signature =
            Signature::from_slice(&signed.signature).map_err(|_| VerifyError::InvalidSignature)?;
        // Every key is tried (rotation); the keys are public, so stopping
        // at the first match reveals nothing secret.
        let ok = keys
            .iter()
            .filter_map(|k| k.ed25519_public())
            .any(|k| k.verify_strict(&signed.message, &signature).is_ok());
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(signed.timestamp)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let key = key.ed25519_private().ok_or(SignError::WrongKey)?;
        self.0
            .sign(input, |message| key.sign(message).to_bytes().to_vec())
    }

    fn needs_url(&self) -> bool {
        self.0.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.0.header.0
    }
}
