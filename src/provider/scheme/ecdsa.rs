//! `scheme = "ecdsa-p256"`: an ECDSA P-256/SHA-256 signature (DER) over a
//! template of the request, verified with the provider's public key as it
//! shows it (base64 SubjectPublicKeyInfo). SendGrid's Event Webhook.

use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey};
use serde::Deserialize;

use super::public_key::PublicKeyParams;
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "ecdsa-p256"` (see [`PublicKeyParams`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct EcdsaP256Params(pub PublicKeyParams);

impl Family for EcdsaP256Params {
    fn name(&self) -> &'static str {
        "ecdsa-p256"
    }

    fn check(&self) -> Result<(), String> {
        self.0.check()
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let der = self.0.key_encoding.decode(secret)?;
        VerifyingKey::from_public_key_der(&der)
            .map(Key::p256)
            .map_err(|_| KeyError::new("not a P-256 public key (base64 DER SubjectPublicKeyInfo)"))
    }

    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        SigningKey::from_pkcs8_pem(text)
            .map(Key::p256_signing)
            .map_err(|_| KeyError::new("a P-256 private key is a PKCS#8 PEM"))
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        let der = private
            .p256_private()?
            .verifying_key()
            .to_public_key_der()
            .ok()?;
        Some(self.0.key_encoding.encode(der.as_bytes()))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let signed = self.0.read(req)?;
        let signature =
            Signature::from_der(&signed.signature).map_err(|_| VerifyError::InvalidSignature)?;
        // Senders are free to produce a high-S signature; the curve
        // equation accepts both, so read it in its low-S form.
        let signature = signature.normalize_s().unwrap_or(signature);
        let ok = keys
            .iter()
            .filter_map(|k| k.p256_public())
            .any(|k| k.verify(&signed.message, &signature).is_ok());
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(signed.timestamp)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let key = key.p256_private().ok_or(SignError::WrongKey)?;
        self.0.sign(input, |message| {
            let signature: Signature = key.sign(message);
            signature.to_der().as_bytes().to_vec()
        })
    }

    fn needs_url(&self) -> bool {
        self.0.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.0.header.0
    }
}
