//! What the embedded store's write lane (`batching/lane.rs`) runs: claims,
//! commits, deliveries' records and delivery outcomes, each in the lane's
//! shared transaction; and, between transactions, the checkpoint that
//! lets the WAL start over when `checkpoint.rs` asks for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::SqlitePool;

use super::deliveries::Inserted;
use super::{checkpoint, dedup, queue};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::batching::{self, LaneWrite};
use crate::store::delivery::Outcome;
use crate::store::handoff::Handoff;
use crate::store::types::{ClaimOutcome, CommitOutcome, OwnerToken, RecordOutcome};
use crate::store::StoreError;

/// One write the lane runs.
pub(super) enum Write {
    Claim {
        ev: VerifiedWebhook,
        owner: OwnerToken,
        ttl: Duration,
    },
    Commit {
        ev: VerifiedWebhook,
        owner: OwnerToken,
        window: Duration,
        handlers: Vec<HandlerName>,
    },
    /// A claim and, if it takes the key, the commit, in one write: nothing
    /// waits between them.
    ClaimCommit {
        ev: VerifiedWebhook,
        window: Duration,
        handlers: Vec<HandlerName>,
    },
    Record {
        ev: VerifiedWebhook,
        handlers: Vec<HandlerName>,
    },
    Outcome(Outcome),
}

/// A write's answer, of the same kind as the write.
#[derive(Debug)]
pub(super) enum Written {
    Claim(ClaimOutcome),
    Commit(CommitOutcome),
    Record(RecordOutcome),
    Outcome(bool),
}

/// What a write leaves: its answer, whether its statements are to be
/// undone, and the deliveries it leased to hand over after the commit.
pub(super) type Done = batching::Done<Write>;

/// The embedded store's lane.
pub(super) type Lane = batching::Lane<Write>;

/// What every write of the lane shares.
pub(super) struct Shared {
    /// Where the deliveries a commit leased go once it has committed.
    pub(super) handoff: Handoff,
    /// Set by `checkpoint.rs` when the lane is to checkpoint between
    /// transactions.
    pub(super) restart: Arc<AtomicBool>,
}

impl LaneWrite for Write {
    type Answer = Written;
    type After = Inserted;
    type Shared = Shared;

    fn op(&self) -> &'static str {
        match self {
            Write::Claim { .. } | Write::ClaimCommit { .. } => "claim",
            Write::Commit { .. } => "commit",
            Write::Record { .. } => "deliveries",
            Write::Outcome(_) => "finish",
        }
    }

    /// An outcome answers no request: it gives way to those.
    fn urgent(&self) -> bool {
        !matches!(self, Write::Outcome(_))
    }

    /// A claim that finds its body key held by another event takes back
    /// what it wrote, with no error.
    fn may_undo(&self) -> bool {
        match self {
            Write::Claim { ev, .. } | Write::ClaimCommit { ev, .. } => ev.guards_body(),
            _ => false,
        }
    }

    fn run(&self, db: &rusqlite::Connection, shared: &Shared) -> Result<Done, StoreError> {
        let handoff = &shared.handoff;
        match self {
            Write::Claim { ev, owner, ttl } => dedup::claim(db, ev, *owner, *ttl),
            Write::Commit {
                ev,
                owner,
                window,
                handlers,
            } => dedup::commit(db, ev, owner, *window, handlers, handoff),
            Write::ClaimCommit {
                ev,
                window,
                handlers,
            } => dedup::claim_committed(db, ev, *window, handlers, handoff),
            Write::Record { ev, handlers } => dedup::record_pending(db, ev, handlers, handoff),
            Write::Outcome(outcome) => queue::record(db, outcome)
                .map(|owned| Done::kept(Written::Outcome(owned), Inserted::none()))
                .map_err(StoreError::sqlite("finish")),
        }
    }

    /// Hand the leased deliveries to the workers, and wake the lease loop
    /// for the others.
    fn hand_over(after: Inserted, shared: &Shared) {
        after.hand_over(&shared.handoff);
    }

    /// Checkpoint when `checkpoint.rs` asked for it.
    async fn between(pool: &SqlitePool, shared: &Shared) {
        if shared.restart.swap(false, Ordering::Relaxed) {
            restart_log(pool, &shared.restart).await;
        }
    }
}

/// Copy what is left of the WAL into the file, so that the next
/// transaction starts the log over. Busy (the background checkpoint is
/// running): asked again before the next transaction.
async fn restart_log(pool: &SqlitePool, restart: &AtomicBool) {
    let done = match pool.acquire().await {
        Ok(mut conn) => checkpoint::passive(&mut conn).await,
        Err(e) => Err(e),
    };
    match done {
        Ok(log) if !log.busy && log.copied == log.pages => {}
        Ok(_) => restart.store(true, Ordering::Relaxed),
        Err(e) => {
            tracing::warn!(error = %e, "embedded store: checkpoint to restart the log failed");
            restart.store(true, Ordering::Relaxed);
        }
    }
}
