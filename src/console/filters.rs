//! The filters the event list and the dead letters share: provider,
//! tenant, handler, event ID, event type, delivery state, a request's
//! outcome and a time range,
//! each parsed by [`crate::lookup`] before a store sees it; and the form
//! that sets them.

use chrono::{DateTime, NaiveDateTime, Utc};
use maud::{html, Markup};
use serde::Deserialize;

use crate::ids::EventType;
use crate::lookup::{DeadLetterFilters, InputError};
use crate::store::delivery::{DeliveryFilter, DeliveryState};
use crate::store::listing::{EventFilter, RequestVerdict, VerdictFilter};

/// Rows on one page.
pub const PAGE: u32 = 50;

/// Filters as a query string or a form carries them; an empty field is no
/// filter.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Filters {
    pub provider: Option<String>,
    pub tenant: Option<String>,
    pub handler: Option<String>,
    pub event_id: Option<String>,
    pub event_type: Option<String>,
    /// `pending`, `delivered` or `dead` (deliveries only).
    pub state: Option<String>,
    /// `accepted`, `duplicate`, `conflict` or `replay` (requests only).
    pub outcome: Option<String>,
    /// From this time (RFC 3339, or the `datetime-local` form, in UTC).
    pub since: Option<String>,
    /// Up to this time.
    pub until: Option<String>,
    /// Keyset cursor: rows older than this ID.
    pub before: Option<i64>,
    /// Which record the event list reads: `deliveries` (default),
    /// `requests` (the verdict log), `accepted` (critical events) or
    /// `conflicts`.
    pub list: Option<String>,
}

/// The named fields, in the order the form shows them.
const TEXT_FIELDS: &[&str] = &[
    "provider",
    "tenant",
    "handler",
    "event_id",
    "event_type",
    "since",
    "until",
];

/// The fields set with a select.
const SELECTS: &[&str] = &["state", "outcome"];

/// The fields each list filters on: its form shows these and no other,
/// and any other given is refused (400), not ignored.
pub const DELIVERY_FIELDS: &[&str] = &[
    "provider",
    "tenant",
    "handler",
    "event_id",
    "event_type",
    "since",
    "until",
    "state",
];
/// The requests' list (the verdict log): it records no handler or state.
pub const REQUEST_FIELDS: &[&str] = &[
    "provider",
    "tenant",
    "event_id",
    "event_type",
    "since",
    "until",
    "outcome",
];
/// Accepted critical events and conflicts: no handler, state, outcome or
/// time range.
pub const EVENT_FIELDS: &[&str] = &["provider", "tenant", "event_id", "event_type"];
/// Deliveries waiting in Redis Streams: no state or time range.
pub const WAITING_FIELDS: &[&str] = &["provider", "tenant", "handler", "event_id", "event_type"];

/// A select the form offers: its field and its values.
pub type Select = (&'static str, &'static [&'static str]);

/// The deliveries' state select.
pub const STATES: Select = ("state", &["pending", "delivered", "dead"]);

/// The requests' outcome select.
pub const OUTCOMES: Select = ("outcome", &["accepted", "duplicate", "conflict", "replay"]);

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// A time as the form takes it: RFC 3339 with its offset, or UTC written
/// as the console shows times (`2026-11-23T08:00`, seconds and a `Z`
/// optional, a space for the `T`, or a day alone for its midnight).
fn time(field: &'static str, v: &str) -> Result<i64, InputError> {
    let utc = v.trim_end_matches(['Z', 'z']).replacen(' ', "T", 1);
    DateTime::parse_from_rfc3339(v)
        .map(|t| t.with_timezone(&Utc))
        .or_else(|_| {
            NaiveDateTime::parse_from_str(&utc, "%Y-%m-%dT%H:%M:%S%.f").map(|t| t.and_utc())
        })
        .or_else(|_| NaiveDateTime::parse_from_str(&utc, "%Y-%m-%dT%H:%M").map(|t| t.and_utc()))
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(&utc, "%Y-%m-%d")
                .map(|d| d.and_time(chrono::NaiveTime::MIN).and_utc())
        })
        .map(|t| t.timestamp_millis())
        .map_err(|_| InputError {
            field,
            reason: "expected a time such as 2026-11-23T08:00 (UTC)".into(),
        })
}

impl Filters {
    /// From a POSTed form's fields.
    pub fn from_fields(fields: &[(String, String)]) -> Self {
        let get = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        Filters {
            provider: get("provider"),
            tenant: get("tenant"),
            handler: get("handler"),
            event_id: get("event_id"),
            event_type: get("event_type"),
            state: get("state"),
            outcome: get("outcome"),
            since: get("since"),
            until: get("until"),
            before: None,
            list: None,
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        // An event ID is the provider's, surrounding spaces included: only
        // an empty field is no filter.
        if name == "event_id" {
            return self.event_id.as_deref().filter(|v| !v.is_empty());
        }
        given(match name {
            "provider" => &self.provider,
            "tenant" => &self.tenant,
            "handler" => &self.handler,
            "event_id" => &self.event_id,
            "event_type" => &self.event_type,
            "state" => &self.state,
            "outcome" => &self.outcome,
            "since" => &self.since,
            _ => &self.until,
        })
    }

    /// The store's filter: newest first, one page from the cursor on.
    pub fn to_filter(&self) -> Result<DeliveryFilter, InputError> {
        self.only(DELIVERY_FIELDS)?;
        let mut f = DeadLetterFilters::parse(
            self.text("provider"),
            self.text("tenant"),
            self.text("handler"),
            self.text("event_id"),
        )?
        .to_filter(Some(PAGE));
        f.state = self
            .text("state")
            .map(|s| {
                DeliveryState::parse(s).ok_or_else(|| InputError {
                    field: "state",
                    reason: "expected pending, delivered or dead".into(),
                })
            })
            .transpose()?;
        f.event_type = self.event_type()?;
        f.since_ms = self.text("since").map(|v| time("since", v)).transpose()?;
        f.until_ms = self.text("until").map(|v| time("until", v)).transpose()?;
        f.before_id = self.before;
        f.newest_first = true;
        Ok(f)
    }

    /// The filter of the deliveries waiting in Redis Streams: the first
    /// page, oldest first; state and time refused.
    pub fn to_waiting_filter(&self) -> Result<DeliveryFilter, InputError> {
        self.only(WAITING_FIELDS)?;
        self.to_filter()
    }

    fn event_type(&self) -> Result<Option<EventType>, InputError> {
        self.text("event_type")
            .map(|t| {
                EventType::parse(t).map_err(|e| InputError {
                    field: "event_type",
                    reason: e.to_string(),
                })
            })
            .transpose()
    }

    /// Refuse any field given that is not among `fields`: it does not
    /// apply to this list.
    fn only(&self, fields: &[&str]) -> Result<(), InputError> {
        let stray = TEXT_FIELDS
            .iter()
            .chain(SELECTS)
            .find(|f| !fields.contains(f) && self.text(f).is_some());
        match stray {
            Some(field) => Err(InputError {
                field,
                reason: "is not a filter of this list".into(),
            }),
            None => Ok(()),
        }
    }

    /// The filter of an accepted or conflicting events' list: newest
    /// first, one page from the cursor on. Handler, state, outcome and
    /// time do not apply there: given, they are refused, not ignored.
    pub fn to_event_filter(&self) -> Result<EventFilter, InputError> {
        self.only(EVENT_FIELDS)?;
        self.event_part()
    }

    fn event_part(&self) -> Result<EventFilter, InputError> {
        let f = DeadLetterFilters::parse(
            self.text("provider"),
            self.text("tenant"),
            None,
            self.text("event_id"),
        )?;
        Ok(EventFilter {
            provider: f.provider,
            tenant: f.tenant,
            event_id: f.event_id,
            event_type: self.event_type()?,
            before_id: self.before,
            limit: Some(PAGE),
        })
    }

    /// The filter of the requests' list (the verdict log): newest first,
    /// one page from the cursor on; handler and state refused.
    pub fn to_verdict_filter(&self) -> Result<VerdictFilter, InputError> {
        self.only(REQUEST_FIELDS)?;
        Ok(VerdictFilter {
            event: self.event_part()?,
            verdict: self
                .text("outcome")
                .map(|v| {
                    RequestVerdict::parse(v).ok_or_else(|| InputError {
                        field: "outcome",
                        reason: "expected accepted, duplicate, conflict or replay".into(),
                    })
                })
                .transpose()?,
            since_ms: self.text("since").map(|v| time("since", v)).transpose()?,
            until_ms: self.text("until").map(|v| time("until", v)).transpose()?,
        })
    }

    /// Whether any filter is set (the cursor aside).
    pub fn is_empty(&self) -> bool {
        TEXT_FIELDS
            .iter()
            .chain(SELECTS)
            .all(|n| self.text(n).is_none())
    }

    /// The query string of these filters, with `before` as the cursor.
    pub fn query(&self, before: Option<i64>) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for name in TEXT_FIELDS.iter().chain(SELECTS) {
            if let Some(v) = self.text(name) {
                q.append_pair(name, v);
            }
        }
        if let Some(list) = given(&self.list) {
            q.append_pair("list", list);
        }
        if let Some(b) = before {
            q.append_pair("before", &b.to_string());
        }
        q.finish()
    }

    /// The set filters as hidden fields (a confirmation's form).
    pub fn hidden(&self) -> Markup {
        html! {
            @for name in TEXT_FIELDS.iter().chain(SELECTS) {
                @if let Some(v) = self.text(name) {
                    input type="hidden" name=(name) value=(v);
                }
            }
        }
    }

    /// The filter form (GET to `action`) with the text `fields` of a list
    /// (one of `*_FIELDS`), and `select` if any (the deliveries' state, the
    /// requests' outcome).
    pub fn form(&self, action: &str, fields: &[&str], select: Option<Select>) -> Markup {
        html! {
            form.filters method="get" action=(action) aria-label="Filters" {
                @if let Some(list) = given(&self.list) { input type="hidden" name="list" value=(list); }
                @for name in TEXT_FIELDS.iter().filter(|f| fields.contains(f)) {
                    @let time = matches!(*name, "since" | "until");
                    label {
                        (name.replace('_', " ")) @if time { " (UTC)" }
                        // Text, not `datetime-local`: a browser's picker
                        // shows its own zone and format, and every time
                        // the console shows is UTC.
                        @if time {
                            input type="text" name=(name) value=(self.text(name).unwrap_or(""))
                                placeholder="2026-11-23T08:00" inputmode="numeric"
                                pattern=r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|\+\d{2}:\d{2}|-\d{2}:\d{2})?"
                                title="UTC, as the console shows times: 2026-11-23T08:00";
                        } @else {
                            input type="text" name=(name) value=(self.text(name).unwrap_or(""));
                        }
                    }
                }
                @if let Some((name, values)) = select {
                    label { (name)
                        select name=(name) {
                            option value="" { "any" }
                            @for v in values {
                                option value=(v) selected[self.text(name) == Some(*v)] { (v) }
                            }
                        }
                    }
                }
                button type="submit" { "Filter" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_into_a_newest_first_page_and_refuse_bad_values() {
        let f = Filters {
            tenant: Some("acme".into()),
            state: Some("dead".into()),
            since: Some("2026-11-23T08:00".into()),
            provider: Some("  ".into()),
            before: Some(40),
            ..Default::default()
        };
        let d = f.to_filter().unwrap();
        assert_eq!(d.tenant.as_deref(), Some("acme"));
        assert_eq!(d.provider, None, "blank is no filter");
        assert_eq!(d.state, Some(DeliveryState::Dead));
        assert_eq!(d.since_ms, Some(1_795_420_800_000));
        assert_eq!((d.before_id, d.newest_first), (Some(40), true));
        assert_eq!(
            f.query(Some(7)),
            "tenant=acme&since=2026-11-23T08%3A00&state=dead&before=7"
        );
        let bad = Filters {
            state: Some("lost".into()),
            ..Default::default()
        };
        assert_eq!(bad.to_filter().unwrap_err().field, "state");
        assert!(Filters::default().is_empty());
        // Times as the console shows them, and as an operator types them.
        for v in [
            "2026-11-23T08:00",
            "2026-11-23T08:00Z",
            "2026-11-23 08:00",
            "2026-11-23T08:00:00.000Z",
            "2026-11-23T09:00:00+01:00",
        ] {
            assert_eq!(time("since", v), Ok(1_795_420_800_000), "{v}");
        }
        assert_eq!(time("since", "2026-11-23"), Ok(1_795_392_000_000));
        assert!(time("since", "23/11/2026, 08:00").is_err());
        let spaced = Filters {
            event_id: Some(" evt 1 ".into()),
            ..Default::default()
        };
        assert_eq!(
            spaced.to_filter().unwrap().event_id.as_deref(),
            Some(" evt 1 "),
            "an event ID is taken as written"
        );
    }
}
