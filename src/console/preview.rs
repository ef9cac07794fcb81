//! The event page's preview: for each subscribed handler with a filter or
//! a transform, what it would receive for this event now (its filter,
//! transform and signature applied, as an attempt makes them), or why it
//! would receive nothing. The script runs when the page is drawn.

use bytes::Bytes;
use maud::{html, Markup};

use crate::config::Settings;
use crate::delivery::destination::http::headers;
use crate::delivery::preview::{preview, Event, Preview};
use crate::store::EventReport;

/// The section, empty when no handler has a filter or a transform or the
/// body is not kept.
pub async fn section(
    settings: &Settings,
    report: &EventReport,
    body: Option<&[u8]>,
    kept_headers: &[(String, String)],
    query: &str,
) -> Markup {
    let Some(body) = body else {
        return html! {};
    };
    let event_type = report
        .processed_event
        .as_ref()
        .map(|p| p.event_type.as_str())
        .or_else(|| {
            report
                .deliveries
                .first()
                .map(|d| d.delivery.event_type.as_str())
        });
    let Some(event_type) = event_type else {
        return html! {};
    };
    let mut request_headers = kept_headers.to_vec();
    if let Some(t) = report
        .processed_event
        .as_ref()
        .and_then(|p| p.content_type.clone())
    {
        request_headers.push(("content-type".into(), t));
    }
    let event = Event {
        provider: &report.provider,
        tenant: &report.tenant,
        event_id: &report.event_id,
        event_type,
        headers: &request_headers,
        body: Bytes::copy_from_slice(body),
        query,
    };
    let mut shown = Vec::new();
    for (name, h) in &settings.handlers {
        if h.filter.is_none() && h.transform.is_none() {
            continue;
        }
        match preview(h, &event).await {
            Preview::NotSubscribed => {}
            p => shown.push((name.as_str(), p)),
        }
    }
    if shown.is_empty() {
        return html! {};
    }
    html! {
        h2 { "Preview" }
        p.muted { "What each handler with a filter or a transform would receive for this event now." }
        @for (name, p) in &shown {
            details.preview {
                summary { (name) }
                @match p {
                    Preview::Filtered => p { "Its filter refuses this event: nothing is delivered." },
                    Preview::Failed(reason) => p { "Its transform fails: " code { (reason) } },
                    Preview::Delivered(out) => pre.body {
                        @for (n, v) in headers(out) { (n) ": " (v) "\n" }
                        "\n" (String::from_utf8_lossy(&out.body))
                    },
                    Preview::NotSubscribed => {},
                }
            }
        }
    }
}
