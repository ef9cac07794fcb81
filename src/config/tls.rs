//! TLS material: `[tls]` (extra trusted roots for outbound connections),
//! and the certificate + key pairs of `[server.tls]` and of a handler's
//! client certificate. PEM files are read into the types rustls takes, so
//! serving and connecting use what `check-config` checked.

use std::path::{Path, PathBuf};

use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde::Deserialize;

use super::issues::ConfigIssue;

/// `[tls]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TlsSettings {
    /// A PEM bundle of extra trusted root certificates for every outbound
    /// TLS connection (handlers, replay, PostgreSQL, Redis, provider
    /// certificates), on top of the
    /// platform's. Default none.
    pub ca_file: Option<PathBuf>,
}

impl TlsSettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        match self.extra_roots() {
            Err(e) => vec![ConfigIssue::new("tls.ca_file", e)],
            Ok(_) => Vec::new(),
        }
    }

    /// The certificates of `ca_file`, each checked to be a usable trust
    /// anchor; empty without `ca_file`.
    pub fn extra_roots(&self) -> Result<Vec<CertificateDer<'static>>, String> {
        let Some(file) = &self.ca_file else {
            return Ok(Vec::new());
        };
        let certs = read_certificates(file)?;
        let mut store = rustls::RootCertStore::empty();
        for (i, cert) in certs.iter().enumerate() {
            store.add(cert.clone()).map_err(|e| {
                format!(
                    "{}: certificate {} is not a usable root: {e}",
                    file.display(),
                    i + 1
                )
            })?;
        }
        Ok(certs)
    }
}

/// A certificate chain and its private key, both PEM files (`[server.tls]`;
/// a handler's `client_cert_file` and `client_key_file`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TlsFiles {
    /// PEM certificate chain, the end-entity certificate first.
    pub cert_file: PathBuf,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1) of the first certificate.
    pub key_file: PathBuf,
}

/// A certificate chain and the private key that matches its first
/// certificate: what `rustls::ServerConfig::with_single_cert` and
/// `rustls::ClientConfig::with_client_auth_cert` take.
pub type CertifiedPair = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// Which file of a pair a problem is in.
enum Part {
    Cert,
    Key,
}

impl TlsFiles {
    /// Read both files and check that the key matches the certificate.
    /// The error names the file at fault and never holds key material.
    pub fn load(&self) -> Result<CertifiedPair, String> {
        self.try_load().map_err(|(_, reason)| reason)
    }

    /// The pair as rustls serves it (`[server.tls]`, re-read on SIGHUP);
    /// the error names the file at fault.
    pub fn certified_key(&self) -> Result<rustls::sign::CertifiedKey, String> {
        self.try_certified()
            .map(|(certified, _)| certified)
            .map_err(|(_, reason)| reason)
    }

    fn try_load(&self) -> Result<CertifiedPair, (Part, String)> {
        self.try_certified()
            .map(|(certified, key)| (certified.cert, key))
    }

    fn try_certified(
        &self,
    ) -> Result<(rustls::sign::CertifiedKey, PrivateKeyDer<'static>), (Part, String)> {
        let chain = read_certificates(&self.cert_file).map_err(|e| (Part::Cert, e))?;
        let key = read_private_key(&self.key_file).map_err(|e| (Part::Key, e))?;
        let unusable = |e: rustls::Error| {
            let file = self.key_file.display();
            (Part::Key, format!("{file}: unusable private key: {e}"))
        };
        let signing_key = rustls::crypto::ring::default_provider()
            .key_provider
            .load_private_key(key.clone_key())
            .map_err(unusable)?;
        let certified = rustls::sign::CertifiedKey::new(chain, signing_key);
        match certified.keys_match() {
            // Unknown: the key type cannot tell its public key; rustls's own
            // loader accepts that too.
            Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {
                Ok((certified, key))
            }
            Err(rustls::Error::InconsistentKeys(_)) => Err((
                Part::Key,
                format!(
                    "{}: the private key does not match the certificate in {}",
                    self.key_file.display(),
                    self.cert_file.display()
                ),
            )),
            Err(e) => Err((Part::Cert, format!("{}: {e}", self.cert_file.display()))),
        }
    }

    /// Issues for this pair, each under the key of the file at fault.
    pub(super) fn check(&self, cert_key: &str, key_key: &str) -> Vec<ConfigIssue> {
        match self.try_load() {
            Ok(_) => Vec::new(),
            Err((Part::Cert, reason)) => vec![ConfigIssue::new(cert_key, reason)],
            Err((Part::Key, reason)) => vec![ConfigIssue::new(key_key, reason)],
        }
    }
}

/// Every certificate in a PEM file; at least one.
fn read_certificates(file: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bytes = read(file)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {}", file.display(), pem_reason(&e)))?;
    if certs.is_empty() {
        return Err(format!("{}: no certificate in the file", file.display()));
    }
    Ok(certs)
}

/// The first private key in a PEM file.
fn read_private_key(file: &Path) -> Result<PrivateKeyDer<'static>, String> {
    let bytes = read(file)?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| match e {
        pem::Error::NoItemsFound => format!("{}: no private key in the file", file.display()),
        e => format!("{}: {}", file.display(), pem_reason(&e)),
    })
}

fn read(file: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(file).map_err(|e| format!("{}: cannot read: {e}", file.display()))
}

/// A PEM error in words of our own: the library's may quote a line of the
/// file, and a key file's lines are secret.
fn pem_reason(e: &pem::Error) -> &'static str {
    match e {
        pem::Error::MissingSectionEnd { .. } => "a PEM section has no END line",
        pem::Error::IllegalSectionStart { .. } => "a malformed PEM BEGIN line",
        pem::Error::Base64Decode(_) => "a PEM section is not valid base64",
        pem::Error::Io(_) => "cannot read the PEM data",
        pem::Error::NoItemsFound => "nothing of the expected kind in the file",
        pem::Error::SectionTooLarge => "a PEM section is too large",
        _ => "not valid PEM",
    }
}
