//! The admin API under `/admin`, enabled only when `admin.token` is set and
//! authenticated with `Authorization: Bearer <token>` (compared in constant
//! time) before anything else of the request is looked at. Operators look
//! up an event (its dedup record, row, deliveries and quarantined copies),
//! re-deliver it, and list and replay dead letters.
//!
//! Every input is parsed by [`crate::lookup`] before a store sees it, and
//! every refusal is a problem document: a bad path or query (a control
//! character, an overlong name, a non-numeric ID, an unknown parameter) is
//! `400 invalid_input`, never a store failure.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, HttpResponse};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::peer::Peer;
use super::problem::ApiError;
use super::AppState;
use crate::lookup::{self, DeadLetterFilters, InputError};
use crate::store::delivery::DeliveryFilter;
use crate::store::EventKey;

pub(super) fn scope() -> actix_web::Scope<
    impl actix_web::dev::ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    web::scope("/admin")
        .wrap(from_fn(guard))
        // A query or path that does not parse is the caller's: problem+json,
        // not actix's plain text.
        .app_data(
            web::QueryConfig::default().error_handler(|e, _| ApiError::invalid("query", e).into()),
        )
        .app_data(
            web::PathConfig::default().error_handler(|e, _| ApiError::invalid("path", e).into()),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}",
            web::get().to(event),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/redeliver",
            web::post().to(redeliver),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/release",
            web::post().to(release),
        )
        .route("/dead-letters", web::get().to(dead_letters))
        .route("/waiting", web::get().to(waiting))
        .route("/dead-letters/replay", web::post().to(replay))
        .route("/dead-letters/{id}/replay", web::post().to(replay_one))
        .route(
            "/handshakes/{provider}/{tenant}/reset",
            web::post().to(reset_handshake),
        )
        .default_service(web::to(super::ops::not_found))
}

impl From<InputError> for ApiError {
    fn from(e: InputError) -> Self {
        ApiError::invalid(e.field, e.reason)
    }
}

/// Authentication first, for every admin route; then the handler; then the
/// one log line of a store failure it met.
async fn guard(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .expect("the app carries its state")
        .clone();
    let Some(token) = &state.settings.admin.token else {
        // Off: as if the routes did not exist.
        return Err(ApiError::NotFound("the admin API is disabled".into()).into());
    };
    // A client that offered too many wrong tokens is held off before its
    // token is compared (console sign-ins count too).
    let peer = Peer::of(req.request(), &state.settings.server);
    if let Some(retry_after) = state.auth_failures.wait(peer) {
        return Err(ApiError::TooManyFailures { retry_after }.into());
    }
    let offered = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !token_matches(token, offered) {
        state.auth_failures.failed(peer);
        return Err(ApiError::Unauthorized.into());
    }
    let res = next.call(req).await?;
    if let Some(e) = res
        .response()
        .error()
        .and_then(|e| e.as_error::<ApiError>())
        .and_then(ApiError::store_failure)
    {
        state.store_failed(e);
    }
    Ok(res)
}

/// Whether `offered` is the admin token. Both sides are hashed first: equal
/// length, then a constant-time comparison (the console's sign-in too).
pub(crate) fn token_matches(token: &SecretString, offered: &str) -> bool {
    Sha256::digest(offered.as_bytes())
        .ct_eq(&Sha256::digest(token.expose_secret().as_bytes()))
        .into()
}

async fn event(
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (provider, tenant, event_id) = path.into_inner();
    let event = EventKey::parse(&provider, &tenant, &event_id)?;
    let report = state
        .store
        .event_report(&event)
        .await
        .map_err(ApiError::lookup)?;
    match report {
        Some(report) => Ok(HttpResponse::Ok().json(report)),
        None => Err(ApiError::NotFound(format!("no record of {event}"))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HandlerQuery {
    handler: Option<String>,
}

async fn redeliver(
    path: web::Path<(String, String, String)>,
    query: web::Query<HandlerQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (provider, tenant, event_id) = path.into_inner();
    let event = EventKey::parse(&provider, &tenant, &event_id)?;
    let handler = query.handler.as_deref().map(lookup::handler).transpose()?;
    let n = state.requeue(&event.deliveries(handler.as_ref())).await?;
    if n > 0 {
        return Ok(HttpResponse::Accepted().json(serde_json::json!({"requeued": n})));
    }
    // Nothing requeued: say why (404 when nothing can be, 409 when its
    // deliveries are under way already).
    let why = state
        .store
        .nothing_requeued(&event, handler.as_ref())
        .await
        .map_err(ApiError::lookup)?;
    let said = why.explain(&event, handler.as_ref());
    Err(match why.is_error() {
        true => ApiError::NotFound(said),
        false => ApiError::AlreadyDone(said),
    })
}

/// Release an event held as a suspected replay to its handlers: `200`
/// with the status it was recorded with, `404` when none is held, `409`
/// when it was released already.
async fn release(
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (provider, tenant, event_id) = path.into_inner();
    let event = EventKey::parse(&provider, &tenant, &event_id)?;
    let status = state.ingest.release(&event).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "status": status.as_str(),
        "provider": event.provider.as_str(),
        "tenant": event.tenant.as_str(),
        "event_id": event.event_id.as_str(),
    })))
}

/// Forget the secret a handshake stored for a tenant (Asana), so that the
/// next handshake is accepted: `204`, or `404` when none was stored.
async fn reset_handshake(
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (provider, tenant) = path.into_inner();
    let provider = lookup::provider(&provider)?;
    let tenant = lookup::tenant(&tenant)?;
    let had = state
        .store
        .with_records("handshake", |r| {
            r.reset_handshake_secret(&provider, &tenant)
        })
        .await
        .map_err(ApiError::lookup)?;
    if had {
        tracing::info!(%provider, %tenant, "handshake secret forgotten; the next handshake is accepted");
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound("no handshake secret stored".into()))
    }
}

async fn requeued(state: &AppState, filter: &DeliveryFilter) -> Result<HttpResponse, ApiError> {
    match state.requeue(filter).await? {
        0 => Err(ApiError::NotFound("no matching delivery".into())),
        n => Ok(HttpResponse::Accepted().json(serde_json::json!({"requeued": n}))),
    }
}

/// Filters on dead letters. An unknown parameter (a typo such as `tenat`)
/// is refused rather than ignored: ignored, it would widen a replay.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeadLetterQuery {
    provider: Option<String>,
    tenant: Option<String>,
    handler: Option<String>,
    event_id: Option<String>,
    limit: Option<u32>,
    /// Replay only: every dead letter, said explicitly.
    #[serde(default)]
    all: bool,
}

impl DeadLetterQuery {
    /// The filter of a listing: `limit`, or `default` when not given;
    /// `all` applies to replays only.
    fn listing(&self, default: Option<u32>) -> Result<DeliveryFilter, ApiError> {
        if self.all {
            return Err(ApiError::invalid("all", "applies to replay only"));
        }
        Ok(self.filters()?.to_filter(self.limit.or(default)))
    }

    fn filters(&self) -> Result<DeadLetterFilters, InputError> {
        DeadLetterFilters::parse(
            self.provider.as_deref(),
            self.tenant.as_deref(),
            self.handler.as_deref(),
            self.event_id.as_deref(),
        )
    }
}

async fn dead_letters(
    query: web::Query<DeadLetterQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let filter = query.listing(None)?;
    let rows = state
        .store
        .with_records("list", |r| r.list(&filter))
        .await
        .map_err(ApiError::lookup)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({"dead_letters": rows})))
}

/// The deliveries waiting in Redis Streams that the query's filters
/// match, oldest first (at most `limit`, 50 unless given), and how many
/// wait in the streams they name.
async fn waiting(
    query: web::Query<DeadLetterQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    // The caller's input is checked first, whatever the store.
    let filter = query.listing(Some(50))?;
    if !state.store.streams_deliveries() {
        return Err(ApiError::NotFound(
            "no delivery waits in Redis Streams: store.non_critical_deliveries is \"postgres\""
                .into(),
        ));
    }
    let list = state
        .store
        .stream_list(&filter)
        .await
        .map_err(ApiError::lookup)?;
    Ok(HttpResponse::Ok().json(list))
}

/// Replay every dead letter matching the query's filters; with none, only
/// when `all=true` says so.
async fn replay(
    query: web::Query<DeadLetterQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let filters = query.filters()?;
    if filters.is_empty() && !query.all {
        return Err(ApiError::invalid(
            "query",
            "give a filter (provider, tenant, handler, event_id), or all=true to replay every dead letter",
        ));
    }
    if query.limit.is_some() {
        return Err(ApiError::invalid("limit", "applies to listing only"));
    }
    requeued(&state, &filters.to_filter(None)).await
}

async fn replay_one(
    path: web::Path<i64>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    requeued(&state, &lookup::dead_letter(path.into_inner())).await
}
