//! The admin API under `/admin`, enabled only when `admin.token` is set and
//! authenticated with `Authorization: Bearer <token>` (compared in constant
//! time). Operators look up an event and its deliveries, re-deliver it, and
//! list and replay dead letters.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use secrecy::ExposeSecret;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::server::{AppState, Problem};
use crate::store::delivery::{DeliveryFilter, DeliveryState};

pub fn scope() -> actix_web::Scope {
    web::scope("/admin")
        .route(
            "/events/{provider}/{tenant}/{event_id}",
            web::get().to(event),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/redeliver",
            web::post().to(redeliver),
        )
        .route("/dead-letters", web::get().to(dead_letters))
        .route("/dead-letters/replay", web::post().to(replay))
        .route("/dead-letters/{id}/replay", web::post().to(replay_one))
}

fn problem(status: StatusCode, code: &str, detail: &str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/problem+json")
        .json(Problem {
            kind: format!("urn:hookline:problem:{code}"),
            title: status.canonical_reason().unwrap_or(""),
            status: status.as_u16(),
            code,
            detail: detail.into(),
        })
}

/// `None` when the caller may proceed; otherwise the answer.
fn authorize(req: &HttpRequest, state: &AppState) -> Option<HttpResponse> {
    let Some(token) = &state.settings.admin.token else {
        // Off: as if the routes did not exist.
        return Some(problem(
            StatusCode::NOT_FOUND,
            "not_found",
            "the admin API is disabled",
        ));
    };
    let offered = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    // Hash both sides: equal length, constant-time comparison.
    let ok: bool = Sha256::digest(offered.as_bytes())
        .ct_eq(&Sha256::digest(token.expose_secret().as_bytes()))
        .into();
    (!ok).then(|| {
        let mut res = problem(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is required",
        );
        res.headers_mut().insert(
            actix_web::http::header::WWW_AUTHENTICATE,
            actix_web::http::header::HeaderValue::from_static("Bearer"),
        );
        res
    })
}

/// A store error as an answer: input the store cannot hold (such as a NUL
/// character in a filter) is the caller's, 400; anything else is an outage,
/// logged here, once, and answered 503.
fn unavailable(e: crate::store::StoreError) -> HttpResponse {
    if e.is_input() {
        return problem(
            StatusCode::BAD_REQUEST,
            "invalid_input",
            "the request holds a value that cannot be stored or looked up (such as a NUL character)",
        );
    }
    tracing::error!(op = e.op(), error = %e.chain(), "admin: store failure");
    problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "store_unavailable",
        "a store is unavailable",
    )
}

async fn event(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Some(denied) = authorize(&req, &state) {
        return denied;
    }
    let (provider, tenant, event_id) = path.into_inner();
    match state
        .store
        .event_report(&provider, &tenant, &event_id)
        .await
    {
        Ok(Some(report)) => HttpResponse::Ok().json(report),
        Ok(None) => problem(
            StatusCode::NOT_FOUND,
            "not_found",
            "no record of this event",
        ),
        Err(e) => unavailable(e),
    }
}

#[derive(Deserialize)]
struct HandlerQuery {
    handler: Option<String>,
}

async fn redeliver(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    query: web::Query<HandlerQuery>,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Some(denied) = authorize(&req, &state) {
        return denied;
    }
    let (provider, tenant, event_id) = path.into_inner();
    let filter = DeliveryFilter {
        provider: Some(provider),
        tenant: Some(tenant),
        event_id: Some(event_id),
        handler: query.into_inner().handler,
        ..Default::default()
    };
    requeued(&state, &filter).await
}

async fn requeued(state: &AppState, filter: &DeliveryFilter) -> HttpResponse {
    match state.store.requeue(filter).await {
        Ok(0) => problem(StatusCode::NOT_FOUND, "not_found", "no matching delivery"),
        Ok(n) => {
            if let Some(wake) = &state.wake {
                wake.notify_one();
            }
            HttpResponse::Accepted().json(serde_json::json!({"requeued": n}))
        }
        Err(e) => unavailable(e),
    }
}

#[derive(Deserialize)]
pub struct DeadLetterQuery {
    provider: Option<String>,
    tenant: Option<String>,
    handler: Option<String>,
    event_id: Option<String>,
    limit: Option<u32>,
}

impl DeadLetterQuery {
    fn filter(self) -> DeliveryFilter {
        DeliveryFilter {
            state: Some(DeliveryState::Dead),
            provider: self.provider,
            tenant: self.tenant,
            handler: self.handler,
            event_id: self.event_id,
            limit: self.limit,
            id: None,
        }
    }
}

async fn dead_letters(
    req: HttpRequest,
    query: web::Query<DeadLetterQuery>,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Some(denied) = authorize(&req, &state) {
        return denied;
    }
    match state
        .store
        .list_deliveries(&query.into_inner().filter())
        .await
    {
        Ok(d) => HttpResponse::Ok().json(serde_json::json!({"dead_letters": d})),
        Err(e) => unavailable(e),
    }
}

/// Replay every dead letter matching the query's filters.
async fn replay(
    req: HttpRequest,
    query: web::Query<DeadLetterQuery>,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Some(denied) = authorize(&req, &state) {
        return denied;
    }
    requeued(&state, &query.into_inner().filter()).await
}

async fn replay_one(
    req: HttpRequest,
    path: web::Path<i64>,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Some(denied) = authorize(&req, &state) {
        return denied;
    }
    let filter = DeliveryFilter {
        id: Some(path.into_inner()),
        state: Some(DeliveryState::Dead),
        ..Default::default()
    };
    requeued(&state, &filter).await
}
