//! SIGHUP: every handler's `filter_file` is read again and its transform
//! script compiled again, so a fix applies from the next event or attempt
//! without a restart. What fails to load is logged and the previous one
//! stays. (`[server.tls]` has its own reload, `http/tls_reload.rs`.)

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::Handler;
use crate::ids::HandlerName;

/// Reload on every SIGHUP, logging the outcome, until the task is aborted.
/// Without unix signals, a task that does nothing.
pub fn on_sighup(
    handlers: Arc<BTreeMap<HandlerName, Arc<Handler>>>,
) -> std::io::Result<tokio::task::JoinHandle<()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hup = signal(SignalKind::hangup())?;
        Ok(tokio::spawn(async move {
            while hup.recv().await.is_some() {
                reload(&handlers);
            }
        }))
    }
    #[cfg(not(unix))]
    Ok(tokio::spawn(async {}))
}

/// Reload every handler's filter file and script once.
pub fn reload(handlers: &BTreeMap<HandlerName, Arc<Handler>>) {
    for (name, h) in handlers {
        if let Some(f) = &h.filter {
            match f.reload() {
                Ok(new) if new.is_empty() => {
                    tracing::info!(handler = %name, "SIGHUP: filter reloaded")
                }
                Ok(new) => tracing::warn!(
                    handler = %name, headers = ?new,
                    "SIGHUP: filter reloaded; the headers it newly reads are kept from events only after a restart"
                ),
                Err(error) => tracing::error!(
                    handler = %name, %error,
                    "SIGHUP: filter not reloaded; the previous one stays"
                ),
            }
        }
        if let Some(t) = &h.transform {
            match t.reload() {
                Ok(()) => tracing::info!(handler = %name, "SIGHUP: transform reloaded"),
                Err(error) => tracing::error!(
                    handler = %name, %error,
                    "SIGHUP: transform not reloaded; the previous script stays"
                ),
            }
        }
    }
}
