//! An event as operators see it (`GET /admin/events/...`, `hookline events
//! show`): what its dedup record says, its `processed_event` row, its
//! deliveries with every attempt, its quarantined copies, and whether it is
//! held as a suspected replay.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::delivery::{AttemptView, DeliveryFilter, DeliveryView};
use super::types::{hex_bytes, DedupRecord, EventKey, HeldEvent, ProcessedEvent, QuarantinedCopy};
use super::{Store, StoreError};
use crate::ids::{EventId, HandlerName, ProviderName, TenantName};

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
    pub handler: HandlerName,
    /// Attempts made so far (0: not yet tried).
    pub attempts: u32,
    pub last_status: Option<u16>,
    pub last_error: Option<String>,
    pub recorded_at: String,
    /// When its next attempt is due, if it waits to be retried; `None`
    /// when it waits in the stream (due now, or being attempted).
    pub retry_at: Option<String>,
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

impl Store {
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
