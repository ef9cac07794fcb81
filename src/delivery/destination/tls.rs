//! TLS for broker connections, on the one stack hookline uses everywhere:
//! rustls with ring, trusting the platform's roots plus `[tls] ca_file`,
//! presenting the handler's client certificate when it has one.

use std::sync::Arc;

use crate::config::{Handler, TlsSettings};

/// The rustls client configuration for `handler`'s broker.
pub fn client_config(handler: &Handler, tls: &TlsSettings) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    // A platform store that cannot be read leaves the extra roots: a
    // private broker's CA is usually one of those.
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    for cert in tls.extra_roots()? {
        roots.add(cert).map_err(|e| format!("tls.ca_file: {e}"))?;
    }
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots);
    match handler.client_tls() {
        Some(files) => {
            let (chain, key) = files.load()?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("{}: {e}", files.cert_file.display()))
        }
        None => Ok(builder.with_no_client_auth()),
    }
}
