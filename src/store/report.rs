//! An event as operators see it (`GET /admin/events/...`, `hookline events
//! show`): what its dedup record says, its `processed_event` row, its
//! deliveries with every attempt, its quarantined copies, and whether it is
//! held as a suspected replay.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::delivery::{AttemptView, DeliveryFilter, DeliveryView};
use super::stream_entry::KeptAttempt;
use super::types::{hex_bytes, DedupRecord, EventKey, HeldEvent, ProcessedEvent, QuarantinedCopy};
use super::{Store, StoreError};
use crate::ids::{EventId, HandlerName, ProviderName, TenantName};
use crate::text::plural;

#[derive(Debug, Clone, Serialize)]
pub struct EventReport {
    pub provider: ProviderName,
    pub tenant: TenantName,
    pub event_id: EventId,
    /// The dedup record, and until when it is kept: for a non-critical
    /// event without handlers, the only record there is.
    pub dedup: DedupRecord,
    pub processed_event: Option<ProcessedSummary>,
    pub deliveries: Vec<DeliveryReport>,
    /// Its deliveries waiting in Redis Streams (a non-critical event's,
    /// with `store.non_critical_deliveries = "redis"`): they have no
    /// `delivery` row unless dead-lettered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waiting: Vec<StreamWaiting>,
    /// Requests that reused the event ID with another body.
    pub quarantined: Vec<QuarantinedCopy>,
    /// Held as a suspected replay (its body was accepted under another
    /// event ID): not delivered until released (`hookline events release`).
    pub held: Option<HeldEvent>,
}

/// A `processed_event` row: its digest and size, not the body.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessedSummary {
    pub event_type: String,
    #[serde(serialize_with = "hex_bytes")]
    pub body_sha256: Vec<u8>,
    pub body_bytes: usize,
    pub content_type: Option<String>,
    pub received_at: DateTime<Utc>,
}

impl From<ProcessedEvent> for ProcessedSummary {
    fn from(p: ProcessedEvent) -> Self {
        ProcessedSummary {
            event_type: p.event_type,
            body_sha256: p.body_sha256,
            body_bytes: p.body.len(),
            content_type: p.content_type,
            received_at: p.received_at,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DeliveryReport {
    pub delivery: DeliveryView,
    pub attempts: Vec<AttemptView>,
}

/// A non-critical event's delivery waiting in Redis Streams
/// (`store.non_critical_deliveries = "redis"`): it has no `delivery` row
/// until it is a dead letter.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StreamWaiting {
    pub provider: ProviderName,
    pub tenant: TenantName,
    pub event_id: String,
    pub event_type: String,
    pub handler: HandlerName,
    /// Attempts made so far (0: not yet tried).
    pub attempts: u32,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub recorded_at: String,
    /// When its next attempt is due, if it waits to be retried; `None`
    /// when it waits in the stream (due now, or being attempted).
    pub retry_at: Option<String>,
    /// The attempts its entry kept, oldest first (the last
    /// `KEPT_ATTEMPTS`).
    pub kept: Vec<KeptAttempt>,
}

/// The first deliveries waiting in Redis Streams that a filter matches,
/// oldest first, and how many wait in the streams it reads.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct WaitingList {
    pub shown: Vec<StreamWaiting>,
    /// Every delivery waiting in the streams and retry sets of the
    /// provider+tenant and handler pairs the filter names (its event ID
    /// and type are not applied to this count).
    pub waiting: u64,
}

/// A stream of deliveries in Redis that no configured handler reads (its
/// handler, tenant or provider was removed from the configuration), and
/// the deliveries waiting in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadStream {
    pub provider: String,
    pub tenant: String,
    pub handler: String,
    pub waiting: u64,
}

impl EventReport {
    /// Whether anything at all is recorded for the event.
    fn is_empty(&self) -> bool {
        self.dedup == DedupRecord::Absent
            && self.processed_event.is_none()
            && self.deliveries.is_empty()
            && self.waiting.is_empty()
            && self.quarantined.is_empty()
            && self.held.is_none()
    }
}

/// Why asking to deliver an event again requeued nothing, as the CLI and
/// the admin API tell the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NothingRequeued {
    /// Nothing is recorded for the event.
    NoRecord,
    /// Its deliveries (to the handler asked for) are queued already or
    /// being attempted, as rows.
    Queued(u64),
    /// They wait in Redis Streams.
    Waiting(u64),
    /// None was recorded: no handler matched it, or (`streamed`) its
    /// deliveries went through Redis Streams, which keep nothing of an
    /// event once its handlers acknowledged it.
    NoDelivery { streamed: bool },
}

impl NothingRequeued {
    /// Of `report` (`None`: nothing recorded), for `handler` or all;
    /// `streams`: whether non-critical deliveries go through Redis Streams.
    fn of(report: Option<&EventReport>, handler: Option<&HandlerName>, streams: bool) -> Self {
        let Some(r) = report else {
            return NothingRequeued::NoRecord;
        };
        let wanted = |h: &str| handler.is_none_or(|want| want.as_str() == h);
        let rows = r.deliveries.iter().filter(|d| wanted(&d.delivery.handler));
        let waiting = r.waiting.iter().filter(|w| wanted(w.handler.as_str()));
        match (rows.count() as u64, waiting.count() as u64) {
            (0, 0) => NothingRequeued::NoDelivery {
                streamed: streams && r.processed_event.is_none() && r.deliveries.is_empty(),
            },
            (0, n) => NothingRequeued::Waiting(n),
            (n, _) => NothingRequeued::Queued(n),
        }
    }

    /// Whether the operator asked for something that cannot be done (an
    /// error), rather than for what is under way already.
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            NothingRequeued::NoRecord | NothingRequeued::NoDelivery { .. }
        )
    }

    /// The sentence that says so, about `event` (and `handler`).
    pub fn explain(&self, event: &EventKey, handler: Option<&HandlerName>) -> String {
        let to = handler.map(|h| format!(" to {h}")).unwrap_or_default();
        match self {
            NothingRequeued::NoRecord => format!("no record of {event}: nothing to redeliver"),
            NothingRequeued::Queued(n) => format!(
                "{event} has {}{to} queued already or being attempted; they go out as they are",
                plural(*n, "delivery", "deliveries")
            ),
            NothingRequeued::Waiting(n) => format!(
                "{event} has {}{to} waiting in Redis Streams; they go out as they are",
                plural(*n, "delivery", "deliveries")
            ),
            NothingRequeued::NoDelivery { streamed: true } => format!(
                "{event} has no delivery{to} on record: a non-critical event's deliveries go through Redis Streams \
                 (store.non_critical_deliveries = \"redis\"), which keep nothing of it once its handlers \
                 acknowledged it, or no handler matched it when it was accepted; nothing to redeliver \
                 from (the provider can send it again; events marked critical keep their body)"
            ),
            NothingRequeued::NoDelivery { streamed: false } => match handler {
                Some(h) => format!(
                    "{event} has no delivery to {h}: the handler's events or tenants did not match it when it was accepted"
                ),
                None => format!(
                    "{event} has no delivery: no handler's events and tenants matched it when it was accepted"
                ),
            },
        }
    }
}

impl Store {
    /// Why redelivering `event` (to `handler`, or to all) requeued nothing.
    pub async fn nothing_requeued(
        &self,
        event: &EventKey,
        handler: Option<&HandlerName>,
    ) -> Result<NothingRequeued, StoreError> {
        let report = self.event_report(event).await?;
        Ok(NothingRequeued::of(
            report.as_ref(),
            handler,
            self.streams_deliveries(),
        ))
    }

    /// The report on one event; `None` when nothing is recorded for it.
    pub async fn event_report(&self, key: &EventKey) -> Result<Option<EventReport>, StoreError> {
        let filter = DeliveryFilter {
            provider: Some(key.provider.clone()),
            tenant: Some(key.tenant.clone()),
            event_id: Some(key.event_id.clone()),
            ..Default::default()
        };
        let mut deliveries = Vec::new();
        for delivery in self.with_records("list", |r| r.list(&filter)).await? {
            let attempts = self
                .with_records("attempts", |r| r.attempts(delivery.id))
                .await?;
            deliveries.push(DeliveryReport { delivery, attempts });
        }
        let report = EventReport {
            dedup: self.dedup_record(key).await?,
            processed_event: self
                .with_records("lookup", |r| r.processed_event(key))
                .await?
                .map(ProcessedSummary::from),
            deliveries,
            waiting: self.stream_waiting(key).await?,
            quarantined: self.with_records("lookup", |r| r.quarantined(key)).await?,
            held: self.with_records("lookup", |r| r.held(key)).await?,
            provider: key.provider.clone(),
            tenant: key.tenant.clone(),
            event_id: key.event_id.clone(),
        };
        Ok((!report.is_empty()).then_some(report))
    }
}
