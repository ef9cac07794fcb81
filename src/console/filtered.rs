//! The handlers an event was filtered out for, worked out when its page is
//! drawn: a handler that subscribes to the event (`events`, `tenants`),
//! has a filter, and holds no delivery of it was refused by its filter
//! (a subscribed handler without one always gets a delivery).

use maud::{html, Markup};

use crate::config::{matching_handlers, Settings};
use crate::store::EventReport;

/// The filtered handlers of `report`'s event, in name order; none when its
/// type is not known (a non-critical event no handler took).
pub fn handlers<'a>(settings: &'a Settings, report: &EventReport) -> Vec<&'a str> {
    if report.held.is_some() {
        return Vec::new();
    }
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
        return Vec::new();
    };
    matching_handlers(
        &settings.handlers,
        &report.provider,
        &report.tenant,
        event_type,
    )
    .into_iter()
    .filter(|name| settings.handlers[*name].filter.is_some())
    .filter(|name| {
        !report
            .deliveries
            .iter()
            .any(|d| d.delivery.handler == name.as_str())
    })
    .map(|name| name.as_str())
    .collect()
}

/// One line per filtered handler.
pub fn section(names: &[&str]) -> Markup {
    html! {
        @for name in names {
            section.delivery {
                h3 { (name) " " span.badge.filtered { "filtered" } }
                p.muted { "Its filter refused this event: not delivered to it." }
            }
        }
    }
}
