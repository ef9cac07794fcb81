//! [`Application`]: one hookline process, the receiver and the delivery
//! workers over one store, run until a shutdown token it is handed is
//! cancelled (`main` cancels it on SIGINT/SIGTERM; tests, when they are
//! done). With `[server.tls]`, SIGHUP reloads the certificate.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::{ListenAddr, Settings, StoreSettings};
use crate::delivery::worker::Workers;
use crate::http::{AppState, Fetcher};
use crate::metrics::Metrics;
use crate::store::{own_embedded, EmbeddedOwner, Store, VerdictLog};

/// How long a stopping receiver waits for the verdict log's last batch.
const VERDICT_FLUSH: Duration = Duration::from_secs(5);

/// How long the verdict log keeps an entry: the longest dedup window, so
/// the log covers every request the dedup record still answers for.
fn verdict_retention(settings: &Settings) -> Duration {
    settings
        .providers
        .values()
        .map(|p| p.window)
        .fold(settings.dedup.window, Duration::max)
}

/// What a `serve` process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// The receiver and the delivery workers.
    All,
    /// Only the HTTP receiver.
    Receiver,
    /// Only the delivery workers.
    Workers,
}

impl Role {
    /// The parts of an embedded store's file this role owns.
    fn parts(self) -> &'static [&'static str] {
        match self {
            Role::All => &["receiver", "workers"],
            Role::Receiver => &["receiver"],
            Role::Workers => &["workers"],
        }
    }
}

/// A bound, ready-to-run hookline process. Nothing runs until
/// [`Application::run`].
pub struct Application {
    settings: Settings,
    store: Store,
    listener: Option<TcpListener>,
    /// `server.ops_listen`'s listener: the operators' routes.
    ops: Option<TcpListener>,
    role: Role,
    /// The embedded store's file, owned by this process for the parts it
    /// runs; released when the process ends.
    _owner: Option<EmbeddedOwner>,
    /// The span exporter's count of dropped spans, for `/metrics`.
    spans_dropped: Option<prometheus::IntCounter>,
}

impl Application {
    /// Connect the stores and bind `server.listen` (`127.0.0.1:0` picks a
    /// port), and `server.ops_listen` if set, unless the role runs no
    /// receiver.
    pub async fn build(settings: Settings, role: Role) -> anyhow::Result<Self> {
        // Before the file is opened: a second `serve` refuses here.
        let owner = match &settings.store {
            StoreSettings::Embedded(s) => Some(own_embedded(&s.path, role.parts())?),
            StoreSettings::Redis(_) => None,
        };
        let store = Store::connect(&settings.store).await?;
        let bind = |addr: &ListenAddr, key: &str| {
            crate::http::listen::bind(addr.as_str(), settings.server.backlog)
                .map_err(|e| anyhow::anyhow!("cannot listen on {addr} (server.{key}): {e}"))
        };
        let listener = match role {
            Role::Workers => None,
            _ => Some(bind(&settings.server.listen, "listen")?),
        };
        // A workers node serves `/metrics` (and `/admin`, `/console`) on
        // `ops_listen` too, and no webhook.
        let ops = settings
            .server
            .ops_listen
            .as_ref()
            .map(|addr| bind(addr, "ops_listen"))
            .transpose()?;
        let mut app = Self::with_role(settings, store, listener, role);
        app.ops = ops;
        app._owner = owner;
        Ok(app)
    }

    /// Receiver and workers on `listener` (tests).
    pub fn with_listener(settings: Settings, store: Store, listener: TcpListener) -> Self {
        Self::with_role(settings, store, Some(listener), Role::All)
    }

    pub fn with_role(
        settings: Settings,
        store: Store,
        listener: Option<TcpListener>,
        role: Role,
    ) -> Self {
        // A workers-only process listens nowhere, whatever it is handed.
        let listener = listener.filter(|_| role != Role::Workers);
        // The streams non-critical deliveries may wait in, if they do.
        let store = store.with_lanes(|| crate::store::stream_lanes(&settings));
        Application {
            settings,
            store,
            listener,
            ops: None,
            role,
            _owner: None,
            spans_dropped: None,
        }
    }

    /// Export the span exporter's count of dropped spans in `/metrics`.
    pub fn with_spans_dropped(mut self, counter: prometheus::IntCounter) -> Self {
        self.spans_dropped = Some(counter);
        self
    }

    /// Serve the operators' routes on `ops` only (tests; `build` binds
    /// `server.ops_listen`).
    pub fn with_ops_listener(mut self, ops: TcpListener) -> Self {
        self.ops = Some(ops);
        self
    }

    /// The receiver's port; `None` for a workers-only process.
    pub fn port(&self) -> Option<u16> {
        self.listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port())
    }

    /// The operators' port (`server.ops_listen`), if there is one.
    pub fn ops_port(&self) -> Option<u16> {
        self.ops
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port())
    }

    /// Run until `shutdown` is cancelled: then the receiver stops taking
    /// connections and drains its requests (up to
    /// `server.shutdown_timeout`), then the workers finish the attempts in
    /// flight. Workers stop after the receiver, because an `ack =
    /// "handlers"` request in flight waits on them.
    pub async fn run(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let Application {
            settings,
            store,
            listener,
            ops,
            role,
            _owner,
            spans_dropped,
        } = self;
        let mut metrics = Metrics::new();
        if let Some(counter) = spans_dropped {
            metrics.adopt(counter);
        }
        let metrics = Arc::new(metrics);
        let fetcher = Fetcher::new(&settings.tls).map_err(std::io::Error::other)?;
        // The workers' own token: cancelled once the receiver has drained.
        let stop_workers = CancellationToken::new();
        let workers = match role {
            Role::Receiver => None,
            _ => Some(
                Workers::new(
                    store.clone(),
                    settings.handlers.clone(),
                    settings.delivery,
                    &settings.tls,
                    metrics.clone(),
                )
                .map_err(std::io::Error::other)?,
            ),
        };
        let alerts = crate::alerts::Alerts::new(
            &settings,
            store.clone(),
            metrics.clone(),
            workers.is_some(),
        )
        .map_err(std::io::Error::other)?
        .map(|a| tokio::spawn(a.run(stop_workers.clone())));
        let wake = workers.as_ref().map(Workers::waker);
        let workers = workers.map(|w| tokio::spawn(w.run(stop_workers.clone())));
        let purge = tokio::spawn(purge_loop(store.clone()));
        // SIGHUP reloads the handlers' filter files and scripts.
        let reload = crate::reload::on_sighup(Arc::new(settings.handlers.clone()))?;
        let grace = settings.server.shutdown_timeout;
        let retention = verdict_retention(&settings);
        let mut state = AppState::new(Arc::new(settings), store, wake, metrics, fetcher);
        let result = match listener {
            Some(listener) => {
                // The verdict log has one reader, the console, which needs
                // `admin.token`: without one, nothing is written.
                let writer = state.settings.admin.token.is_some().then(|| {
                    let (log, writer) = VerdictLog::start(
                        state.store.clone(),
                        retention,
                        state.metrics.verdict_log_dropped.clone(),
                    );
                    state.ingest = state.ingest.clone().with_verdict_log(log);
                    writer
                });
                let result = serve(state, listener, ops, grace, &shutdown).await;
                // The receiver's state is gone: the writer writes what is
                // queued, then ends.
                if let Some(writer) = writer {
                    if tokio::time::timeout(VERDICT_FLUSH, writer).await.is_err() {
                        tracing::warn!("verdict log not flushed in time; its queue is dropped");
                    }
                }
                result
            }
            // A workers node with `server.ops_listen`: the operators'
            // routes only (its /metrics holds the delivery and circuit
            // series no receiver has). The same socket is both listeners,
            // so every request on it is judged an operators' one.
            None => match ops {
                Some(ops) => serve(state, ops.try_clone()?, Some(ops), grace, &shutdown).await,
                None => {
                    shutdown.cancelled().await;
                    Ok(())
                }
            },
        };
        stop_workers.cancel();
        if let Some(workers) = workers {
            let _ = workers.await;
        }
        if let Some(alerts) = alerts {
            let _ = alerts.await;
        }
        purge.abort();
        reload.abort();
        result
    }
}

/// The receiver, until `shutdown`; then a graceful stop.
async fn serve(
    state: AppState,
    listener: TcpListener,
    ops: Option<TcpListener>,
    grace: Duration,
    shutdown: &CancellationToken,
) -> std::io::Result<()> {
    let (server, cert) = crate::http::serve(state, listener, ops, grace)?;
    // `[server.tls]`: SIGHUP re-reads the certificate and key.
    let reload = match cert {
        Some(cert) => Some(cert.reload_on_sighup()?),
        None => None,
    };
    let handle = server.handle();
    let stopper = shutdown.clone();
    // Stops the server when told to; the server's own future ends then.
    let stop = tokio::spawn(async move {
        stopper.cancelled().await;
        handle.stop(true).await;
    });
    let result = server.await;
    // The server may also end on its own (an accept error): don't leave
    // the stopper waiting.
    stop.abort();
    if let Some(reload) = reload {
        reload.abort();
    }
    result
}

/// A token cancelled on SIGINT or SIGTERM, for `main`.
pub fn shutdown_on_signals() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down");
        cancel.cancel();
    });
    token
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler installs");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// Expired dedup state is dropped once a minute (a no-op where the store
/// expires keys itself).
async fn purge_loop(store: Store) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tick.tick().await;
        match store.purge_expired().await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(removed = n, "expired dedup keys purged"),
            Err(e) => tracing::warn!(error = %e.chain(), "purge failed"),
        }
    }
}
