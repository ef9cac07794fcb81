//! The overview: the last hour of this node's traffic, per provider and
//! tenant (requests per minute by outcome) and per handler (backlog now,
//! circuit, attempts per minute by outcome), and rejected requests counted
//! by provider and code. The page draws it once; the script fetches
//! `/console/live` (the same panels as an HTML fragment) every few seconds
//! and swaps it in.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use maud::{html, Markup};

use super::chart::{by_class, request_class, stacked};
use super::page::{frame, respond, Failure};
use super::session::Authed;
use crate::http::AppState;
use crate::ids::HandlerName;

const REQUEST_CLASSES: &[&str] = &[
    "accepted",
    "duplicate",
    "held",
    "conflict",
    "handshake",
    "retry",
    "rejected",
];
const DELIVERY_CLASSES: &[&str] = &["delivered", "retry", "dead"];

fn delivery_class(outcome: &str) -> &'static str {
    match outcome {
        "delivered" => "delivered",
        "dead" => "dead",
        _ => "retry",
    }
}

/// `GET /console`.
pub async fn page(auth: Authed, state: web::Data<AppState>) -> Result<HttpResponse, Failure> {
    let panels = panels(&state).await?;
    let content = html! {
        h1 { "Overview" }
        p.muted { "The last hour on this node, per minute, since it started; refreshed every 5 seconds." }
        div #live data-src="/console/live" aria-live="polite" { (panels) }
    };
    Ok(respond(
        StatusCode::OK,
        frame("Overview", "Overview", Some(&auth.0.csrf), content),
    ))
}

/// `GET /console/live`: the panels alone, for the page's script.
pub async fn live(_auth: Authed, state: web::Data<AppState>) -> Result<HttpResponse, Failure> {
    let panels = panels(&state).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(panels.into_string()))
}

/// The handler's circuit as this node's workers see it (`circuit_open`).
fn circuit(state: &AppState, handler: &str) -> Markup {
    let open = state
        .metrics
        .circuit_open
        .get_metric_with_label_values(&[handler])
        .is_ok_and(|g| g.get() == 1);
    if open {
        html! { span class="badge dead" { "open" } }
    } else {
        html! { "closed" }
    }
}

async fn panels(state: &AppState) -> Result<Markup, Failure> {
    let recent = state.metrics.recent.snapshot();
    let depth: BTreeMap<HandlerName, _> = state
        .store
        .depth_by_handler()
        .await?
        .into_iter()
        .map(|h| (h.handler, h.depth))
        .collect();
    let empty = BTreeMap::new();
    // Rejected requests in aggregate: (provider, code) -> count.
    let mut rejected: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for ((provider, _), outcomes) in &recent.requests {
        for (code, s) in outcomes {
            if request_class(code) == "rejected" {
                *rejected.entry((provider, code)).or_default() += s.iter().sum::<u64>();
            }
        }
    }
    Ok(html! {
        section aria-labelledby="requests" {
            h2 #requests { "Requests per minute" }
            @if recent.requests.is_empty() { p.muted { "No requests in the last hour." } }
            div.grid {
                @for ((provider, tenant), outcomes) in &recent.requests {
                    (stacked(&format!("{provider} / {tenant}"), &by_class(outcomes, REQUEST_CLASSES, request_class)))
                }
            }
        }
        section aria-labelledby="handlers" {
            h2 #handlers { "Handlers" }
            div.grid {
                @for name in state.settings.handlers.keys() {
                    @let d = depth.get(name.as_str()).copied().unwrap_or_default();
                    div.handler {
                        p {
                            strong { (name) } " · backlog " span.backlog { (d.pending) } " · dead " (d.dead)
                            " · circuit " (circuit(state, name.as_str()))
                        }
                        (stacked(&format!("{name} attempts"), &by_class(recent.deliveries.get(name.as_str()).unwrap_or(&empty), DELIVERY_CLASSES, delivery_class)))
                    }
                }
            }
        }
        section aria-labelledby="rejected" {
            h2 #rejected { "Rejected requests, last hour" }
            p.muted { "Counts only: a request that fails verification leaves nothing stored." }
            @if rejected.is_empty() { p.muted { "None." } } @else {
                table {
                    thead { tr { th { "Provider" } th { "Code" } th { "Requests" } } }
                    tbody { @for ((provider, code), n) in &rejected { tr { td { (provider) } td { code { (code) } } td { (n) } } } }
                }
            }
        }
    })
}
