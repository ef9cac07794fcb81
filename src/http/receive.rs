//! A verified event POSTed to `/webhooks/{provider}[/{tenant}]`: captured,
//! claimed, recorded, and answered `200` only once it is recorded
//! (`accepted`, or `duplicate` with `Webhook-Duplicate: true`).

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;

use super::problem::ApiError;
use super::AppState;
use crate::config::{AckMode, Provider};
use crate::provider::VerifiedWebhook;
use crate::store::delivery::{DeliveryFilter, DeliveryState};
use crate::store::listing::{RequestVerdict, VerdictEntry};
use crate::store::{now_ms, ClaimOutcome, CommitOutcome, RecordOutcome, Store};

/// How often `ack = "handlers"` looks at the deliveries while it waits.
const ACK_POLL: Duration = Duration::from_millis(20);

/// An event that was recorded, or a duplicate of one.
pub(super) struct Accepted {
    pub ev: VerifiedWebhook,
    pub duplicate: bool,
    /// Its body was accepted under another event ID (answered duplicate).
    pub replay: bool,
}

#[derive(Serialize)]
struct AcceptedBody<'a> {
    status: &'a str,
    provider: &'a str,
    tenant: &'a str,
    event_id: &'a str,
}

impl Accepted {
    /// `accepted` or `duplicate`: the answer's `status`, and the metrics'
    /// `outcome`.
    pub fn status(&self) -> &'static str {
        if self.duplicate {
            "duplicate"
        } else {
            "accepted"
        }
    }

    pub fn response(&self) -> HttpResponse {
        let mut res = HttpResponse::Ok();
        if self.duplicate {
            res.insert_header(("Webhook-Duplicate", "true"));
        }
        res.json(AcceptedBody {
            status: self.status(),
            provider: self.ev.provider_name(),
            tenant: self.ev.tenant(),
            event_id: self.ev.event_id(),
        })
    }
}

fn accepted(ev: VerifiedWebhook, duplicate: bool) -> Result<Accepted, ApiError> {
    Ok(Accepted {
        ev,
        duplicate,
        replay: false,
    })
}

/// [`decide`], and its verdict handed to the verdict log: accepted,
/// duplicate, replay or conflict. Other answers (`in_progress`, a store
/// failure) decided nothing about the event and are only counted.
pub(super) async fn accept(
    req: &HttpRequest,
    state: &AppState,
    provider: &Arc<Provider>,
    ev: VerifiedWebhook,
) -> Result<Accepted, ApiError> {
    let Some(log) = &state.verdicts else {
        return decide(req, state, provider, ev).await;
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
    let result = decide(req, state, provider, ev).await;
    match &result {
        Ok(a) => log.record(VerdictEntry {
            verdict: match (a.replay, a.duplicate) {
                (true, _) => RequestVerdict::Replay,
                (false, true) => RequestVerdict::Duplicate,
                (false, false) => RequestVerdict::Accepted,
            },
            ..entry
        }),
        Err(ApiError::Conflict) => log.record(entry),
        Err(_) => {}
    }
    result
}

/// Capture, claim, record (waiting for the handlers under `ack =
/// "handlers"`), complete.
async fn decide(
    req: &HttpRequest,
    state: &AppState,
    provider: &Arc<Provider>,
    ev: VerifiedWebhook,
) -> Result<Accepted, ApiError> {
    let settings = &state.settings;
    if let Some(capture) = &state.capture {
        capture.write(req, &ev).await;
    }
    let store = &state.store;
    let handlers = crate::config::matching_handlers(
        &settings.handlers,
        ev.provider_name(),
        ev.tenant(),
        ev.event_type(),
    );
    crash_point!("before_claim");
    // A non-critical event no handler wants: its dedup record is all there
    // is to write, and the store may claim and complete it in one step.
    let fast = if handlers.is_empty() && !ev.is_critical() {
        store.claim_recorded(&ev, provider.window).await?
    } else {
        None
    };
    let claim = match fast {
        Some(claim) => claim,
        None => store.claim(&ev, settings.dedup.in_progress_ttl).await?,
    };
    let dedup_outcome = match claim {
        ClaimOutcome::Owned(_) | ClaimOutcome::Recorded => "claimed",
        ClaimOutcome::Duplicate => "duplicate",
        ClaimOutcome::InProgress { .. } => "in_progress",
        ClaimOutcome::Conflict => "conflict",
        ClaimOutcome::Replay => "replay",
    };
    state
        .metrics
        .dedup
        .with_label_values(&[ev.provider_name(), dedup_outcome])
        .inc();
    let owner = match claim {
        ClaimOutcome::Owned(owner) => owner,
        ClaimOutcome::Recorded => return accepted(ev, false),
        ClaimOutcome::Duplicate => return accepted(ev, true),
        ClaimOutcome::InProgress { retry_after } => {
            return Err(ApiError::InProgress { retry_after })
        }
        ClaimOutcome::Conflict => return conflict(store, ev).await,
        ClaimOutcome::Replay => return replayed(ev),
    };
    crash_point!("after_claim");
    // Held until this function returns: the claim is completed or released
    // by then (or left to its TTL if a store failed).
    let _held = state.metrics.claims.hold();
    if provider.ack == AckMode::Handlers && !handlers.is_empty() {
        if let Err(e) = wait_for_acks(state, &ev, &handlers, provider.ack_timeout).await {
            // Not every handler acknowledged in time: give the key back so
            // the provider's retry is accepted; the deliveries stay queued,
            // and one already acknowledged is not made again. They keep
            // their body's digest, so a retry with another body is a
            // conflict, not an acceptance.
            if let Err(release) = store.release(&ev, &owner).await {
                tracing::warn!(error = %release.chain(), "could not release the claim");
            }
            return match e {
                ApiError::Conflict => conflict(store, ev).await,
                e => Err(e),
            };
        }
    }
    delay_point!("before_commit");
    match store.commit(&ev, &owner, provider.window, &handlers).await {
        Ok(CommitOutcome::Accepted) => {
            // The store handed the deliveries to this process's workers,
            // or woke their lease loop for them (`store/handoff.rs`).
            crash_point!("after_completion");
            accepted(ev, false)
        }
        Ok(CommitOutcome::Duplicate) => {
            // The key had gone while the durable record stayed: the store
            // rebuilt it from the record.
            state
                .metrics
                .keys_repaired
                .with_label_values(&[ev.provider_name()])
                .inc();
            accepted(ev, true)
        }
        Ok(CommitOutcome::Conflict) => conflict(store, ev).await,
        Ok(CommitOutcome::Replay) => {
            // Redis had lost the body key; the durable record caught it.
            state
                .metrics
                .dedup
                .with_label_values(&[ev.provider_name(), "replay"])
                .inc();
            replayed(ev)
        }
        // Our claim expired and another request owns the key: it will
        // answer for the event; this copy is retried.
        Ok(CommitOutcome::NotOwner) => {
            state
                .metrics
                .stale_completions
                .with_label_values(&[ev.provider_name()])
                .inc();
            tracing::warn!(
                event_id = ev.event_id().as_str(),
                "claim expired before completion (a stale owner); the provider will retry"
            );
            Err(ApiError::InProgress {
                retry_after: Duration::from_secs(1),
            })
        }
        Err(e) => {
            // Give the key back so the provider's retry is not blocked for
            // in_progress_ttl; if that fails too, the TTL frees it.
            if let Err(release) = store.release(&ev, &owner).await {
                tracing::warn!(error = %release.chain(), "could not release the claim");
            }
            Err(e.into())
        }
    }
}

/// A body already accepted under another event ID (the provider signs the
/// body but not the ID): a captured request resent under a fresh ID. It is
/// answered as the duplicate it is, and nothing is delivered.
fn replayed(ev: VerifiedWebhook) -> Result<Accepted, ApiError> {
    tracing::info!(
        event_id = ev.event_id().as_str(),
        "body already accepted under another event ID; answered duplicate"
    );
    Ok(Accepted {
        ev,
        duplicate: true,
        replay: true,
    })
}

/// `ack = "handlers"`: record the deliveries, wake the workers, and wait
/// until every one of them is acknowledged, or the deadline passes. The
/// event's deliveries already carrying another body (an earlier request
/// under this ID, whose claim was released) is a [`ApiError::Conflict`].
async fn wait_for_acks(
    state: &AppState,
    ev: &VerifiedWebhook,
    handlers: &[&str],
    deadline: Duration,
) -> Result<(), ApiError> {
    if state.store.record_pending(ev, handlers).await? == RecordOutcome::Conflict {
        return Err(ApiError::Conflict);
    }
    crash_point!("after_delivery_record");
    let filter = DeliveryFilter {
        provider: Some(ev.provider_name().to_owned()),
        tenant: Some(ev.tenant().to_string()),
        event_id: Some(ev.event_id().to_string()),
        ..Default::default()
    };
    // A deadline too far to add (the config takes any duration) is "never".
    let now = tokio::time::Instant::now();
    let until = now
        .checked_add(deadline)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600));
    loop {
        let rows = state.store.list_deliveries(&filter).await?;
        let acknowledged = handlers.iter().all(|h| {
            rows.iter()
                .any(|d| d.handler == *h && d.state == DeliveryState::Delivered)
        });
        if acknowledged {
            return Ok(());
        }
        if tokio::time::Instant::now() >= until {
            return Err(ApiError::NotAcknowledged);
        }
        tokio::time::sleep(ACK_POLL).await;
    }
}

/// Same ID, different body: keep the request aside and answer 422; if it
/// cannot be kept, answer 503 so the provider tries again.
async fn conflict(store: &Store, ev: VerifiedWebhook) -> Result<Accepted, ApiError> {
    store.quarantine(&ev).await?;
    tracing::warn!(
        event_id = ev.event_id().as_str(),
        "event ID reused with a different body; quarantined"
    );
    Err(ApiError::Conflict)
}
