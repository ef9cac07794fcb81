//! Routes for the people and machines that run hookline: `GET /healthz`
//! (the process answers), `GET /readyz` (the stores answer), `GET /metrics`
//! (Prometheus text), and a problem document for every unknown route.

use actix_web::{web, HttpRequest, HttpResponse};

use super::problem::ApiError;
use super::AppState;

pub(super) async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

/// Ready when every store answers; otherwise `503 store_unavailable` with
/// `Retry-After`, like any request that needed the stores.
pub(super) async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match state.store.ping().await {
        Ok(()) => Ok(HttpResponse::Ok().json(serde_json::json!({"status": "ready"}))),
        Err(e) => {
            state.store_failed(&e);
            Err(ApiError::StoreUnavailable(e))
        }
    }
}

pub(super) async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    state
        .metrics
        .buffered_bytes
        .set(i64::try_from(state.budget.reserved()).unwrap_or(i64::MAX));
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render(&state.store).await)
}

/// Anything else under the service: a problem document, not an HTML page.
pub(super) async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(no_route(&req))
}

/// The refusal of a path no route serves.
pub(super) fn no_route(req: &HttpRequest) -> ApiError {
    ApiError::NotFound(format!("no route for {} {}", req.method(), req.path()))
}
