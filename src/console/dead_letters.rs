//! Dead letters: the list (the event list's filters, state dead), replay
//! one, replay a selection, and replay everything matching the filters
//! after a confirmation that says how many that is.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use maud::html;
use serde::Deserialize;

use super::events::{pager, table};
use super::filters::{Filters, DELIVERY_FIELDS};
use super::page::{frame, respond, see_other, Failure};
use super::session::{checked_form, field, Authed};
use crate::http::{ApiError, AppState};
use crate::lookup;
use crate::store::delivery::{DeliveryFilter, DeliveryState};

const BASE: &str = "/console/dead-letters";

/// The filters as dead-letter filters, every page at once (replay, count).
fn matching(filters: &Filters) -> Result<DeliveryFilter, Failure> {
    let mut f = filters.to_filter()?;
    f.state = Some(DeliveryState::Dead);
    f.before_id = None;
    f.limit = None;
    Ok(f)
}

#[derive(Deserialize)]
pub struct Done {
    replayed: Option<u64>,
}

/// `GET /console/dead-letters`.
pub async fn list(
    auth: Authed,
    query: web::Query<Filters>,
    done: web::Query<Done>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let mut filters = query.into_inner();
    filters.state = None;
    let mut f = filters.to_filter()?;
    f.state = Some(DeliveryState::Dead);
    let rows = state.store.with_records("list", |r| r.list(&f)).await?;
    let csrf = &auth.0.csrf;
    let content = html! {
        h1 { "Dead letters" }
        @if let Some(n) = done.replayed {
            p.notice role="status" { (n) " dead letters replayed." }
        }
        (filters.form(BASE, DELIVERY_FIELDS, None))
        form method="post" action={ (BASE) "/replay" } {
            input type="hidden" name="csrf" value=(csrf);
            (table(&rows, true))
            @if !rows.is_empty() {
                div.actions {
                    button type="submit" { "Replay selected" }
                    a.button href={ (BASE) "/replay-all?" (filters.query(None)) } { "Replay all matching…" }
                }
            }
        }
        (pager(BASE, &filters, &rows.iter().map(|d| d.id).collect::<Vec<_>>()))
    };
    Ok(respond(
        StatusCode::OK,
        frame("Dead letters", "Dead letters", Some(csrf), content),
    ))
}

/// `POST /console/dead-letters/replay`: the row whose button was pressed
/// (`one`), or every selected row (`id`, repeated).
pub async fn replay(
    req: HttpRequest,
    auth: Authed,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let fields = checked_form(&req, &auth.0, &body)?;
    let ids: Vec<&str> = match field(&fields, "one") {
        Some(one) => vec![one],
        None => fields
            .iter()
            .filter(|(k, _)| k == "id")
            .map(|(_, v)| v.as_str())
            .collect(),
    };
    if ids.is_empty() {
        return Err(ApiError::invalid("id", "select at least one dead letter").into());
    }
    let mut replayed = 0;
    for id in ids {
        let id = id
            .parse::<i64>()
            .map_err(|_| ApiError::invalid("id", "not a delivery ID"))?;
        replayed += state.requeue(&lookup::dead_letter(id)).await?;
    }
    Ok(see_other(&format!("{BASE}?replayed={replayed}")))
}

/// `GET /console/dead-letters/replay-all`: how many match, and the button.
pub async fn confirm_all(
    auth: Authed,
    query: web::Query<Filters>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let mut filters = query.into_inner();
    filters.state = None;
    let filter = matching(&filters)?;
    let count = state
        .store
        .with_records("count", |r| r.count(&filter))
        .await?;
    let what = if filters.is_empty() {
        "every dead letter".to_owned()
    } else {
        filters.query(None).replace('&', ", ")
    };
    let csrf = &auth.0.csrf;
    let content = html! {
        h1 { "Replay dead letters" }
        p.confirm { "Replay " strong #count { (count) } " dead letters matching " code { (what) } "?" }
        p.muted { "Each is queued again with its attempts reset. Dead letters that arrive after this page was drawn and match are replayed too." }
        form.inline method="post" action={ (BASE) "/replay-all" } {
            input type="hidden" name="csrf" value=(csrf);
            (filters.hidden())
            button type="submit" { "Replay " (count) " dead letters" }
        }
        a href={ (BASE) "?" (filters.query(None)) } { "Cancel" }
    };
    Ok(respond(
        StatusCode::OK,
        frame("Replay dead letters", "Dead letters", Some(csrf), content),
    ))
}

/// `POST /console/dead-letters/replay-all` with the confirmed filters.
pub async fn replay_all(
    req: HttpRequest,
    auth: Authed,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, Failure> {
    let fields = checked_form(&req, &auth.0, &body)?;
    let filters = Filters::from_fields(&fields);
    let replayed = state.requeue(&matching(&filters)?).await?;
    Ok(see_other(&format!(
        "{BASE}?{}&replayed={replayed}",
        filters.query(None)
    )))
}
