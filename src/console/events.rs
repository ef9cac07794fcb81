//! The event list and the find-by-ID form.
//!
//! The list reads what the stores keep one record at a time: deliveries
//! (one per event and handler, with every attempt), verified requests with
//! their verdict (the verdict log, `request_verdict`), accepted critical
//! events (`processed_event`) and conflicts (`conflict_quarantine`); each
//! newest first, filtered, one page at a time by keyset (`before` = the
//! last ID shown). Rejected requests are never stored: they are counted
//! on the overview. Where non-critical deliveries wait in Redis Streams,
//! a list of its own reads them there, oldest first.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use maud::{html, Markup};
use serde::Deserialize;

use super::filters::{
    Filters, DELIVERY_FIELDS, EVENT_FIELDS, OUTCOMES, PAGE, REQUEST_FIELDS, STATES, WAITING_FIELDS,
};
use super::page::{frame, respond, see_other, Failure};
use super::session::Authed;
use crate::http::{ApiError, AppState};
use crate::store::delivery::DeliveryView;
use crate::store::listing::{EventListed, EventRecord, VerdictListed};
use crate::store::EventKey;
use crate::store::WaitingList;
use crate::text::plural;

/// Where one event's page, its body download and its forms (re-delivery,
/// release of a held event) are.
pub struct EventLinks {
    pub page: String,
    pub body: String,
    pub redeliver: String,
    pub release: String,
}

impl EventLinks {
    /// `page` with `name=value` added to its query.
    pub fn page_with(&self, name: &str, value: &str) -> String {
        let sep = if self.page.contains('?') { '&' } else { '?' };
        let pair = form_urlencoded::Serializer::new(String::new())
            .append_pair(name, value)
            .finish();
        format!("{}{sep}{pair}", self.page)
    }
}

/// The links of one event: a path with each part encoded
/// (`/console/events/P/T/ID`), or, for an ID a path cannot carry, the
/// same pages with the three in the query (`/console/event?...`).
///
/// A path cannot carry `.` or `..`: browsers and the `url` crate resolve
/// such a segment (encoded as `%2E` too), so the link would lead to
/// another page.
pub fn event_links(provider: &str, tenant: &str, event_id: &str) -> EventLinks {
    if matches!(event_id, "." | "..") {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("provider", provider)
            .append_pair("tenant", tenant)
            .append_pair("event_id", event_id)
            .finish();
        return EventLinks {
            page: format!("/console/event?{query}"),
            body: format!("/console/event/body?{query}"),
            redeliver: format!("/console/event/redeliver?{query}"),
            release: format!("/console/event/release?{query}"),
        };
    }
    let mut url = url::Url::parse("http://console/console/events").expect("a valid base");
    url.path_segments_mut()
        .expect("a base with a path")
        .extend([provider, tenant, event_id]);
    let page = url.path().to_owned();
    EventLinks {
        body: format!("{page}/body"),
        redeliver: format!("{page}/redeliver"),
        release: format!("{page}/release"),
        page,
    }
}

/// The page of one event ([`event_links`]).
pub fn event_href(provider: &str, tenant: &str, event_id: &str) -> String {
    event_links(provider, tenant, event_id).page
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

/// "Older" when the page (these row `ids`) is full, "Newest" when not on
/// the first page.
pub fn pager(base: &str, filters: &Filters, ids: &[i64]) -> Markup {
    let older = ids
        .last()
        .filter(|_| ids.len() == PAGE as usize)
        .map(|id| format!("{base}?{}", filters.query(Some(*id))));
    html! {
        nav.pager aria-label="Pages" {
            @if filters.before.is_some() { a href={ (base) "?" (filters.query(None)) } { "Newest" } }
            @if let Some(href) = older { a href=(href) rel="next" { "Older" } }
        }
    }
}

/// The lists, as the tabs name them: `list=` value, label, what it holds.
const LISTS: &[(&str, &str, &str)] = &[
    ("deliveries", "Deliveries", "One row per event and handler, every state."),
    ("requests", "Requests", "One row per verified request and its outcome (accepted, duplicate, conflict, replay), kept for the longest dedup window."),
    ("accepted", "Accepted critical events", "The events a provider's critical globs keep a processed_event row for."),
    ("conflicts", "Conflicts", "Requests that reused an event ID with another body (422): kept, never delivered; identical copies on one row."),
    ("held", "Held", "Suspected replays: a body accepted under another event ID came again under a fresh one. Kept, not delivered until released from the event's page; copies on one row."),
    ("waiting", "Waiting in Redis Streams", "Non-critical deliveries waiting in Redis Streams (store.non_critical_deliveries = \"redis\"), read from the front of each handler's stream and retry set: they have no row among the deliveries until they are dead letters, and leave the streams once acknowledged. Oldest first."),
];

/// Accepted or conflicting events as a table.
fn events_table(rows: &[EventListed], conflicts: bool) -> Markup {
    html! {
        div.scroll { table {
            thead { tr {
                th { @if conflicts { "Last seen" } @else { "Received" } }
                th { "Provider / tenant" } th { "Event ID" } th { "Type" } th { "Bytes" }
                @if conflicts { th { "Copies" } }
            } }
            tbody { @for e in rows { tr {
                td { time { (e.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)) } }
                td { (e.provider) " / " (e.tenant) }
                td { a href=(event_href(&e.provider, &e.tenant, &e.event_id)) { (e.event_id) } }
                td { (e.event_type) } td { (e.body_bytes) }
                @if conflicts { td { (e.copies) } }
            } } }
        } }
        @if rows.is_empty() { p.muted { "Nothing matches." } }
    }
}

/// The console's list of deliveries waiting in Redis Streams, oldest
/// first: the first page of what `list` holds, and how many wait.
fn waiting_table(list: &WaitingList) -> Markup {
    html! {
        p.muted {
            (plural(list.waiting, "delivery waits", "deliveries wait"))
            " in the streams and retry sets these filters name"
            @if list.shown.len() as u64 != list.waiting {
                "; the oldest " (list.shown.len()) " of those read are shown"
            }
            "."
        }
        div.scroll { table {
            thead { tr {
                th { "Recorded" } th { "Provider / tenant" } th { "Event ID" } th { "Type" }
                th { "Handler" } th { "Attempts" } th { "Last answer" } th { "Next attempt" }
            } }
            tbody { @for w in &list.shown { tr {
                td { time { (w.recorded_at) } }
                td { (w.provider) " / " (w.tenant) }
                td { a href=(event_href(&w.provider, &w.tenant, &w.event_id)) { (w.event_id) } }
                td { (w.event_type) }
                td { (w.handler) }
                td { (w.attempts) }
                td {
                    @if let Some(s) = w.last_status { (s) }
                    @if let Some(e) = &w.last_error { " " span.muted { (e) } }
                }
                td { @match &w.retry_at {
                    Some(at) => time { (at) },
                    None => span.muted { "due now, or being attempted" },
                } }
            } } }
        } }
        @if list.shown.is_empty() { p.muted { "Nothing matches." } }
    }
}

/// The verdict log as a table.
fn requests_table(rows: &[VerdictListed]) -> Markup {
    html! {
        div.scroll { table {
            thead { tr {
                th { "Received" } th { "Provider / tenant" } th { "Event ID" } th { "Type" }
                th { "Outcome" } th { "Bytes" } th { "Body SHA-256" }
            } }
            tbody { @for r in rows { tr {
                td { time { (chrono::DateTime::from_timestamp_millis(r.received_ms).unwrap_or_default().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)) } }
                td { (r.provider) " / " (r.tenant) }
                td { a href=(event_href(&r.provider, &r.tenant, &r.event_id)) { (r.event_id) } }
                td { (r.event_type) }
                td { span class={ "badge " (r.verdict) } { (r.verdict) } }
                td { (r.body_bytes) }
                td { code title=(hex::encode(&r.body_sha256)) { (hex::encode(&r.body_sha256[..r.body_sha256.len().min(6)])) } }
            } } }
        } }
        @if rows.is_empty() { p.muted { "Nothing matches." } }
    }
}

/// `GET /console/events`.
pub async fn list(
    auth: Authed,
    query: web::Query<Filters>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let filters = query.into_inner();
    let which = filters.list.as_deref().unwrap_or("deliveries");
    let streams = state.store.streams_deliveries();
    let (rows, ids) = match which {
        "deliveries" => {
            let filter = filters.to_filter()?;
            let rows = state
                .store
                .with_records("list", |r| r.list(&filter))
                .await?;
            let ids = rows.iter().map(|d| d.id).collect::<Vec<_>>();
            (table(&rows, false), ids)
        }
        "requests" => {
            let filter = filters.to_verdict_filter()?;
            let rows = state
                .store
                .with_records("list", |r| r.list_verdicts(&filter))
                .await?;
            let ids = rows.iter().map(|r| r.id).collect::<Vec<_>>();
            (requests_table(&rows), ids)
        }
        "accepted" | "conflicts" | "held" => {
            let record = match which {
                "accepted" => EventRecord::Accepted,
                "held" => EventRecord::Held,
                _ => EventRecord::Conflict,
            };
            let f = filters.to_event_filter()?;
            let rows = state
                .store
                .with_records("list", |r| r.list_events(record, &f))
                .await?;
            let ids = rows.iter().map(|e| e.id).collect::<Vec<_>>();
            (events_table(&rows, record != EventRecord::Accepted), ids)
        }
        "waiting" if streams => {
            let filter = filters.to_waiting_filter()?;
            let list = state.store.stream_list(&filter).await?;
            (waiting_table(&list), Vec::new())
        }
        _ => {
            return Err(ApiError::invalid(
                "list",
                "expected deliveries, requests, accepted, conflicts or held \
                 (or waiting, when deliveries wait in Redis Streams)",
            )
            .into())
        }
    };
    let content = html! {
        h1 { "Events" }
        h2 { "Find an event by ID" }
        (find_form())
        nav.tabs aria-label="Lists" {
            @for (list, label, _) in LISTS.iter().filter(|(l, ..)| *l != "waiting" || streams) {
                a href={ "/console/events?list=" (list) } aria-current=[(*list == which).then_some("page")] { (label) }
            }
        }
        @for (list, _, what) in LISTS { @if *list == which {
            p.muted { (what) @if which != "waiting" { " Newest first." } }
        } }
        p.muted { "Requests that fail verification are never stored: they are counted on the overview, by provider and code." }
        (match which {
            "deliveries" => filters.form("/console/events", DELIVERY_FIELDS, Some(STATES)),
            "requests" => filters.form("/console/events", REQUEST_FIELDS, Some(OUTCOMES)),
            "waiting" => filters.form("/console/events", WAITING_FIELDS, None),
            _ => filters.form("/console/events", EVENT_FIELDS, None),
        })
        (rows)
        (pager("/console/events", &filters, &ids))
    };
    Ok(respond(
        StatusCode::OK,
        frame("Events", "Events", Some(&auth.0.csrf), content),
    ))
}

/// An event named in the query: the find form's fields, and the pages of
/// an event whose ID a path cannot carry ([`event_links`]).
#[derive(Deserialize)]
pub struct EventQuery {
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
}

/// `GET /console/find`: to the event's page. The provider and tenant are
/// names without spaces, so they are trimmed; the event ID is the
/// provider's, taken as written.
pub async fn find(_auth: Authed, query: web::Query<EventQuery>) -> Result<HttpResponse, Failure> {
    let event = EventKey::parse(query.provider.trim(), query.tenant.trim(), &query.event_id)?;
    Ok(see_other(&event_href(
        &event.provider,
        &event.tenant,
        &event.event_id,
    )))
}
