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

use crate::capture::CaptureWriter;
use crate::config::{Settings, DEFAULT_TENANT};
use crate::provider::{verify_request, HeaderLookup, Rejection, VerifiedWebhook, VerifyError};
use crate::store::{ClaimOutcome, CommitOutcome, Store, StoreError};

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
    StoreUnavailable,
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::UnknownProvider(_) => "unknown_provider",
            ApiError::UnknownTenant { .. } => "unknown_tenant",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::BodyRead => "malformed_payload",
            ApiError::Rejected(Rejection::Verify(VerifyError::MissingSignature)) => {
                "missing_signature"
            }
            ApiError::Rejected(Rejection::Verify(VerifyError::InvalidSignature)) => {
                "invalid_signature"
            }
            ApiError::Rejected(Rejection::Verify(VerifyError::TimestampOutOfTolerance)) => {
                "timestamp_out_of_tolerance"
            }
            ApiError::Rejected(Rejection::MissingEventId) => "missing_event_id",
            ApiError::Rejected(Rejection::MalformedPayload) => "malformed_payload",
            ApiError::InProgress { .. } => "in_progress",
            ApiError::Conflict => "event_id_conflict",
            ApiError::StoreUnavailable => "store_unavailable",
        }
    }

    fn title(&self) -> &'static str {
        match self.status_code() {
            StatusCode::NOT_FOUND => "Not Found",
            StatusCode::PAYLOAD_TOO_LARGE => "Payload Too Large",
            StatusCode::UNAUTHORIZED => "Unauthorized",
            StatusCode::BAD_REQUEST => "Bad Request",
            StatusCode::CONFLICT => "Conflict",
            StatusCode::UNPROCESSABLE_ENTITY => "Unprocessable Content",
            _ => "Service Unavailable",
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::InProgress { retry_after } => Some(*retry_after),
            ApiError::StoreUnavailable => Some(STORE_RETRY_AFTER),
            _ => None,
        }
    }
}

#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'a str,
    status: u16,
    code: &'a str,
    detail: String,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::UnknownProvider(_) | ApiError::UnknownTenant { .. } => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyRead => StatusCode::BAD_REQUEST,
            ApiError::Rejected(Rejection::Verify(_)) => StatusCode::UNAUTHORIZED,
            ApiError::Rejected(_) => StatusCode::BAD_REQUEST,
            ApiError::InProgress { .. } => StatusCode::CONFLICT,
            ApiError::Conflict => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
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

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store failure");
        ApiError::StoreUnavailable
    }
}

#[derive(Serialize)]
struct Accepted<'a> {
    status: &'a str,
    provider: &'a str,
    tenant: &'a str,
    event_id: &'a str,
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
    let provider_name = req
        .match_info()
        .get("provider")
        .unwrap_or_default()
        .to_owned();
    let tenant_name = req
        .match_info()
        .get("tenant")
        .unwrap_or(DEFAULT_TENANT)
        .to_owned();
    let span = tracing::info_span!(
        "webhook",
        provider = %provider_name,
        tenant = %tenant_name,
        event_id = tracing::field::Empty,
        outcome = tracing::field::Empty,
    );
    let result = handle(&req, payload, &state, &provider_name, &tenant_name)
        .instrument(span.clone())
        .await;
    match &result {
        Ok((ev, duplicate)) => {
            span.record("event_id", ev.event_id());
            span.record("outcome", if *duplicate { "duplicate" } else { "accepted" });
        }
        Err(e) => {
            span.record("outcome", e.code());
        }
    }
    span.in_scope(|| tracing::info!("answered"));
    result.map(|(ev, duplicate)| success(&ev, duplicate))
}

async fn handle(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    provider_name: &str,
    tenant_name: &str,
) -> Result<(VerifiedWebhook, bool), ApiError> {
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
    // The connection info is a RefCell borrow: drop it before any await.
    let url = {
        let conn = req.connection_info();
        format!("{}://{}{}", conn.scheme(), conn.host(), req.uri())
    };
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let ev = verify_request(
        provider,
        tenant,
        req.headers(),
        body,
        &url,
        content_type,
        unix_now(),
    )?;

    if let Some(capture) = &state.capture {
        capture.write(req, &ev).await;
    }

    let store = &state.store;
    let owner = match store.claim(&ev, settings.dedup.in_progress_ttl).await? {
        ClaimOutcome::Owned(owner) => owner,
        ClaimOutcome::Duplicate => return Ok((ev, true)),
        ClaimOutcome::InProgress { retry_after } => {
            return Err(ApiError::InProgress { retry_after })
        }
        ClaimOutcome::Conflict => return conflict(store, &ev).await,
    };
    match store.commit(&ev, &owner, provider.window).await {
        Ok(CommitOutcome::Accepted) => Ok((ev, false)),
        Ok(CommitOutcome::Duplicate) => Ok((ev, true)),
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
                tracing::warn!(error = %release, "could not release the claim");
            }
            Err(e.into())
        }
    }
}

/// Same ID, different body: keep the request aside and answer 422; if it
/// cannot be kept, answer 503 so the provider tries again.
async fn conflict(
    store: &Store,
    ev: &VerifiedWebhook,
) -> Result<(VerifiedWebhook, bool), ApiError> {
    store.quarantine(ev).await?;
    tracing::warn!(
        event_id = ev.event_id(),
        "event ID reused with a different body; quarantined"
    );
    Err(ApiError::Conflict)
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    match state.store.ping().await {
        Ok(()) => HttpResponse::Ok().json(serde_json::json!({"status": "ready"})),
        Err(e) => {
            tracing::warn!(error = %e, "not ready");
            HttpResponse::ServiceUnavailable()
                .insert_header((header::RETRY_AFTER, STORE_RETRY_AFTER.as_secs().to_string()))
                .json(serde_json::json!({"status": "unavailable"}))
        }
    }
}

/// Anything else under the service: a problem document, not an HTML page.
async fn not_found(req: HttpRequest) -> HttpResponse {
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

/// A bound, ready-to-run receiver.
pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
    background: Vec<tokio::task::JoinHandle<()>>,
}

impl Application {
    /// Connect the stores and bind the listener (`127.0.0.1:0` picks a port).
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let store = Store::connect(&settings.store).await?;
        let listener = TcpListener::bind(&settings.server.listen)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", settings.server.listen))?;
        Self::with_listener(settings, store, listener)
    }

    pub fn with_listener(
        settings: Settings,
        store: Store,
        listener: TcpListener,
    ) -> anyhow::Result<Self> {
        let port = listener.local_addr()?.port();
        let capture = settings.capture_dir.clone().map(CaptureWriter::new);
        let shutdown = settings.server.shutdown_timeout;
        let state = web::Data::new(AppState {
            settings: Arc::new(settings),
            store: store.clone(),
            capture,
        });
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .route("/webhooks/{provider}/{tenant}", web::post().to(receive))
                .route("/webhooks/{provider}", web::post().to(receive))
                .route("/healthz", web::get().to(healthz))
                .route("/readyz", web::get().to(readyz))
                .default_service(web::to(not_found))
        })
        .shutdown_timeout(shutdown.as_secs())
        .listen(listener)?
        .run();
        let purge = tokio::spawn(purge_loop(store));
        Ok(Application {
            port,
            server,
            background: vec![purge],
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serve until SIGINT/SIGTERM (or the server handle stops it).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = self.server.await;
        for task in self.background {
            task.abort();
        }
        result
    }
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
            Err(e) => tracing::warn!(error = %e, "purge failed"),
        }
    }
}
