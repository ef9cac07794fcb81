//! A throwaway certificate authority made in the test, and the
//! certificates it signs, for TLS tests against real local peers.

use std::sync::Arc;

use rcgen::{BasicConstraints, Certificate, CertificateParams, DnType, IsCa, KeyPair, SanType};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// A CA and files holding its certificate, a `localhost` server
/// certificate and a client certificate it signed.
pub struct Pki {
    dir: tempfile::TempDir,
    pub ca: CertificateDer<'static>,
    ca_cert: Certificate,
    ca_key: KeyPair,
}

impl Pki {
    pub fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        // Names of their own: OpenSSL (redis-server, redis-cli) takes a
        // certificate whose issuer is its own subject for self-signed.
        params
            .distinguished_name
            .push(DnType::CommonName, "hookline test CA");
        let ca = params.self_signed(&ca_key).unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        for name in ["server", "client"] {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
            params.distinguished_name.push(DnType::CommonName, name);
            params
                .subject_alt_names
                .push(SanType::IpAddress("127.0.0.1".parse().unwrap()));
            let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
            std::fs::write(dir.path().join(format!("{name}.pem")), cert.pem()).unwrap();
            std::fs::write(dir.path().join(format!("{name}.key")), key.serialize_pem()).unwrap();
        }
        Pki {
            ca: ca.der().clone(),
            ca_cert: ca,
            ca_key,
            dir,
        }
    }

    /// A server config whose certificate, from this CA, names `hosts`
    /// (a stand-in for a provider's host, reached through
    /// [`super::connect_proxy`]).
    pub fn server_config_for(&self, hosts: &[&str]) -> rustls::ServerConfig {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name.push(DnType::CommonName, hosts[0]);
        let cert = params.signed_by(&key, &self.ca_cert, &self.ca_key).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone()],
                PrivateKeyDer::try_from(key.serialize_der()).unwrap(),
            )
            .unwrap()
    }

    pub fn path(&self, file: &str) -> String {
        self.dir.path().join(file).display().to_string()
    }

    /// A server config with the `localhost` certificate; requiring a client
    /// certificate from this CA when `client_auth`.
    pub fn server_config(&self, client_auth: bool) -> rustls::ServerConfig {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = CertificateDer::pem_file_iter(self.path("server.pem"))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(self.path("server.key")).unwrap();
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = if client_auth {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(self.ca.clone()).unwrap();
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .unwrap();
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        builder.with_single_cert(chain, key).unwrap()
    }
}
