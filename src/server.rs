//! The HTTP surface: `POST /webhooks/{provider}[/{tenant}]`, `/healthz`,
//! `/readyz`. The answer to the provider is decided here, in one place
//! ([`ApiError`] and [`receive`]): 2xx only once the event is recorded,
//! 409/503 with `Retry-After` when a retry can succeed, 4xx only when it never
//! can.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header::{self, HeaderMap};
use actix_web::http::StatusCode;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer, ResponseError};
use bytes::BytesMut;
use futures::StreamExt;
use serde::Serialize;
use tracing::Instrument;

use tokio_util::sync::CancellationToken;

use crate::capture::CaptureWriter;
use crate::config::{AckMode, Settings, DEFAULT_TENANT};
use crate::delivery::worker::Workers;
use crate::metrics::Metrics;
use crate::provider::{
    verify_request, HandshakeAnswer, HeaderLookup, Rejection, TenantState, UntrustedRequest,
    Verdict, VerifiedWebhook,
};
use crate::store::delivery::{DeliveryFilter, DeliveryState};
use crate::store::{ClaimOutcome, CommitOutcome, RecordOutcome, Store, StoreError};

/// How often `ack = "handlers"` looks at the deliveries while it waits.
const ACK_POLL: Duration = Duration::from_millis(20);

/// How long a provider is told to wait when a store is unavailable.
const STORE_RETRY_AFTER: Duration = Duration::from_secs(5);

impl HeaderLookup for HeaderMap {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Everything a request handler needs; built once by [`Application::build`].
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub capture: Option<CaptureWriter>,
    /// Wakes this process's delivery workers when deliveries were recorded.
    pub wake: Option<Arc<tokio::sync::Notify>>,
    pub metrics: Arc<Metrics>,
}

/// Every answer other than success, with its status and `code`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no provider named {0:?} is configured")]
    UnknownProvider(String),
    #[error("provider {provider:?} has no tenant named {tenant:?}")]
    UnknownTenant { provider: String, tenant: String },
    #[error("the body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    #[error("the request body could not be read")]
    BodyRead,
    #[error("{0}")]
    Rejected(#[from] Rejection),
    #[error("this event is being processed by another request")]
    InProgress { retry_after: Duration },
    #[error("this event ID was already received with a different body")]
    Conflict,
    #[error("a store is unavailable; retry later")]
    StoreUnavailable(#[source] StoreError),
    /// The store cannot hold the request's data (PostgreSQL refuses a NUL
    /// character in text): a retry sends the same bytes, so it is final.
    #[error("the event holds data that cannot be stored (such as a NUL character)")]
    Unstorable(#[source] StoreError),
    #[error("not every handler acknowledged the event in time; retry later")]
    NotAcknowledged,
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::UnknownProvider(_) => "unknown_provider",
            ApiError::UnknownTenant { .. } => "unknown_tenant",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::BodyRead => "malformed_payload",
            ApiError::Rejected(r) => r.code(),
            ApiError::Unstorable(_) => "malformed_payload",
            ApiError::InProgress { .. } => "in_progress",
            ApiError::Conflict => "event_id_conflict",
            ApiError::StoreUnavailable(_) => "store_unavailable",
            ApiError::NotAcknowledged => "not_acknowledged",
        }
    }

    fn title(&self) -> &'static str {
        match self.status_code() {
            StatusCode::NOT_FOUND => "Not Found",
            StatusCode::PAYLOAD_TOO_LARGE => "Payload Too Large",
            StatusCode::UNAUTHORIZED => "Unauthorized",
            StatusCode::BAD_REQUEST => "Bad Request",
            StatusCode::METHOD_NOT_ALLOWED => "Method Not Allowed",
            StatusCode::CONFLICT => "Conflict",
            StatusCode::UNPROCESSABLE_ENTITY => "Unprocessable Content",
            _ => "Service Unavailable",
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::InProgress { retry_after } => Some(*retry_after),
            ApiError::StoreUnavailable(_) | ApiError::NotAcknowledged => Some(STORE_RETRY_AFTER),
            _ => None,
        }
    }
}

#[derive(Serialize)]
pub(crate) struct Problem<'a> {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: &'a str,
    pub status: u16,
    pub code: &'a str,
    pub detail: String,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::UnknownProvider(_) | ApiError::UnknownTenant { .. } => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyRead | ApiError::Unstorable(_) => StatusCode::BAD_REQUEST,
            ApiError::Rejected(r) => {
                StatusCode::from_u16(r.status()).unwrap_or(StatusCode::BAD_REQUEST)
            }
            ApiError::InProgress { .. } => StatusCode::CONFLICT,
            ApiError::Conflict => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::StoreUnavailable(_) | ApiError::NotAcknowledged => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let mut res = HttpResponse::build(status);
        res.content_type("application/problem+json");
        if let Some(after) = self.retry_after() {
            // Whole seconds, rounded up, at least one.
            let secs = after.as_millis().div_ceil(1000).max(1);
            res.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        res.json(Problem {
            kind: format!("urn:hookline:problem:{}", self.code()),
            title: self.title(),
            status: status.as_u16(),
            code: self.code(),
            detail: self.to_string(),
        })
    }
}

/// Input the store refuses is the request's fault (400, final); anything
/// else is the store's (503, retried). Logged once, by [`receive`].
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        if e.is_input() {
            ApiError::Unstorable(e)
        } else {
            ApiError::StoreUnavailable(e)
        }
    }
}

#[derive(Serialize)]
struct Accepted<'a> {
    status: &'a str,
    provider: &'a str,
    tenant: &'a str,
    event_id: &'a str,
}

/// What a request that was not refused gets.
enum Outcome {
    /// An event, recorded (or a duplicate of one).
    Event {
        ev: VerifiedWebhook,
        duplicate: bool,
    },
    /// A provider handshake: answered, never recorded.
    Handshake(HandshakeAnswer),
}

fn handshake_response(answer: HandshakeAnswer) -> HttpResponse {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut res = HttpResponse::build(status);
    if let Some(content_type) = answer.content_type {
        res.content_type(content_type);
    }
    for (name, value) in answer.headers {
        res.insert_header((name, value));
    }
    res.body(answer.body)
}

fn success(ev: &VerifiedWebhook, duplicate: bool) -> HttpResponse {
    let mut res = HttpResponse::Ok();
    if duplicate {
        res.insert_header(("Webhook-Duplicate", "true"));
    }
    res.json(Accepted {
        status: if duplicate { "duplicate" } else { "accepted" },
        provider: ev.provider_name(),
        tenant: ev.tenant(),
        event_id: ev.event_id(),
    })
}

/// Read the body, refusing before reading it whole when it is too large.
async fn read_capped(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: usize,
) -> Result<bytes::Bytes, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let mut body = BytesMut::with_capacity(declared.unwrap_or(8 * 1024).min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::BodyRead)?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `POST /webhooks/{provider}[/{tenant}]`.
async fn receive(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let provider_name = req.match_info().get("provider").unwrap_or_default();
    let tenant_name = req.match_info().get("tenant").unwrap_or(DEFAULT_TENANT);
    let span = tracing::info_span!(
        "webhook",
        provider = %provider_name,
        tenant = %tenant_name,
        event_id = tracing::field::Empty,
        outcome = tracing::field::Empty,
    );
    let result = handle(&req, payload, &state, provider_name, tenant_name)
        .instrument(span.clone())
        .await;
    let outcome = match &result {
        Ok(Outcome::Event { ev, duplicate }) => {
            span.record("event_id", ev.event_id());
            if *duplicate {
                "duplicate"
            } else {
                "accepted"
            }
        }
        Ok(Outcome::Handshake(_)) => "handshake",
        Err(e) => e.code(),
    };
    span.record("outcome", outcome);
    // The one place a request's store failure is logged, with its causes.
    if let Err(ApiError::StoreUnavailable(e)) = &result {
        span.in_scope(|| tracing::error!(op = e.op(), error = %e.chain(), "store failure"));
    }
    // Labels come from configured names only: an attacker's path must not
    // create new time series.
    let (p, t) = match &result {
        Err(ApiError::UnknownProvider(_)) => ("_unknown", "_unknown"),
        Err(ApiError::UnknownTenant { .. }) => (provider_name, "_unknown"),
        _ => (provider_name, tenant_name),
    };
    state
        .metrics
        .requests
        .with_label_values(&[p, t, outcome])
        .inc();
    if let Err(ApiError::Rejected(Rejection::Verify(_))) = &result {
        state
            .metrics
            .verification_failures
            .with_label_values(&[p, outcome])
            .inc();
    }
    span.in_scope(|| tracing::info!("answered"));
    result.map(|outcome| match outcome {
        Outcome::Event { ev, duplicate } => success(&ev, duplicate),
        Outcome::Handshake(answer) => handshake_response(answer),
    })
}

async fn handle(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    provider_name: &str,
    tenant_name: &str,
) -> Result<Outcome, ApiError> {
    let settings = &state.settings;
    let provider = settings
        .providers
        .get(provider_name)
        .ok_or_else(|| ApiError::UnknownProvider(provider_name.to_owned()))?;
    let tenant = provider
        .tenants
        .get(tenant_name)
        .ok_or_else(|| ApiError::UnknownTenant {
            provider: provider_name.to_owned(),
            tenant: tenant_name.to_owned(),
        })?;
    let body = read_capped(req, payload, settings.server.max_body_bytes).await?;
    // Only URL-signing schemes need the external URL; don't build it per
    // request otherwise. It is the request's own scheme and host until
    // `server.public_url` exists.
    let url = if provider.def.needs_url() {
        let conn = req.connection_info();
        format!("{}://{}{}", conn.scheme(), conn.host(), req.uri())
    } else {
        String::new()
    };
    let untrusted = UntrustedRequest {
        method: req.method().as_str(),
        url: &url,
        query: req.query_string(),
        headers: req.headers(),
        body,
        received_at: unix_now(),
    };
    let ev = match verify_request(provider, tenant, &untrusted, &TenantState::default())? {
        Verdict::Event(ev) => ev,
        // A handshake is never an event: no capture, dedup key, row or
        // delivery.
        Verdict::Handshake(answer) => return Ok(Outcome::Handshake(answer)),
    };

    if let Some(capture) = &state.capture {
        capture.write(req, &ev).await;
    }

    let store = &state.store;
    let claim = store.claim(&ev, settings.dedup.in_progress_ttl).await?;
    let dedup_outcome = match claim {
        ClaimOutcome::Owned(_) => "claimed",
        ClaimOutcome::Duplicate => "duplicate",
        ClaimOutcome::InProgress { .. } => "in_progress",
        ClaimOutcome::Conflict => "conflict",
    };
    state
        .metrics
        .dedup
        .with_label_values(&[provider_name, dedup_outcome])
        .inc();
    let owner = match claim {
        ClaimOutcome::Owned(owner) => owner,
        ClaimOutcome::Duplicate => {
            return Ok(Outcome::Event {
                ev,
                duplicate: true,
            })
        }
        ClaimOutcome::InProgress { retry_after } => {
            return Err(ApiError::InProgress { retry_after })
        }
        ClaimOutcome::Conflict => return conflict(store, &ev).await,
    };
    let handlers = crate::config::matching_handlers(
        &settings.handlers,
        ev.provider_name(),
        ev.tenant(),
        ev.event_type(),
    );
    if provider.ack == AckMode::Handlers && !handlers.is_empty() {
        if let Err(e) = wait_for_acks(state, &ev, &handlers, provider.ack_timeout).await {
            // Not every handler acknowledged in time: give the key back so
            // the provider's retry is accepted; the deliveries stay queued,
            // and one already acknowledged is not made again. They keep
            // their body's digest, so a retry with another body is a
            // conflict, not an acceptance.
            if let Err(release) = store.release(&ev, &owner).await {
                tracing::warn!(error = %release.chain(), "could not release the claim");
            }
            return match e {
                ApiError::Conflict => conflict(store, &ev).await,
                e => Err(e),
            };
        }
    }
    match store.commit(&ev, &owner, provider.window, &handlers).await {
        Ok(CommitOutcome::Accepted) => {
            if let (false, Some(wake)) = (handlers.is_empty(), &state.wake) {
                wake.notify_one();
            }
            Ok(Outcome::Event {
                ev,
                duplicate: false,
            })
        }
        Ok(CommitOutcome::Duplicate) => Ok(Outcome::Event {
            ev,
            duplicate: true,
        }),
        Ok(CommitOutcome::Conflict) => conflict(store, &ev).await,
        // Our claim expired and another request owns the key: it will
        // answer for the event; this copy is retried.
        Ok(CommitOutcome::NotOwner) => Err(ApiError::InProgress {
            retry_after: Duration::from_secs(1),
        }),
        Err(e) => {
            // Give the key back so the provider's retry is not blocked for
            // in_progress_ttl; if that fails too, the TTL frees it.
            if let Err(release) = store.release(&ev, &owner).await {
                tracing::warn!(error = %release.chain(), "could not release the claim");
            }
            Err(e.into())
        }
    }
}

/// `ack = "handlers"`: record the deliveries, wake the workers, and wait
/// until every one of them is acknowledged, or the deadline passes. The
/// event's deliveries already carrying another body (an earlier request
/// under this ID, whose claim was released) is a [`ApiError::Conflict`].
async fn wait_for_acks(
    state: &AppState,
    ev: &VerifiedWebhook,
    handlers: &[&str],
    deadline: Duration,
) -> Result<(), ApiError> {
    if state.store.record_pending(ev, handlers).await? == RecordOutcome::Conflict {
        return Err(ApiError::Conflict);
    }
    if let Some(wake) = &state.wake {
        wake.notify_one();
    }
    let filter = DeliveryFilter {
        provider: Some(ev.provider_name().to_owned()),
        tenant: Some(ev.tenant().to_owned()),
        event_id: Some(ev.event_id().to_owned()),
        ..Default::default()
    };
    let until = tokio::time::Instant::now() + deadline;
    loop {
        let rows = state.store.list_deliveries(&filter).await?;
        let acknowledged = handlers.iter().all(|h| {
            rows.iter()
                .any(|d| d.handler == *h && d.state == DeliveryState::Delivered)
        });
        if acknowledged {
            return Ok(());
        }
        if tokio::time::Instant::now() >= until {
            return Err(ApiError::NotAcknowledged);
        }
        tokio::time::sleep(ACK_POLL).await;
    }
}

/// Same ID, different body: keep the request aside and answer 422; if it
/// cannot be kept, answer 503 so the provider tries again.
async fn conflict(store: &Store, ev: &VerifiedWebhook) -> Result<Outcome, ApiError> {
    store.quarantine(ev).await?;
    tracing::warn!(
        event_id = ev.event_id(),
        "event ID reused with a different body; quarantined"
    );
    Err(ApiError::Conflict)
}

async fn metrics_text(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render(&state.store).await)
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    match state.store.ping().await {
        Ok(()) => HttpResponse::Ok().json(serde_json::json!({"status": "ready"})),
        Err(e) => {
            tracing::warn!(error = %e.chain(), "not ready");
            HttpResponse::ServiceUnavailable()
                .insert_header((header::RETRY_AFTER, STORE_RETRY_AFTER.as_secs().to_string()))
                .json(serde_json::json!({"status": "unavailable"}))
        }
    }
}

/// Anything else under the service: a problem document, not an HTML page.
pub(crate) async fn not_found(req: HttpRequest) -> HttpResponse {
    let status = StatusCode::NOT_FOUND;
    HttpResponse::build(status)
        .content_type("application/problem+json")
        .json(Problem {
            kind: "urn:hookline:problem:not_found".into(),
            title: "Not Found",
            status: status.as_u16(),
            code: "not_found",
            detail: format!("no route for {} {}", req.method(), req.path()),
        })
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

/// A bound, ready-to-run hookline process.
pub struct Application {
    port: Option<u16>,
    server: Option<actix_web::dev::Server>,
    workers: Option<tokio::task::JoinHandle<()>>,
    shutdown: CancellationToken,
    background: Vec<tokio::task::JoinHandle<()>>,
}

impl Application {
    /// Connect the stores and bind the listener (`127.0.0.1:0` picks a port).
    pub async fn build(settings: Settings, role: Role) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.store).await?;
        let listener = match role {
            Role::Workers => None,
            _ => Some(
                TcpListener::bind(settings.server.listen.as_str()).map_err(|e| {
                    anyhow::anyhow!("cannot listen on {}: {e}", settings.server.listen)
                })?,
            ),
        };
        Self::with_role(settings, store, listener, role)
    }

    /// Receiver and workers on `listener` (tests).
    pub fn with_listener(
        settings: Settings,
        store: Store,
        listener: TcpListener,
    ) -> anyhow::Result<Self> {
        Self::with_role(settings, store, Some(listener), Role::All)
    }

    pub fn with_role(
        settings: Settings,
        store: Store,
        listener: Option<TcpListener>,
        role: Role,
    ) -> anyhow::Result<Self> {
        let shutdown = CancellationToken::new();
        let metrics = Arc::new(Metrics::new());
        let workers = (role != Role::Receiver).then(|| {
            Workers::new(
                store.clone(),
                settings.handlers.clone(),
                settings.delivery,
                metrics.clone(),
            )
        });
        let wake = workers.as_ref().map(Workers::waker);
        let workers = workers.map(|w| tokio::spawn(w.run(shutdown.clone())));
        let (port, server) = match (role, listener) {
            (Role::Workers, _) | (_, None) => (None, None),
            (_, Some(listener)) => {
                let port = listener.local_addr()?.port();
                let capture = settings
                    .capture
                    .as_ref()
                    .map(|c| CaptureWriter::new(c.dir.clone()));
                let grace = settings.server.shutdown_timeout;
                let state = web::Data::new(AppState {
                    settings: Arc::new(settings),
                    store: store.clone(),
                    capture,
                    wake,
                    metrics,
                });
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(state.clone())
                        .route("/webhooks/{provider}/{tenant}", web::post().to(receive))
                        .route("/webhooks/{provider}", web::post().to(receive))
                        .route("/healthz", web::get().to(healthz))
                        .route("/readyz", web::get().to(readyz))
                        .route("/metrics", web::get().to(metrics_text))
                        .service(crate::admin::scope())
                        .default_service(web::to(not_found))
                })
                .shutdown_timeout(grace.as_secs())
                .listen(listener)?
                .run();
                (Some(port), Some(server))
            }
        };
        let purge = tokio::spawn(purge_loop(store));
        Ok(Application {
            port,
            server,
            workers,
            shutdown,
            background: vec![purge],
        })
    }

    /// The receiver's port. Panics for a workers-only process.
    pub fn port(&self) -> u16 {
        self.port.expect("this process runs no receiver")
    }

    /// Run until SIGINT/SIGTERM: the receiver drains its requests, then the
    /// workers finish the attempts in flight.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = match self.server {
            // actix-web handles the signals and drains connections.
            Some(server) => server.await,
            None => {
                shutdown_signal().await;
                Ok(())
            }
        };
        self.shutdown.cancel();
        if let Some(workers) = self.workers {
            let _ = workers.await;
        }
        for task in self.background {
            task.abort();
        }
        result
    }
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
