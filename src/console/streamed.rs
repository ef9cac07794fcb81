//! An event's deliveries that wait in Redis Streams
//! (`store.non_critical_deliveries = "redis"`): they have no `delivery`
//! row unless dead-lettered, so its page lists them from the streams.

use maud::{html, Markup};

use crate::store::delivery::rfc3339_ms;
use crate::store::StreamWaiting;
use crate::text::plural;

/// What the page says of `waiting`, when the event's deliveries went
/// through Redis Streams and none of them is a dead letter.
pub fn section(waiting: &[StreamWaiting]) -> Markup {
    html! {
        p.muted {
            "A non-critical event's deliveries wait in Redis Streams ("
            code { "store.non_critical_deliveries = \"redis\"" }
            ") and leave them once acknowledged; a dead letter is kept here. "
            @if waiting.is_empty() {
                "None waits now."
            } @else {
                (plural(waiting.len() as u64, "delivery waits", "deliveries wait")) ":"
            }
        }
        @for w in waiting { (one(w)) }
    }
}

fn one(w: &StreamWaiting) -> Markup {
    html! {
        section.delivery {
            h3 { (w.handler) " " span.badge.pending { "waiting" } }
            p.muted {
                "In Redis Streams since " (w.recorded_at) "; "
                (plural(u64::from(w.attempts), "attempt", "attempts")) " made"
                @if let Some(s) = w.last_status { ", the last answered " (s) }
                @if let Some(e) = &w.last_error { ", the last failed: " (e) }
                @match &w.retry_at {
                    Some(at) => { "; next attempt at " (at) "." }
                    None => { "; due now, or being attempted." }
                }
            }
            @if !w.kept.is_empty() {
                div.scroll { table {
                    thead { tr { th { "#" } th { "Started" } th { "Status" } th { "Latency" } th { "Error" } } }
                    tbody { @for a in &w.kept { tr.attempt {
                        td { (a.attempt) }
                        td { (rfc3339_ms(a.started_ms)) }
                        td { @if let Some(s) = a.status { (s) } @else { "—" } }
                        td { (a.latency_ms) " ms" }
                        td { (a.error.as_deref().unwrap_or("")) }
                    } } }
                } }
                @if w.kept.len() < w.attempts as usize {
                    p.muted { "The latest " (w.kept.len()) " attempts are kept." }
                }
            }
        }
    }
}
