//! The stylesheet and the script, embedded in the binary: nothing is
//! fetched from anywhere else, and the CSP allows nothing else.

use actix_web::http::header;
use actix_web::{web, HttpResponse};

use super::page::Failure;
use crate::http::ApiError;

const CSS: &str = include_str!("assets/console.css");
const JS: &str = include_str!("assets/console.js");
const ICON: &str = include_str!("assets/icon.svg");

/// `GET /console/assets/{name}`.
pub async fn serve(name: web::Path<String>) -> Result<HttpResponse, Failure> {
    let (body, content_type) = match name.as_str() {
        "console.css" => (CSS, "text/css; charset=utf-8"),
        "console.js" => (JS, "text/javascript; charset=utf-8"),
        "icon.svg" => (ICON, "image/svg+xml"),
        _ => return Err(ApiError::NotFound("no such asset".into()).into()),
    };
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        // Revalidated each time: a new binary may bring new assets.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(body))
}
