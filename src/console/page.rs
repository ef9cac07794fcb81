//! What every console page shares: the frame (header, navigation,
//! sign-out), the HTML answer, and [`Failure`], every answer that is not a
//! page the operator asked for.

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use maud::{html, Markup, DOCTYPE};

use crate::http::ApiError;
use crate::lookup::InputError;
use crate::store::StoreError;

/// The sections, as the navigation lists them.
const NAV: &[(&str, &str)] = &[
    ("Overview", "/console"),
    ("Events", "/console/events"),
    ("Dead letters", "/console/dead-letters"),
];

/// A whole page: `title`, the section it belongs to (for the navigation),
/// the session's CSRF token (for the sign-out form; `None` when signed
/// out), and the content.
pub fn frame(title: &str, section: &str, csrf: Option<&str>, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · hookline" }
                link rel="icon" href="/console/assets/icon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/console/assets/console.css";
                script src="/console/assets/console.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header {
                    a.brand href="/console" { "hookline" }
                    @if let Some(csrf) = csrf {
                        nav aria-label="Sections" {
                            @for (name, href) in NAV {
                                a href=(href) aria-current=[(*name == section).then_some("page")] { (name) }
                            }
                        }
                        form.signout method="post" action="/console/sign-out" {
                            input type="hidden" name="csrf" value=(csrf);
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #main tabindex="-1" { (content) }
            }
        }
    }
}

/// A page as an HTTP answer.
pub fn respond(status: StatusCode, page: Markup) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(page.into_string())
}

/// A 303 to `location` (after a POST, so a reload does not repeat it).
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// Every console answer other than the page asked for.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// No session: to the sign-in page.
    #[error("sign in first")]
    SignIn,
    /// A POST without this session's CSRF token, or from another site.
    #[error("{0}")]
    Forbidden(&'static str),
    /// What the admin API would have answered (bad input, nothing found,
    /// a store down).
    #[error("{0}")]
    Api(#[from] ApiError),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Api(ApiError::invalid(e.field, e.reason))
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Api(ApiError::lookup(e))
    }
}

impl Failure {
    /// The store failure to log and count, if this is one.
    pub fn store_failure(&self) -> Option<&StoreError> {
        match self {
            Failure::Api(e) => e.store_failure(),
            _ => None,
        }
    }
}

impl ResponseError for Failure {
    fn status_code(&self) -> StatusCode {
        match self {
            Failure::SignIn => StatusCode::SEE_OTHER,
            Failure::Forbidden(_) => StatusCode::FORBIDDEN,
            Failure::Api(e) => e.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Failure::SignIn = self {
            return see_other("/console/sign-in");
        }
        let status = self.status_code();
        let content = html! {
            h1 { (crate::http::reason_phrase(status)) }
            p.error { (self) }
            p { a href="/console" { "Back to the overview" } }
        };
        respond(status, frame("Error", "", None, content))
    }
}
