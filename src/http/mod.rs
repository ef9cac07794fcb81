//! The HTTP edge: every route, and the one place each answer is decided.
//!
//! - `webhook`: `/webhooks/{provider}[/{tenant}]`, every method: the
//!   provider and tenant, the rate limit, the body, verification, then
//!   `receive` (an event: claim, record, answer) or `handshake` (a
//!   provider's handshake, or 405 with `Allow`);
//! - `body`, `content_encoding`, `budget`, `rate`, `external_url`: what
//!   the webhook route needs before verification (capped body reads, a
//!   gzip body decoded under the same caps, the buffer cap, ingest rate
//!   limits, the URL the provider called);
//! - `fetch`, `fetch_cache`, `fetch_token`: what a request makes hookline
//!   fetch (a provider's signing certificate, cached, failures too, with
//!   bounds; the application token a key endpoint wants; SNS's
//!   `SubscribeURL`);
//! - `ops`: `/healthz`, `/readyz`, `/metrics` and every unknown route;
//! - `admin`: `/admin`, when `admin.token` is set (and the web console,
//!   [`crate::console`], under `/console`); `auth_failures`, wrong tokens
//!   counted per client ([`peer`]);
//! - `listen`, `listeners`: binding a listener with its backlog; with
//!   `server.ops_listen`, which listener serves which routes;
//! - `problem`: [`ApiError`], every answer that is not a success.

pub(crate) mod admin;
pub mod auth_failures;
mod body;
pub mod budget;
pub mod content_encoding;
mod external_url;
pub mod fetch;
pub mod fetch_cache;
pub mod fetch_token;
mod handshake;
pub mod listen;
mod listeners;
mod ops;
pub mod peer;
pub mod problem;
pub mod rate;
mod receive;
pub mod tls_reload;
mod webhook;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header::HeaderMap;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use tokio::sync::Notify;

pub use self::budget::BufferBudget;
pub use self::fetch::Fetcher;
pub use self::problem::{reason_phrase, ApiError};
pub use self::rate::RateLimits;
pub use self::tls_reload::ReloadingCert;
use crate::capture::CaptureWriter;
use crate::config::Settings;
use crate::metrics::Metrics;
use crate::provider::HeaderLookup;
use crate::store::delivery::DeliveryFilter;
use crate::store::{Store, StoreError};

impl HeaderLookup for HeaderMap {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Everything a request handler needs; built once per process.
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    /// What decides each verified event (claim, record, hold).
    pub ingest: crate::ingest::Ingest,
    pub capture: Option<CaptureWriter>,
    /// Wakes this process's delivery workers when deliveries were recorded.
    pub wake: Option<Arc<Notify>>,
    pub metrics: Arc<Metrics>,
    /// Request bodies held at once, capped by `server.max_buffered_bytes`.
    pub budget: Arc<BufferBudget>,
    /// One bucket per provider+tenant with a `rate_limit`.
    pub rates: RateLimits,
    /// The web console's sign-in sessions.
    pub console: crate::console::Sessions,
    /// Wrong admin tokens per client (console sign-in, admin API).
    pub auth_failures: auth_failures::AuthFailures,
    /// Fetches signing certificates (cached) and confirmation URLs.
    pub fetcher: Fetcher,
    /// The operators' listener (`server.ops_listen`), when there is one:
    /// the operators' routes are served there only.
    pub ops_addr: Option<SocketAddr>,
}

impl AppState {
    pub fn new(
        settings: Arc<Settings>,
        store: Store,
        wake: Option<Arc<Notify>>,
        metrics: Arc<Metrics>,
        fetcher: Fetcher,
    ) -> Self {
        AppState {
            capture: settings
                .capture
                .as_ref()
                .map(|c| CaptureWriter::new(c.dir.clone())),
            budget: BufferBudget::new(
                settings.server.max_buffered_bytes,
                settings.server.buffered_bytes_per_peer(),
            ),
            rates: RateLimits::new(&settings),
            console: crate::console::Sessions::new(settings.admin.token.as_ref()),
            auth_failures: Default::default(),
            fetcher,
            ingest: crate::ingest::Ingest::new(settings.clone(), store.clone(), metrics.clone()),
            settings,
            store,
            wake,
            metrics,
            ops_addr: None,
        }
    }

    /// The one place a store failure met while answering a request is
    /// logged (with its causes) and counted. Input errors never get here:
    /// they are the caller's, not the store's.
    pub(crate) fn store_failed(&self, e: &StoreError) {
        self.metrics.store_errors.with_label_values(&[e.op()]).inc();
        let store = self.store.failed(e);
        tracing::error!(op = e.op(), store, error = %e.chain(), "store failure");
    }

    /// Requeue the deliveries `filter` names (re-delivery, dead-letter
    /// replay) and wake this process's workers for them; how many.
    pub(crate) async fn requeue(&self, filter: &DeliveryFilter) -> Result<u64, ApiError> {
        let n = self
            .store
            .with_records("requeue", |r| r.requeue(filter))
            .await
            .map_err(ApiError::lookup)?;
        if n > 0 {
            if let Some(wake) = &self.wake {
                wake.notify_one();
            }
        }
        Ok(n)
    }
}

/// Every route of the service.
pub fn routes(cfg: &mut web::ServiceConfig) {
    // `/webhooks/{provider}[/{tenant}]`, split by the handler.
    cfg.service(web::scope("/webhooks").default_service(web::to(webhook::handle)))
        .route("/healthz", web::get().to(ops::healthz))
        .route("/readyz", web::get().to(ops::readyz))
        .route("/metrics", web::get().to(ops::metrics))
        .service(admin::scope())
        .service(crate::console::scope())
        .default_service(web::to(ops::not_found));
}

/// Serve [`routes`] on `listener` (and the operators' routes on `ops`
/// instead, when given: [`listeners`]) until
/// [`actix_web::dev::ServerHandle::stop`]: no signal handling of its own,
/// since the caller owns shutdown ([`crate::app::Application::run`]).
/// In-flight requests get `grace` to finish. With `[server.tls]`, both
/// listeners serve HTTPS, and the certificate served is returned for the
/// caller to reload ([`ReloadingCert::reload_on_sighup`]).
pub fn serve(
    mut state: AppState,
    listener: TcpListener,
    ops: Option<TcpListener>,
    grace: Duration,
) -> std::io::Result<(actix_web::dev::Server, Option<Arc<ReloadingCert>>)> {
    let cert = match &state.settings.server.tls {
        Some(files) => Some(ReloadingCert::load(files).map_err(std::io::Error::other)?),
        None => None,
    };
    state.ops_addr = ops.as_ref().map(TcpListener::local_addr).transpose()?;
    let limits = &state.settings.server;
    // actix counts connections and handshakes per worker thread; the
    // settings are for the whole listener.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_worker = |total: usize| total.div_ceil(workers).max(1);
    let (connections, handshakes) = (
        per_worker(limits.max_connections),
        per_worker(limits.max_tls_handshakes),
    );
    let handshake_timeout = limits.tls_handshake_timeout;
    let state = web::Data::new(state);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .wrap(from_fn(listeners::split))
            .configure(routes)
    })
    .workers(workers)
    .max_connections(connections)
    // Connections that never finish their handshake hold a slot each
    // until the timeout: enough slots, and a short timeout, keep a flood
    // of them from queueing real clients behind it (actix's defaults, 256
    // per worker and 3 s, do not).
    .max_connection_rate(handshakes)
    .tls_handshake_timeout(handshake_timeout)
    .disable_signals()
    .shutdown_timeout(grace.as_secs());
    let server = match &cert {
        Some(cert) => {
            let tls = server_tls(cert.clone())?;
            let server = server.listen_rustls_0_23(listener, tls.clone())?;
            match ops {
                Some(ops) => server.listen_rustls_0_23(ops, tls)?,
                None => server,
            }
        }
        None => {
            let server = server.listen(listener)?;
            match ops {
                Some(ops) => server.listen(ops)?,
                None => server,
            }
        }
    };
    Ok((server.run(), cert))
}

/// `[server.tls]` as rustls takes it: HTTP/2 and HTTP/1.1 offered by ALPN,
/// the certificate asked of `cert` at each handshake.
fn server_tls(cert: Arc<ReloadingCert>) -> std::io::Result<rustls::ServerConfig> {
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(std::io::Error::other)?
    .with_no_client_auth()
    .with_cert_resolver(cert);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
