//! One event's page: the admin API's event report
//! ([`crate::store::EventReport`]) drawn for a person, its body, and the
//! re-delivery buttons.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use maud::{html, Markup};
use serde::Deserialize;

use super::events::{event_links, state_badge, EventQuery};
use super::page::{frame, respond, see_other, Failure};
use super::session::{checked_form, field, Authed};
use crate::http::{ApiError, AppState};
use crate::lookup;
use crate::store::delivery::Leased;
use crate::store::EventKey;
use crate::store::{DedupRecord, DeliveryReport, EventReport};
use crate::text::plural;

/// Body bytes shown on the page; the rest is behind the download link.
const BODY_SHOWN: usize = 16 * 1024;

/// Characters of a handler's answer shown per attempt.
const EXCERPT: usize = 200;

type EventPath = web::Path<(String, String, String)>;

/// The event a page's path names (`/console/events/P/T/ID`).
fn event_ref(path: &EventPath) -> Result<EventKey, Failure> {
    let (provider, tenant, event_id) = path.as_ref();
    Ok(EventKey::parse(provider, tenant, event_id)?)
}

/// The event a page's query names (`/console/event?...`: an ID a path
/// cannot carry, [`super::events::event_links`]).
fn queried(query: &EventQuery) -> Result<EventKey, Failure> {
    Ok(EventKey::parse(
        &query.provider,
        &query.tenant,
        &query.event_id,
    )?)
}

#[derive(Deserialize)]
pub struct Done {
    requeued: Option<u64>,
    released: Option<String>,
}

/// `GET /console/events/{provider}/{tenant}/{event_id}`.
pub async fn page(
    auth: Authed,
    path: EventPath,
    done: web::Query<Done>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    show(auth, event_ref(&path)?, &done, &state).await
}

/// `GET /console/event?provider=&tenant=&event_id=`.
pub async fn page_by_query(
    auth: Authed,
    query: web::Query<EventQuery>,
    done: web::Query<Done>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    show(auth, queried(&query)?, &done, &state).await
}

async fn show(
    auth: Authed,
    event: EventKey,
    done: &Done,
    state: &AppState,
) -> Result<HttpResponse, Failure> {
    let report = state
        .store
        .event_report(&event)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no record of {event}")))?;
    let payloads = payloads(state, &report).await?;
    let body = body_of(state, &event, &report, payloads.first()).await?;
    let headers = super::headers::section(state, &event, &forwarded(&payloads)).await;
    let links = event_links(&event.provider, &event.tenant, &event.event_id);
    let filtered = super::filtered::handlers(&state.settings, &report);
    // Its deliveries, if it had any, went through Redis Streams.
    let streamed = state.store.streams_deliveries() && report.processed_event.is_none();
    let kept = forwarded(&payloads);
    let query = payloads.first().map_or("", |p| p.query.as_str());
    let preview =
        super::preview::section(&state.settings, &report, body.as_deref(), &kept, query).await;
    let content = html! {
        h1 { "Event " code { (event.event_id) } }
        p.muted { (event.provider) " / " (event.tenant) }
        @if let Some(n) = done.requeued {
            p.notice role="status" { (n) " deliveries requeued." }
        }
        @if let Some(status) = &done.released {
            p.notice role="status" { "Released: " (status) "." }
        }
        (verdict(&report))
        h2 { "Headers" }
        (headers)
        h2 { "Body" }
        (body_view(body.as_deref(), &links.body))
        h2 { "Deliveries" }
        @if report.deliveries.is_empty() && report.held.is_some() {
            p.muted { "None: the event is held." }
        } @else if report.deliveries.is_empty() && streamed {
            (super::streamed::section(&report.waiting))
        } @else if report.deliveries.is_empty() && filtered.is_empty() {
            p.muted { "No handler subscribes to this event." }
        } @else if report.deliveries.is_empty() {
            (super::filtered::section(&filtered))
        } @else {
            form.inline method="post" action=(links.redeliver) {
                input type="hidden" name="csrf" value=(auth.0.csrf);
                button type="submit" { "Redeliver to all handlers" }
            }
            @for d in &report.deliveries { (delivery(d, &links.redeliver, &auth.0.csrf)) }
            @if !report.waiting.is_empty() { (super::streamed::section(&report.waiting)) }
            (super::filtered::section(&filtered))
        }
        (preview)
        @if !report.quarantined.is_empty() { (quarantined(&report)) }
        @if let Some(held) = &report.held { (super::held::section(held, &links.release, &auth.0.csrf)) }
    };
    Ok(respond(
        StatusCode::OK,
        frame(&event.event_id, "Events", Some(&auth.0.csrf), content),
    ))
}

/// What the event's deliveries carry: the body, and the provider headers
/// kept for the handlers that forward them (one query per handler).
async fn payloads(state: &AppState, report: &EventReport) -> Result<Vec<Leased>, Failure> {
    let mut out = Vec::new();
    for d in &report.deliveries {
        out.extend(
            state
                .store
                .with_records("payload", |r| r.payload(d.delivery.id))
                .await?,
        );
    }
    Ok(out)
}

/// The forwarded headers of every delivery, each name once.
fn forwarded(payloads: &[Leased]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in payloads.iter().flat_map(|p| &p.forward_headers) {
        if !out.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            out.push((name.clone(), value.clone()));
        }
    }
    out
}

/// The event's body: its `processed_event` row's (critical events), else
/// the one its first delivery carries, else its held copy's; `None` when
/// none keeps it. A secret the provider's scheme reads from the body
/// (Microsoft Graph's `clientState`) is shown redacted, here and in the
/// download.
async fn body_of(
    state: &AppState,
    event: &EventKey,
    report: &EventReport,
    payload: Option<&Leased>,
) -> Result<Option<Vec<u8>>, Failure> {
    let body = if report.processed_event.is_some() {
        state
            .store
            .with_records("lookup", |r| r.processed_event(event))
            .await?
            .map(|r| r.body)
    } else {
        payload
            .map(|p| p.body.to_vec())
            .or_else(|| report.held.as_ref().map(|h| h.body.clone()))
    };
    let Some(provider) = state.settings.providers.get(event.provider.as_str()) else {
        return Ok(body);
    };
    Ok(body.map(|b| provider.def.signature.redacted_body(&b).into_owned()))
}

fn verdict(report: &EventReport) -> Markup {
    let arrived = report
        .processed_event
        .as_ref()
        .map(|p| time(&p.received_at))
        .or_else(|| {
            report
                .deliveries
                .iter()
                .map(|d| d.delivery.created_at.clone())
                .min()
        });
    let conflicts: i64 = report.quarantined.iter().map(|q| q.copies).sum();
    html! {
        dl.facts {
            dt { "Arrived" } dd { (arrived.as_deref().unwrap_or("not recorded (only its dedup key is kept)")) }
            dt { "Verdict" } dd {
                "accepted"
                @if conflicts > 0 { ", then " (plural(conflicts as u64, "conflicting request", "conflicting requests")) " refused (422)" }
            }
            dt { "Dedup key" } dd {
                @match report.dedup {
                    DedupRecord::Absent => "absent (expired or released)",
                    DedupRecord::InProgress { kept_until } => { "in progress until " (time(&kept_until)) }
                    DedupRecord::Completed { kept_until } => { "completed; duplicates until " (time(&kept_until)) }
                }
            }
            @if let Some(p) = &report.processed_event {
                dt { "Type" } dd { (p.event_type) }
                dt { "Recorded" } dd { "critical: processed_event row, " (p.body_bytes) " bytes, sha256 " code { (hex::encode(&p.body_sha256)) } }
            }
        }
    }
}

/// A time as the delivery views show theirs (RFC 3339, milliseconds, Z).
fn time(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn body_view(body: Option<&[u8]>, download: &str) -> Markup {
    let Some(body) = body else {
        return html! { p.muted { "Not kept: the body is kept for critical events (the provider's " code { "critical" } " globs) and with deliveries, and this event has neither." } };
    };
    let pretty = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok());
    let text = pretty.unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let cut = text.len() > BODY_SHOWN;
    let end = (0..=BODY_SHOWN.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let shown = &text[..end];
    html! {
        pre.body { (shown) }
        @if cut { p { "Truncated at " (BODY_SHOWN / 1024) " KB. " } }
        p { a href=(download) download { "Download the body (" (body.len()) " bytes)" } }
    }
}

fn delivery(d: &DeliveryReport, redeliver: &str, csrf: &str) -> Markup {
    let v = &d.delivery;
    html! {
        section.delivery {
            h3 { (v.handler) " " (state_badge(v)) }
            p.muted {
                (plural(d.attempts.len() as u64, "attempt", "attempts")) " recorded, oldest first; " (v.attempts) " since it was last queued (the count starts again at 1 each time)"
                @if let Some(next) = &v.next_attempt_at { "; next at " (next) }
            }
            form.inline method="post" action=(redeliver) {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="handler" value=(v.handler);
                button type="submit" { "Redeliver to " (v.handler) }
            }
            div.scroll { table {
                thead { tr { th { "#" } th { "Started" } th { "Status" } th { "Latency" } th { "Error" } th { "Response" } } }
                tbody {
                    @for a in &d.attempts {
                        tr.attempt {
                            td { (a.attempt) }
                            td { (a.started_at) }
                            td { @if let Some(s) = a.status { (s) } @else { "—" } }
                            td { (a.latency_ms) " ms" }
                            td { (a.error.as_deref().unwrap_or("")) }
                            td { code { (excerpt(a.response_body.as_deref().unwrap_or(""))) } }
                        }
                    }
                }
            } }
        }
    }
}

fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn quarantined(report: &EventReport) -> Markup {
    html! {
        h2 { "Quarantined conflicting copies" }
        div.scroll { table {
            thead { tr { th { "Copies" } th { "Type" } th { "Bytes" } th { "sha256" } th { "First seen" } th { "Last seen" } } }
            tbody {
                @for q in &report.quarantined {
                    tr {
                        td { (q.copies) } td { (q.event_type) } td { (q.body.len()) }
                        td { code { (hex::encode(&q.body_sha256)) } }
                        td { (time(&q.first_seen_at)) } td { (time(&q.last_seen_at)) }
                    }
                }
            }
        } }
    }
}

/// `GET .../body`: the recorded body, as a download (never rendered by
/// the browser: it is the sender's bytes).
pub async fn body(
    _auth: Authed,
    path: EventPath,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    download(event_ref(&path)?, &state).await
}

/// `GET /console/event/body?provider=&tenant=&event_id=`.
pub async fn body_by_query(
    _auth: Authed,
    query: web::Query<EventQuery>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    download(queried(&query)?, &state).await
}

async fn download(event: EventKey, state: &AppState) -> Result<HttpResponse, Failure> {
    let report = state.store.event_report(&event).await?;
    let body = match &report {
        Some(report) => {
            let payloads = payloads(state, report).await?;
            body_of(state, &event, report, payloads.first()).await?
        }
        None => None,
    }
    .ok_or_else(|| ApiError::NotFound(format!("no recorded body for {event}")))?;
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header((
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"event-body\"",
        ))
        .body(body))
}

/// `POST .../redeliver`, to one `handler` or, without it, to all.
pub async fn redeliver(
    req: HttpRequest,
    auth: Authed,
    path: EventPath,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let fields = checked_form(&req, &auth.0, &body)?;
    requeue(event_ref(&path)?, &fields, &state).await
}

/// `POST /console/event/redeliver?provider=&tenant=&event_id=`.
pub async fn redeliver_by_query(
    req: HttpRequest,
    auth: Authed,
    query: web::Query<EventQuery>,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let fields = checked_form(&req, &auth.0, &body)?;
    requeue(queried(&query)?, &fields, &state).await
}

/// Requeue the deliveries of `event` (of the form's `handler` only, when
/// given), then back to its page.
async fn requeue(
    event: EventKey,
    fields: &[(String, String)],
    state: &AppState,
) -> Result<HttpResponse, Failure> {
    let handler = field(fields, "handler").map(lookup::handler).transpose()?;
    let n = state.requeue(&event.deliveries(handler.as_ref())).await?;
    let links = event_links(&event.provider, &event.tenant, &event.event_id);
    Ok(see_other(&links.page_with("requeued", &n.to_string())))
}
