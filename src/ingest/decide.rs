//! The dedup protocol for one verified event:
//!
//! 1. **claim** its key atomically (absent -> IN_PROGRESS with an owner
//!    token and a short TTL; where nothing waits before the commit, the
//!    store may claim and commit in one step, `IngestStore::
//!    claim_committed`); another request's claim is `in_progress`
//!    (409), another body under its ID a `conflict`, its body already
//!    accepted under another ID (`replay_guard = "body"`) a suspected
//!    replay, **held**;
//! 2. under `ack = "handlers"`, **wait** for every handler's
//!    acknowledgement, releasing the claim if they do not all come;
//! 3. **commit**: the durable record, one pending delivery per handler and
//!    the key COMPLETED for the window, in one step, only if this request
//!    still owns the claim; on a store failure **release** it so the
//!    provider's retry is not blocked for `in_progress_ttl`;
//! 4. a conflict is **quarantined** (kept, never applied); a suspected
//!    replay is **held** (kept, never dropped).

use tracing::Instrument;

use super::acks::wait_for_acks;
use super::outcome::{Decided, Refusal, Status};
use super::Ingest;
use crate::config::AckMode;
use crate::provider::VerifiedWebhook;
use crate::store::{ClaimOutcome, CommitOutcome, OneStep, OwnerToken};

impl Ingest {
    /// Run the protocol for `ev`. Metrics count each claim's outcome here;
    /// the answer is counted by the caller.
    pub(super) async fn decide(&self, ev: VerifiedWebhook) -> Result<Decided, Refusal> {
        let store = &self.store;
        let provider = ev.provider().clone();
        let routed = crate::config::route(
            &self.settings.handlers,
            ev.provider_name(),
            ev.tenant(),
            ev.event_type(),
            || filter_request(&ev),
        );
        let handlers = routed.handlers;
        crash_point!("before_claim");
        // Unless something waits between them, the store may claim the key
        // and commit the event in one step.
        let waits = provider.ack == AckMode::Handlers && !handlers.is_empty();
        let claimed = async {
            let once = if waits {
                None
            } else {
                store
                    .claim_committed(&ev, provider.window, &handlers)
                    .await?
            };
            match once {
                Some(step) => Ok::<_, crate::store::StoreError>(step),
                None => store
                    .claim(&ev, self.settings.dedup.in_progress_ttl)
                    .await
                    .map(OneStep::Claim),
            }
        };
        let step = claimed
            .instrument(tracing::info_span!("dedup.claim"))
            .await?;
        self.count_claim(&ev, step);
        if matches!(
            step,
            OneStep::Claim(ClaimOutcome::Owned(_)) | OneStep::Commit(_)
        ) {
            // Counted once per event, not per retry of it.
            for name in &routed.filtered {
                self.metrics.filtered.with_label_values(&[name]).inc();
            }
        }
        let owner = match step {
            OneStep::Commit(committed) => return self.committed(ev, Ok(committed), None).await,
            OneStep::Claim(ClaimOutcome::Owned(owner)) => owner,
            OneStep::Claim(ClaimOutcome::Duplicate) => return Ok(decided(ev, Status::Duplicate)),
            OneStep::Claim(ClaimOutcome::InProgress { retry_after }) => {
                return Err(Refusal::InProgress { retry_after })
            }
            OneStep::Claim(ClaimOutcome::Conflict) => return Err(self.conflict(&ev).await),
            OneStep::Claim(ClaimOutcome::Replay) => return self.hold(ev).await,
        };
        crash_point!("after_claim");
        // Held until this function returns: the claim is completed or
        // released by then (or left to its TTL if a store failed).
        let _held = self.metrics.claims.hold();
        if waits {
            if let Err(refusal) = wait_for_acks(store, &ev, &handlers, provider.ack_timeout).await {
                // Not every handler acknowledged: give the key back so the
                // provider's retry is accepted; the deliveries stay queued,
                // and one already acknowledged is not made again. They keep
                // their body's digest, so a retry with another body is a
                // conflict, not an acceptance.
                self.give_up(&ev, &owner).await;
                return Err(match refusal {
                    Refusal::Conflict => self.conflict(&ev).await,
                    other => other,
                });
            }
        }
        delay_point!("before_commit");
        let committed = store
            .commit(&ev, &owner, provider.window, &handlers)
            .instrument(tracing::info_span!("store.commit"))
            .await;
        self.committed(ev, committed, Some(&owner)).await
    }

    /// Answer for a commit: its own, or the one made with the claim (no
    /// `owner` to give back then).
    async fn committed(
        &self,
        ev: VerifiedWebhook,
        committed: Result<CommitOutcome, crate::store::StoreError>,
        owner: Option<&OwnerToken>,
    ) -> Result<Decided, Refusal> {
        match committed {
            Ok(CommitOutcome::Accepted) => {
                // The store handed the deliveries to this process's workers,
                // or woke their lease loop for them (`store/handoff.rs`).
                crash_point!("after_completion");
                Ok(decided(ev, Status::Accepted))
            }
            Ok(CommitOutcome::Duplicate) => {
                // The key had gone while the durable record stayed: the
                // store rebuilt it from the record.
                self.metrics
                    .keys_repaired
                    .with_label_values(&[ev.provider_name()])
                    .inc();
                Ok(decided(ev, Status::Duplicate))
            }
            Ok(CommitOutcome::Conflict) => Err(self.conflict(&ev).await),
            Ok(CommitOutcome::Replay) => {
                // Redis had lost the body key; the durable record caught it.
                self.count_claim(&ev, OneStep::Claim(ClaimOutcome::Replay));
                self.hold(ev).await
            }
            // Our claim expired and another request owns the key: it will
            // answer for the event; this copy is retried.
            Ok(CommitOutcome::NotOwner) => {
                self.metrics
                    .stale_completions
                    .with_label_values(&[ev.provider_name()])
                    .inc();
                tracing::warn!(
                    event_id = ev.event_id().as_str(),
                    "claim expired before completion (a stale owner); the provider will retry"
                );
                Err(Refusal::InProgress {
                    retry_after: std::time::Duration::from_secs(1),
                })
            }
            Err(e) => {
                if let Some(owner) = owner {
                    self.give_up(&ev, owner).await;
                }
                Err(e.into())
            }
        }
    }

    fn count_claim(&self, ev: &VerifiedWebhook, step: OneStep) {
        let outcome = match step {
            OneStep::Claim(ClaimOutcome::Owned(_)) | OneStep::Commit(_) => "claimed",
            OneStep::Claim(ClaimOutcome::Duplicate) => "duplicate",
            OneStep::Claim(ClaimOutcome::InProgress { .. }) => "in_progress",
            OneStep::Claim(ClaimOutcome::Conflict) => "conflict",
            OneStep::Claim(ClaimOutcome::Replay) => "replay",
        };
        self.metrics
            .dedup
            .with_label_values(&[ev.provider_name(), outcome])
            .inc();
    }

    /// Give the key back so the provider's retry is not blocked for
    /// `in_progress_ttl`; if that fails too, the TTL frees it.
    async fn give_up(&self, ev: &VerifiedWebhook, owner: &OwnerToken) {
        if let Err(e) = self.store.release(ev, owner).await {
            tracing::warn!(
                event_id = ev.event_id().as_str(),
                error = %e.chain(),
                "could not release the claim"
            );
        }
    }

    /// Same ID, other content: keep the request aside and refuse it; if it
    /// cannot be kept, refuse it as a store failure so the provider tries
    /// again.
    async fn conflict(&self, ev: &VerifiedWebhook) -> Refusal {
        if let Err(e) = self
            .store
            .with_records("quarantine", |r| r.quarantine(ev))
            .await
        {
            return e.into();
        }
        tracing::warn!(
            event_id = ev.event_id().as_str(),
            "event ID reused with a different body; quarantined"
        );
        Refusal::Conflict
    }

    /// A body already accepted under another event ID (the provider signs
    /// the body but not the ID): a captured request resent under a fresh
    /// ID, or a real event that repeats a body. Either way it is kept, never
    /// dropped, and delivered only once an operator releases it.
    async fn hold(&self, ev: VerifiedWebhook) -> Result<Decided, Refusal> {
        self.store.with_records("hold", |r| r.hold(&ev)).await?;
        self.metrics
            .held
            .with_label_values(&[ev.provider_name(), "suspected_replay"])
            .inc();
        tracing::warn!(
            event_id = ev.event_id().as_str(),
            "body already accepted under another event ID; held as a suspected replay"
        );
        Ok(decided(ev, Status::Held))
    }
}

fn decided(ev: VerifiedWebhook, status: Status) -> Decided {
    Decided { ev, status }
}

/// The event as a handler's filter sees it: the headers kept from the
/// request (those a filter or `forward_headers` names, and the content
/// type), the body, the query string and the path it came to.
fn filter_request(ev: &VerifiedWebhook) -> crate::filter::Request {
    let content_type = ev.content_type().map(|t| ("content-type", t));
    let headers = ev
        .forwarded_headers()
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .chain(content_type);
    let path = crate::filter::Request::path_of(ev.provider_name(), ev.tenant().as_str());
    crate::filter::Request::new(headers, ev.body(), ev.query(), &path)
}
