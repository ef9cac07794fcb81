//! Signing in and out. The admin token is posted in a form body (never a
//! URL), compared in constant time, and exchanged for a session cookie; it
//! is never written back into a page or a log line. Wrong tokens are
//! counted per client with the admin API's
//! ([`crate::http::auth_failures`]): past the limit, a sign-in is answered
//! 429 + `Retry-After` without its token being compared.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use maud::{html, Markup};

use super::page::{frame, respond, see_other, Failure};
use super::session::{clear_cookie, cookie_value, field, same_origin, set_cookie, Authed};
use crate::http::admin::token_matches;
use crate::http::peer::Peer;
use crate::http::AppState;

/// Why the sign-in form is shown again.
enum Refused {
    WrongToken,
    /// Too many wrong tokens from this client: wait this many seconds.
    Held(u64),
}

fn sign_in_page(refused: Option<Refused>) -> Markup {
    let content = html! {
        h1 { "Sign in" }
        @match refused {
            Some(Refused::WrongToken) => p.error role="alert" { "That is not the admin token." },
            Some(Refused::Held(secs)) => p.error role="alert" {
                "Too many wrong tokens from this address: try again in " (secs) " s."
            },
            None => {}
        }
        form.stack method="post" action="/console/sign-in" {
            label for="token" { "Admin token (" code { "admin.token" } ")" }
            input #token type="password" name="token" autocomplete="current-password" required autofocus;
            button type="submit" { "Sign in" }
        }
    };
    frame("Sign in", "", None, content)
}

/// `GET /console/sign-in`; a signed-in operator goes to the overview.
pub async fn form(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if let Some(c) = cookie_value(&req) {
        // A store failure here just shows the form.
        if let Ok(Some(_)) = state.console.find(&state.store, &c).await {
            return see_other("/console");
        }
    }
    respond(StatusCode::OK, sign_in_page(None))
}

/// `POST /console/sign-in` with `token`.
pub async fn sign_in(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    same_origin(&req)?;
    let fields: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    let offered = field(&fields, "token").unwrap_or("");
    let Some(token) = &state.settings.admin.token else {
        return Err(Failure::Forbidden("the console is off"));
    };
    let peer = Peer::of(&req, &state.settings.server);
    if let Some(wait) = state.auth_failures.wait(peer) {
        let secs = wait.as_millis().div_ceil(1000).max(1) as u64;
        let mut res = respond(
            StatusCode::TOO_MANY_REQUESTS,
            sign_in_page(Some(Refused::Held(secs))),
        );
        res.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
        return Ok(res);
    }
    if !token_matches(token, offered) {
        state.auth_failures.failed(peer);
        tracing::warn!(client = %peer, "console sign-in refused");
        return Ok(respond(
            StatusCode::UNAUTHORIZED,
            sign_in_page(Some(Refused::WrongToken)),
        ));
    }
    let cookie = state.console.open(&state.store).await?;
    tracing::info!("console sign-in");
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, "/console"))
        .insert_header((header::SET_COOKIE, set_cookie(&state, &cookie)))
        .finish())
}

/// `POST /console/sign-out`: the session ends here, whatever the cookie
/// does in the browser.
pub async fn sign_out(
    req: HttpRequest,
    auth: Authed,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    super::session::checked_form(&req, &auth.0, &body)?;
    if let Some(cookie) = cookie_value(&req) {
        state.console.close(&state.store, &cookie).await?;
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, "/console/sign-in"))
        .insert_header((header::SET_COOKIE, clear_cookie(&state)))
        .finish())
}
