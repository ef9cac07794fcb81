//! `[server.tls]` with a certificate that SIGHUP re-reads: rustls asks
//! [`ReloadingCert`] for the certificate at each handshake, and a reload
//! swaps what it answers. Connections already open keep the certificate
//! they shook hands with (nothing is dropped); a new connection gets the
//! new one. A pair that fails to load (unreadable, not PEM, a key that does
//! not match) is logged and the previous pair kept.

use std::sync::{Arc, RwLock};

use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::config::TlsFiles;

/// The certificate and key served, re-read from their files on demand.
pub struct ReloadingCert {
    files: TlsFiles,
    current: RwLock<Arc<CertifiedKey>>,
}

impl std::fmt::Debug for ReloadingCert {
    // The key stays out of any debug output.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReloadingCert")
            .field("cert_file", &self.files.cert_file)
            .field("key_file", &self.files.key_file)
            .finish_non_exhaustive()
    }
}

impl ReloadingCert {
    /// Read the pair once; an error names the file at fault.
    pub fn load(files: &TlsFiles) -> Result<Arc<Self>, String> {
        let first = files.certified_key()?;
        Ok(Arc::new(ReloadingCert {
            files: files.clone(),
            current: RwLock::new(Arc::new(first)),
        }))
    }

    /// Read the files again and serve them from the next handshake on; on
    /// error the pair served so far stays.
    pub fn reload(&self) -> Result<(), String> {
        let next = Arc::new(self.files.certified_key()?);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = next;
        Ok(())
    }

    fn current(&self) -> Arc<CertifiedKey> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Reload on every SIGHUP, logging the outcome, until the task is
    /// aborted. Without unix signals, a task that does nothing.
    pub fn reload_on_sighup(self: Arc<Self>) -> std::io::Result<tokio::task::JoinHandle<()>> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let mut hup = signal(SignalKind::hangup())?;
            Ok(tokio::spawn(async move {
                while hup.recv().await.is_some() {
                    match self.reload() {
                        Ok(()) => tracing::info!(
                            cert_file = %self.files.cert_file.display(),
                            "SIGHUP: TLS certificate reloaded"
                        ),
                        Err(error) => tracing::error!(
                            %error,
                            "SIGHUP: TLS certificate not reloaded; still serving the previous one"
                        ),
                    }
                }
            }))
        }
        #[cfg(not(unix))]
        Ok(tokio::spawn(async {}))
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}
