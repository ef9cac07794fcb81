//! An event held as a suspected replay, on its page: why it is held, how
//! often it came, and the button that releases it to the handlers (the
//! same release as `hookline events release` and the admin API's).

use actix_web::{web, HttpRequest, HttpResponse};
use maud::{html, Markup};

use super::events::{event_links, EventQuery};
use super::page::{see_other, Failure};
use super::session::{checked_form, Authed};
use crate::http::AppState;
use crate::store::{EventKey, HeldEvent};

/// The held record's section of the event page; `release`, where its
/// form posts.
pub fn section(held: &HeldEvent, release: &str, csrf: &str) -> Markup {
    let time =
        |t: &chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    html! {
        h2 { "Held as a suspected replay" }
        p {
            "Its body was accepted under another event ID within the provider's replay window, "
            "and its provider signs the body but not the ID: it may be a captured request resent, "
            "or a real event whose body repeats an earlier one. It is kept, and not delivered "
            "until it is released."
        }
        dl.facts {
            dt { "Copies" } dd { (held.copies) }
            dt { "First seen" } dd { (time(&held.first_seen_at)) }
            dt { "Last seen" } dd { (time(&held.last_seen_at)) }
            dt { "Body sha256" } dd { code { (hex::encode(&held.body_sha256)) } }
            dt { "Released" } dd {
                @match &held.released_at {
                    Some(at) => { (time(at)) }
                    None => "not yet",
                }
            }
        }
        @if held.released_at.is_none() {
            form.inline method="post" action=(release) {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Release to the handlers" }
            }
        }
    }
}

/// `POST .../release`: record and deliver the held event like any event.
pub async fn release(
    req: HttpRequest,
    auth: Authed,
    path: web::Path<(String, String, String)>,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    checked_form(&req, &auth.0, &body)?;
    let (provider, tenant, event_id) = path.as_ref();
    release_event(EventKey::parse(provider, tenant, event_id)?, &state).await
}

/// `POST /console/event/release?provider=&tenant=&event_id=`: the same,
/// for an event ID a path cannot carry.
pub async fn release_by_query(
    req: HttpRequest,
    auth: Authed,
    query: web::Query<EventQuery>,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    checked_form(&req, &auth.0, &body)?;
    let event = EventKey::parse(&query.provider, &query.tenant, &query.event_id)?;
    release_event(event, &state).await
}

async fn release_event(event: EventKey, state: &AppState) -> Result<HttpResponse, Failure> {
    let status = state
        .ingest
        .release(&event)
        .await
        .map_err(crate::http::ApiError::from)?;
    let links = event_links(&event.provider, &event.tenant, &event.event_id);
    Ok(see_other(&links.page_with("released", status.as_str())))
}
