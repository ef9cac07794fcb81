//! Ingest: what happens to a verified event between its verification and
//! the answer to its provider. No HTTP here: the receiver maps what this
//! decides ([`Status`], [`Refusal`]) to 200, 409, 422 or 503, and the
//! operators' tools (`hookline events release`) run the same protocol.
//!
//! - `decide`: the dedup protocol for one event (claim, wait for acks,
//!   commit or release, quarantine, hold);
//! - `acks`: the wait of `ack = "handlers"`;
//! - `outcome`: what it decides;
//! - `release`: a held event released to the handlers by an operator.
//!
//! A batch (a definition's `batch`) is its items, each run through the
//! same protocol: its own key, record and deliveries.

mod acks;
mod decide;
mod outcome;
mod release;

use std::collections::HashSet;
use std::sync::Arc;

use futures::stream::{self, StreamExt};

pub use outcome::{BatchOutcome, Decided, Item, Refusal, Status};
pub use release::ReleaseError;

use crate::config::Settings;
use crate::metrics::Metrics;
use crate::provider::VerifiedWebhook;
use crate::store::listing::{RequestVerdict, VerdictEntry};
use crate::store::{now_ms, Store, VerdictLog};

/// Items of one batch decided at once: enough to overlap the store round
/// trips of a large Event Grid batch, few enough to leave the pools to
/// other requests.
const BATCH_CONCURRENCY: usize = 16;

/// The ingest side of a node: its settings, store and metrics. Cheap to
/// clone.
#[derive(Clone)]
pub struct Ingest {
    settings: Arc<Settings>,
    store: Store,
    metrics: Arc<Metrics>,
    /// Where each decided verdict goes (the console's Requests list).
    verdicts: Option<VerdictLog>,
}

impl Ingest {
    pub fn new(settings: Arc<Settings>, store: Store, metrics: Arc<Metrics>) -> Self {
        Ingest {
            settings,
            store,
            metrics,
            verdicts: None,
        }
    }

    /// Hand every verdict to `log` from now on.
    pub fn with_verdict_log(mut self, log: VerdictLog) -> Self {
        self.verdicts = Some(log);
        self
    }

    /// Decide one event, and hand its verdict to the verdict log:
    /// accepted, duplicate, held or conflict. Other refusals (in progress,
    /// a store failure) decided nothing about the event and are not logged.
    pub async fn event(&self, ev: VerifiedWebhook) -> Result<Decided, Refusal> {
        let Some(log) = &self.verdicts else {
            return self.decide(ev).await;
        };
        // Taken before the event moves on; written only if a verdict comes.
        let entry = VerdictEntry {
            provider: ev.provider_name().to_owned(),
            tenant: ev.tenant().to_string(),
            event_id: ev.event_id().to_string(),
            event_type: ev.event_type().to_string(),
            verdict: RequestVerdict::Conflict,
            body_sha256: ev.body_sha256().to_vec(),
            body_bytes: ev.body().len() as i64,
            received_ms: now_ms(),
        };
        let result = self.decide(ev).await;
        let verdict = match &result {
            Ok(d) => Some(match d.status {
                Status::Accepted => RequestVerdict::Accepted,
                Status::Duplicate => RequestVerdict::Duplicate,
                Status::Held => RequestVerdict::Replay,
            }),
            Err(Refusal::Conflict) => Some(RequestVerdict::Conflict),
            Err(_) => None,
        };
        if let Some(verdict) = verdict {
            log.record(VerdictEntry { verdict, ..entry });
        }
        result
    }

    /// Decide every item of a batch, each its own event. Items are decided
    /// concurrently, except that an ID repeated within the batch waits for
    /// its first copy (it is then that copy's duplicate, or a conflict),
    /// so two copies never race for one claim.
    pub async fn batch(&self, events: Vec<VerifiedWebhook>) -> BatchOutcome {
        let mut seen = HashSet::new();
        let (firsts, repeats): (Vec<_>, Vec<_>) = events
            .into_iter()
            .enumerate()
            .partition(|(_, ev)| seen.insert(ev.event_id().clone()));
        let mut items: Vec<(usize, Item)> = Vec::with_capacity(firsts.len() + repeats.len());
        for round in [firsts, repeats] {
            let decided: Vec<(usize, Item)> = stream::iter(round)
                .map(|(i, ev)| async move {
                    let event_id = ev.event_id().clone();
                    let result = self.event(ev).await.map(|d| d.status);
                    (i, Item { event_id, result })
                })
                .buffer_unordered(BATCH_CONCURRENCY)
                .collect()
                .await;
            items.extend(decided);
        }
        items.sort_unstable_by_key(|(i, _)| *i);
        BatchOutcome {
            items: items.into_iter().map(|(_, item)| item).collect(),
        }
    }
}
