//! `scheme = "rsa-sha256"`: an RSA PKCS#1 v1.5 signature with SHA-256 over
//! a template of the request, verified with the public key the provider
//! publishes (configured as the tenant's secret, PEM or base64 DER
//! SubjectPublicKeyInfo). Wise (`X-Signature-SHA256`, base64, over the
//! body).
//!
//! Unlike `rsa-cert-url`, nothing is fetched: the key is the one the
//! provider prints in its documentation, and rotating it means adding the
//! new key to `secrets` beside the old one.

use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey};
use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::public_key::{KeyEncoding, PublicKeyParams};
use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The smallest RSA key accepted: shorter keys are factorable.
const MIN_KEY_BITS: usize = 2048;

/// The parameters of `scheme = "rsa-sha256"` (see [`PublicKeyParams`];
/// `key_encoding` is `base64-der`, and a PEM is accepted as well).
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct RsaSha256Params(pub PublicKeyParams);

/// An RSA public key as an operator pastes it: the PEM the provider
/// prints, or its base64 body on one line.
fn public_key(text: &str, encoding: KeyEncoding) -> Result<RsaPublicKey, KeyError> {
    let text = text.trim();
    let key = if text.starts_with("-----BEGIN") {
        RsaPublicKey::from_public_key_pem(text)
            .map_err(|_| KeyError::new("not an RSA public key PEM (BEGIN PUBLIC KEY)"))?
    } else {
        let der = encoding.decode(text)?;
        RsaPublicKey::from_public_key_der(&der)
            .map_err(|_| KeyError::new("not an RSA public key (base64 DER SubjectPublicKeyInfo)"))?
    };
    if key.size() * 8 < MIN_KEY_BITS {
        return Err(KeyError::new("the RSA key is shorter than 2048 bits"));
    }
    Ok(key)
}

impl Family for RsaSha256Params {
    fn name(&self) -> &'static str {
        "rsa-sha256"
    }

    fn check(&self) -> Result<(), String> {
        if self.0.key_encoding != KeyEncoding::Base64Der {
            return Err("key_encoding must be base64-der (a PEM is accepted too)".into());
        }
        self.0.check()
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        public_key(secret, self.0.key_encoding).map(Key::rsa)
    }

    fn decode_private_key(&self, text: &str) -> Result<Key, KeyError> {
        RsaPrivateKey::from_pkcs8_pem(text.trim())
            .map(Key::rsa_signing)
            .map_err(|_| KeyError::new("an RSA private key is a PKCS#8 PEM (BEGIN PRIVATE KEY)"))
    }

    fn public_secret(&self, private: &Key) -> Option<String> {
        let der = private
            .rsa_private()?
            .to_public_key()
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
        let digest = Sha256::digest(&signed.message);
        let ok = keys.iter().filter_map(|k| k.rsa_public()).any(|k| {
            k.verify(Pkcs1v15Sign::new::<Sha256>(), &digest, &signed.signature)
                .is_ok()
        });
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(signed.timestamp)
    }

    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        let key = key.rsa_private().ok_or(SignError::WrongKey)?;
        let mut failed = false;
        let headers = self.0.sign(input, |message| {
            // PKCS#1 v1.5 signing is deterministic and needs no RNG.
            key.sign(Pkcs1v15Sign::new::<Sha256>(), &Sha256::digest(message))
                .unwrap_or_else(|_| {
                    failed = true;
                    Vec::new()
                })
        })?;
        if failed {
            return Err(SignError::WrongKey);
        }
        Ok(headers)
    }

    fn needs_url(&self) -> bool {
        self.0.signed_content.uses_url()
    }

    fn signature_headers(&self) -> &[String] {
        &self.0.header.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wise's sandbox public key, as its reference implementation prints it
    /// (github.com/transferwise/digital-signatures-examples,
    /// verify-webhook-signature/verify-signature.js).
    const WISE_SANDBOX: &str = "-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwpb91cEYuyJNQepZAVfP
ZIlPZfNUefH+n6w9SW3fykqKu938cR7WadQv87oF2VuT+fDt7kqeRziTmPSUhqPU
ys/V2Q1rlfJuXbE+Gga37t7zwd0egQ+KyOEHQOpcTwKmtZ81ieGHynAQzsn1We3j
wt760MsCPJ7GMT141ByQM+yW1Bx+4SG3IGjXWyqOWrcXsxAvIXkpUD/jK/L958Cg
nZEgz0BSEh0QxYLITnW1lLokSx/dTianWPFEhMC9BgijempgNXHNfcVirg1lPSyg
z7KqoKUN0oHqWLr2U1A+7kqrl6O2nx3CKs1bj1hToT1+p4kcMoHXA7kA+VBLUpEs
VwIDAQAB
-----END PUBLIC KEY-----";

    fn params() -> RsaSha256Params {
        toml::from_str(
            "header = \"X-Signature-SHA256\"\nencoding = \"base64\"\nsigned_content = \"{body}\"\nkey_encoding = \"base64-der\"",
        )
        .unwrap()
    }

    #[test]
    fn a_pem_and_its_base64_body_are_the_same_key() {
        let p = params();
        p.check().unwrap();
        let one_line: String = WISE_SANDBOX
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        let a = public_key(WISE_SANDBOX, p.0.key_encoding).unwrap();
        let b = public_key(&one_line, p.0.key_encoding).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn short_and_malformed_keys_are_refused_without_quoting_them() {
        let p = params();
        let small = RsaPrivateKey::new(&mut rand::thread_rng(), 1024).unwrap();
        let pem = small
            .to_public_key()
            .to_public_key_pem(rsa::pkcs8::LineEnding::LF)
            .unwrap();
        let err = p.decode_secret(&pem).unwrap_err().to_string();
        assert!(err.contains("2048"), "{err}");
        let err = p.decode_secret("bm90IGEga2V5").unwrap_err().to_string();
        assert!(!err.contains("bm90IGEga2V5"), "{err}");
    }

    #[test]
    fn another_key_encoding_is_a_load_error() {
        let p: RsaSha256Params = toml::from_str(
            "header = \"X\"\nencoding = \"base64\"\nsigned_content = \"{body}\"\nkey_encoding = \"hex\"",
        )
        .unwrap();
        assert!(p.check().is_err());
    }
}
