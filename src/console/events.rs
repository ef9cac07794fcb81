//! The event list and the find-by-ID form.
//!
//! What the stores keep per event and handler is its delivery (with every
//! attempt), so the list is of deliveries: newest first, filtered, one page
//! at a time by keyset (`before` = the last delivery ID shown). Events
//! without any handler, and requests answered duplicate, conflict or
//! rejected, are not recorded one by one: they are found by ID (`/find`)
//! or counted on the overview.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use maud::{html, Markup};
use serde::Deserialize;

use super::filters::{Filters, PAGE};
use super::page::{frame, respond, see_other, Failure};
use super::session::Authed;
use crate::http::AppState;
use crate::lookup::EventRef;
use crate::store::delivery::DeliveryView;

/// The page of one event, as a path with each part encoded.
pub fn event_href(provider: &str, tenant: &str, event_id: &str) -> String {
    let mut url = url::Url::parse("http://console/console/events").expect("a valid base");
    url.path_segments_mut()
        .expect("a base with a path")
        .extend([provider, tenant, event_id]);
    url.path().to_owned()
}

/// The find-by-ID form.
pub fn find_form() -> Markup {
    html! {
        form.filters method="get" action="/console/find" aria-label="Find an event" {
            label { "provider" input type="text" name="provider" required; }
            label { "tenant" input type="text" name="tenant" value="default" required; }
            label { "event ID" input type="text" name="event_id" required; }
            button type="submit" { "Find" }
        }
    }
}

/// A delivery's state as a badge.
pub fn state_badge(d: &DeliveryView) -> Markup {
    html! { span class={ "badge " (d.state.as_str()) } { (d.state.as_str()) } }
}

/// Deliveries as a table; `select` adds a checkbox and a replay button per
/// row (the dead letters' form).
pub fn table(rows: &[DeliveryView], select: bool) -> Markup {
    html! {
        div.scroll {
            table {
                thead { tr {
                    @if select { th { span.visually-hidden { "Select" } } }
                    th { "Created" } th { "Provider / tenant" } th { "Event ID" } th { "Type" }
                    th { "Handler" } th { "State" } th { "Attempts" } th { "Last status" }
                    @if select { th { span.visually-hidden { "Replay" } } }
                } }
                tbody {
                    @for d in rows {
                        tr {
                            @if select {
                                td { input type="checkbox" name="id" value=(d.id)
                                    aria-label={ "Select delivery " (d.id) }; }
                            }
                            td { time { (d.created_at) } }
                            td { (d.provider) " / " (d.tenant) }
                            td { a href=(event_href(&d.provider, &d.tenant, &d.event_id)) { (d.event_id) } }
                            td { (d.event_type) }
                            td { (d.handler) }
                            td { (state_badge(d)) }
                            td { (d.attempts) }
                            td {
                                @if let Some(s) = d.last_status { (s) }
                                @if let Some(e) = &d.last_error { " " span.muted { (e) } }
                            }
                            @if select {
                                td { button type="submit" name="one" value=(d.id) { "Replay" } }
                            }
                        }
                    }
                }
            }
        }
        @if rows.is_empty() { p.muted { "Nothing matches." } }
    }
}

/// "Older" when the page is full, "Newest" when not on the first page.
pub fn pager(base: &str, filters: &Filters, rows: &[DeliveryView]) -> Markup {
    let older = rows
        .last()
        .filter(|_| rows.len() == PAGE as usize)
        .map(|d| format!("{base}?{}", filters.query(Some(d.id))));
    html! {
        nav.pager aria-label="Pages" {
            @if filters.before.is_some() { a href={ (base) "?" (filters.query(None)) } { "Newest" } }
            @if let Some(href) = older { a href=(href) rel="next" { "Older" } }
        }
    }
}

/// `GET /console/events`.
pub async fn list(
    auth: Authed,
    query: web::Query<Filters>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let filters = query.into_inner();
    let rows = state.store.list_deliveries(&filters.to_filter()?).await?;
    let content = html! {
        h1 { "Events" }
        h2 { "Find an event by ID" }
        (find_form())
        h2 { "Deliveries, newest first" }
        p.muted { "One row per event and handler. Events no handler subscribes to, and requests answered duplicate, conflict or rejected, are not listed one by one: find them by ID, or see their counts on the overview." }
        (filters.form("/console/events", true))
        (table(&rows, false))
        (pager("/console/events", &filters, &rows))
    };
    Ok(respond(
        StatusCode::OK,
        frame("Events", "Events", Some(&auth.0.csrf), content),
    ))
}

#[derive(Deserialize)]
pub struct FindQuery {
    provider: String,
    tenant: String,
    event_id: String,
}

/// `GET /console/find`: to the event's page.
pub async fn find(_auth: Authed, query: web::Query<FindQuery>) -> Result<HttpResponse, Failure> {
    let event = EventRef::parse(
        query.provider.trim(),
        query.tenant.trim(),
        query.event_id.trim(),
    )?;
    Ok(see_other(&event_href(
        &event.provider,
        &event.tenant,
        &event.event_id,
    )))
}
