//! The web console under `/console`, served only when `admin.token` is set
//! (404 otherwise, as if it did not exist): server-rendered HTML (maud), a
//! stylesheet and a few lines of script embedded in the binary.
//!
//! - `session`: sign-in sessions, the cookie, CSRF checks;
//! - `sign_in`: the sign-in and sign-out forms;
//! - `overview`, `chart`, `recent`: the live last hour, drawn as SVG;
//! - `events`, `event`, `headers`: the event list and one event's page
//!   (its headers from its capture files, when captures are on);
//! - `dead_letters`: list and replay;
//! - `page`: the frame every page shares, and [`page::Failure`].
//!
//! Every answer carries a strict `Content-Security-Policy` (scripts and
//! styles from this origin only, no inline script, no framing) and is never
//! cached.

mod assets;
mod chart;
mod dead_letters;
mod event;
mod events;
mod filtered;
mod filters;
mod headers;
mod held;
mod overview;
pub mod page;
mod preview;
pub mod recent;
pub mod session;
mod sign_in;
mod streamed;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, Scope};

pub use self::recent::Recent;
pub use self::session::Sessions;
use crate::http::{ApiError, AppState};

/// The policy every console answer carries.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

pub fn scope() -> Scope<
    impl actix_web::dev::ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    web::scope("/console")
        .wrap(from_fn(guard))
        .route("", web::get().to(overview::page))
        .route("/live", web::get().to(overview::live))
        .route("/assets/{name}", web::get().to(assets::serve))
        .route("/sign-in", web::get().to(sign_in::form))
        .route("/sign-in", web::post().to(sign_in::sign_in))
        .route("/sign-out", web::post().to(sign_in::sign_out))
        .route("/events", web::get().to(events::list))
        .route("/find", web::get().to(events::find))
        .route(
            "/events/{provider}/{tenant}/{event_id}",
            web::get().to(event::page),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/body",
            web::get().to(event::body),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/redeliver",
            web::post().to(event::redeliver),
        )
        .route(
            "/events/{provider}/{tenant}/{event_id}/release",
            web::post().to(held::release),
        )
        // The same pages for an event ID a path cannot carry (`.`, `..`).
        .route("/event", web::get().to(event::page_by_query))
        .route("/event/body", web::get().to(event::body_by_query))
        .route(
            "/event/redeliver",
            web::post().to(event::redeliver_by_query),
        )
        .route("/event/release", web::post().to(held::release_by_query))
        .route("/dead-letters", web::get().to(dead_letters::list))
        .route("/dead-letters/replay", web::post().to(dead_letters::replay))
        .route(
            "/dead-letters/replay-all",
            web::get().to(dead_letters::confirm_all),
        )
        .route(
            "/dead-letters/replay-all",
            web::post().to(dead_letters::replay_all),
        )
}

/// Off without `admin.token`; the security headers on every answer; the
/// one log line of a store failure a page met.
async fn guard(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .expect("the app carries its state")
        .clone();
    if state.settings.admin.token.is_none() {
        return Err(ApiError::NotFound("no such route".into()).into());
    }
    let mut res = next.call(req).await?;
    if let Some(e) = res
        .response()
        .error()
        .and_then(|e| e.as_error::<page::Failure>())
        .and_then(page::Failure::store_failure)
    {
        state.store_failed(e);
    }
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        // Not `no-referrer`: with it browsers send `Origin: null` on a
        // form POST, and the Origin check needs the real one.
        (header::REFERRER_POLICY, "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(res)
}
