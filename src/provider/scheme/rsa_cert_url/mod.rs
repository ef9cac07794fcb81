//! `scheme = "rsa-cert-url"`: an RSA (PKCS#1 v1.5) signature checked with
//! the key of an X.509 certificate whose URL the request itself names.
//! AWS SNS (`SigningCertURL`, signature versions 1 and 2) and PayPal
//! (`PAYPAL-CERT-URL`, over the CRC32 of the body). What is signed, and
//! where the signature and URL are, is the definition's `message`
//! ([`sns`], [`paypal`]).
//!
//! # Fetching the certificate
//!
//! Verification is synchronous and a certificate is fetched over the
//! network, so a request goes through two steps:
//!
//! 1. [`Family::certificate`] runs every check that needs no certificate:
//!    the signature is there and decodes, the certificate URL is `https`
//!    on a host of the provider's `fetch_hosts` (anything else is
//!    `invalid_signature`, fetched never), the tenant's own identifier
//!    matches (the SNS topic), and the signed time parses. It answers the
//!    [`FetchUrl`] to get; [`crate::provider::certificate_to_fetch`] then
//!    checks the time against the tolerance.
//! 2. The HTTP layer fetches that URL through its certificate cache (one
//!    fetch per URL, kept for a day) and passes the certificate to
//!    [`crate::provider::verify_request`] as a [`Key`] bound to its URL;
//!    [`Family::verify`] uses only a certificate bound to the URL the
//!    request names.
//!
//! A request that fails a cheap check therefore never causes a fetch, and
//! the verify function stays a pure function of its inputs (the vectors
//! harness hands it the certificates the vectors carry).
//!
//! The tenant's `secrets` are not secret here: trust comes from the
//! certificate's host. They are what binds a signed message to this
//! tenant: the SNS topic ARNs it subscribed, PayPal webhook IDs.

pub mod paypal;
pub mod sns;

use rsa::pkcs8::DecodePublicKey;
use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Sign, RsaPublicKey};
use serde::Deserialize;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use x509_cert::der::{DecodePem, Encode};

use super::{CertificateNeeded, Family, SignError, SignInput, VerifyError};
use crate::provider::fetch_url::FetchHosts;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The smallest RSA key accepted from a certificate.
const MIN_KEY_BITS: usize = 2048;

/// The parameters of `scheme = "rsa-cert-url"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RsaCertUrlParams {
    /// What is signed and where the signature, certificate URL and signed
    /// time are: `sns` or `paypal`.
    pub message: Message,
}

/// The provider's message layout.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Message {
    /// An SNS message: everything in the JSON body ([`sns`]).
    Sns,
    /// PayPal's transmission headers over the body's CRC32 ([`paypal`]).
    Paypal,
}

/// The digest an RSA signature was made over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hash {
    Sha1,
    Sha256,
}

/// What a request claims, read without any certificate.
pub(crate) struct Signed {
    pub signature: Vec<u8>,
    pub hash: Hash,
    /// The certificate URL, as the request wrote it.
    pub cert_url: String,
    /// Unix seconds of the signed time.
    pub signed_at: i64,
    /// The signed text for each of the tenant's identifiers this request
    /// may be for; empty when it is for none of them.
    pub messages: Vec<Vec<u8>>,
}

impl Message {
    fn read(self, req: &UntrustedRequest<'_>, keys: &[&Key]) -> Result<Signed, VerifyError> {
        let ids: Vec<&[u8]> = keys.iter().filter_map(|k| k.shared_bytes()).collect();
        match self {
            Message::Sns => sns::read(req, &ids),
            Message::Paypal => paypal::read(req, &ids),
        }
    }
}

impl Family for RsaCertUrlParams {
    fn name(&self) -> &'static str {
        "rsa-cert-url"
    }

    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let id = secret.trim();
        match self.message {
            Message::Sns => sns::check_topic(id)?,
            Message::Paypal => paypal::check_webhook_id(id)?,
        }
        Key::shared(id.as_bytes().to_vec())
    }

    fn decode_private_key(&self, _text: &str) -> Result<Key, KeyError> {
        Err(KeyError::new(
            "only the provider signs for this scheme, with its own certificate",
        ))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let signed = self.message.read(req, keys)?;
        // Only a certificate fetched from the URL this request names: the
        // caller found it through [`Family::certificate`].
        let key = keys
            .iter()
            .find_map(|k| k.certificate_from(&signed.cert_url))
            .ok_or(VerifyError::InvalidSignature)?;
        let ok = signed
            .messages
            .iter()
            .any(|m| verifies(key, signed.hash, m, &signed.signature));
        if !ok {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(Some(signed.signed_at))
    }

    fn fetches(&self) -> bool {
        true
    }

    fn certificate(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
        hosts: &FetchHosts,
    ) -> Result<Option<CertificateNeeded>, VerifyError> {
        let signed = self.message.read(req, keys)?;
        if signed.messages.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        let url = hosts
            .allow(&signed.cert_url)
            .ok_or(VerifyError::InvalidSignature)?;
        Ok(Some(CertificateNeeded {
            urls: vec![url],
            signed_at: Some(signed.signed_at),
            key_id: None,
            credentials: Vec::new(),
        }))
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        match self.message {
            Message::Sns => &[],
            Message::Paypal => paypal::signature_header(),
        }
    }
}

/// Whether `signature` is `key`'s PKCS#1 v1.5 signature of `message`.
fn verifies(key: &RsaPublicKey, hash: Hash, message: &[u8], signature: &[u8]) -> bool {
    match hash {
        Hash::Sha1 => key.verify(
            Pkcs1v15Sign::new::<Sha1>(),
            &Sha1::digest(message),
            signature,
        ),
        Hash::Sha256 => key.verify(
            Pkcs1v15Sign::new::<Sha256>(),
            &Sha256::digest(message),
            signature,
        ),
    }
    .is_ok()
}

/// The RSA public key of the PEM X.509 certificate a certificate URL
/// answered.
pub(crate) fn certificate_key(pem: &[u8]) -> Result<RsaPublicKey, KeyError> {
    let cert = x509_cert::Certificate::from_pem(pem)
        .map_err(|_| KeyError::new("not a PEM X.509 certificate"))?;
    let spki = cert
        .tbs_certificate
        .subject_public_key_info
        .to_der()
        .map_err(|_| KeyError::new("the certificate's public key cannot be read"))?;
    let key = RsaPublicKey::from_public_key_der(&spki)
        .map_err(|_| KeyError::new("the certificate's key is not an RSA key"))?;
    if key.size() * 8 < MIN_KEY_BITS {
        return Err(KeyError::new("the certificate's RSA key is too short"));
    }
    Ok(key)
}
