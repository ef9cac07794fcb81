//! The embedded store's write lane: group commit on SQLite.
//!
//! Every claim, commit, deliveries' record and delivery outcome goes to one
//! task, which takes whatever has queued up (at most [`MAX_WRITES`]) and
//! runs it in one transaction: one write lock, one WAL sync for them all,
//! where each used to be a transaction, and a sync, of its own. When the
//! lane is idle a lone write goes out at once, alone; under load, the
//! writes that arrive while a transaction runs form the next one.
//!
//! A write that may take back what it wrote (a claim that finds its body
//! key held by another event) runs behind a savepoint of its own, rolled
//! back to if it does. A write that fails leaves the transaction in doubt:
//! it is rolled back, nothing of it kept, and its writes run again, each
//! alone, so one bad write cannot fail the others. A failure of the
//! transaction itself (the lock not granted, the commit failed) fails every
//! write in it, and each caller answers 503. Nobody is answered
//! before the transaction holding their write has committed, and the
//! deliveries a commit leased to this process's workers are handed over
//! only then.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::{Sqlite, SqliteConnection, SqlitePool, Transaction};
use tokio::sync::{mpsc, oneshot};

use super::deliveries::Inserted;
use super::{checkpoint, dedup, queue};
use crate::provider::VerifiedWebhook;
use crate::store::delivery::Outcome;
use crate::store::handoff::Handoff;
use crate::store::types::{ClaimOutcome, CommitOutcome, OwnerToken, RecordOutcome};
use crate::store::StoreError;

/// Writes per transaction, at most: the last of them waits for all the
/// others.
const MAX_WRITES: usize = 32;

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
        handlers: Vec<String>,
    },
    Record {
        ev: VerifiedWebhook,
        handlers: Vec<String>,
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
pub(super) struct Done {
    pub(super) answer: Written,
    pub(super) undo: bool,
    pub(super) inserted: Inserted,
}

impl Done {
    /// The write stands (or wrote nothing).
    pub(super) fn kept(answer: Written, inserted: Inserted) -> Self {
        Done {
            answer,
            undo: false,
            inserted,
        }
    }

    /// What the write wrote must be taken back: only a write that
    /// [`Write::may_undo`] answers so.
    pub(super) fn undone(answer: Written) -> Self {
        Done {
            answer,
            undo: true,
            inserted: Inserted::none(),
        }
    }
}

impl Write {
    /// Whether the write may have to take back what it wrote with no
    /// error ([`Done::undone`]): a claim that finds its body key held by
    /// another event.
    fn may_undo(&self) -> bool {
        matches!(self, Write::Claim { ev, .. } if ev.guards_body())
    }

    fn op(&self) -> &'static str {
        match self {
            Write::Claim { .. } => "claim",
            Write::Commit { .. } => "commit",
            Write::Record { .. } => "deliveries",
            Write::Outcome(_) => "finish",
        }
    }

    async fn run(&self, tx: &mut SqliteConnection, handoff: &Handoff) -> Result<Done, StoreError> {
        match self {
            Write::Claim { ev, owner, ttl } => dedup::claim(tx, ev, *owner, *ttl).await,
            Write::Commit {
                ev,
                owner,
                window,
                handlers,
            } => dedup::commit(tx, ev, owner, *window, &names(handlers), handoff).await,
            Write::Record { ev, handlers } => {
                dedup::record_pending(tx, ev, &names(handlers), handoff).await
            }
            Write::Outcome(outcome) => queue::record(tx, outcome)
                .await
                .map(|owned| Done::kept(Written::Outcome(owned), Inserted::none()))
                .map_err(StoreError::sqlx("finish")),
        }
    }
}

fn names(handlers: &[String]) -> Vec<&str> {
    handlers.iter().map(String::as_str).collect()
}

struct Job {
    write: Write,
    reply: oneshot::Sender<Result<Written, StoreError>>,
}

/// The handle the store submits its writes to. Cloning it shares the task,
/// which ends when the last handle is dropped.
#[derive(Debug, Clone)]
pub(super) struct Lane {
    tx: mpsc::Sender<Job>,
}

impl Lane {
    /// Start the lane over the store's one connection; it checkpoints
    /// between transactions when `restart` is set (`checkpoint.rs`).
    pub(super) fn start(pool: SqlitePool, handoff: Handoff, restart: Arc<AtomicBool>) -> Self {
        let (tx, rx) = mpsc::channel(MAX_WRITES * 4);
        tokio::spawn(run(pool, rx, handoff, restart));
        Lane { tx }
    }

    /// Run `write` with whatever else is queued; its answer once the
    /// transaction holding it has committed.
    pub(super) async fn write(&self, write: Write) -> Result<Written, StoreError> {
        let op = write.op();
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Job { write, reply })
            .await
            .map_err(|_| stopped(op))?;
        answer.await.map_err(|_| stopped(op))?
    }
}

fn stopped(op: &'static str) -> StoreError {
    StoreError::Unavailable {
        op,
        source: "the embedded store's write lane has stopped".into(),
    }
}

async fn run(
    pool: SqlitePool,
    mut rx: mpsc::Receiver<Job>,
    handoff: Handoff,
    restart: Arc<AtomicBool>,
) {
    while let Some(first) = rx.recv().await {
        if restart.swap(false, Ordering::Relaxed) {
            restart_log(&pool, &restart).await;
        }
        let mut jobs = vec![first];
        while jobs.len() < MAX_WRITES {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        // A caller that has given up (its store timeout passed, and it
        // answered 503) is not written for: the provider retries it.
        jobs.retain(|j| !j.reply.is_closed());
        if !jobs.is_empty() {
            write_all(&pool, jobs, &handoff).await;
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

/// A write done in the open transaction, to answer once it commits.
struct Answered {
    job: Job,
    answer: Result<Written, StoreError>,
    inserted: Inserted,
}

async fn write_all(pool: &SqlitePool, jobs: Vec<Job>, handoff: &Handoff) {
    let alone = jobs.len() == 1;
    if let Err(jobs) = transaction(pool, jobs, alone, handoff).await {
        // A write failed where only the whole transaction could undo it:
        // nothing was kept, and each write now runs alone.
        for job in jobs {
            let _ = transaction(pool, vec![job], true, handoff).await;
        }
    }
}

/// Run `jobs` in one transaction and answer each. `Err` gives them back,
/// unanswered and with nothing kept, when one of them could not be taken
/// back alone (it failed, or a savepoint did) and `jobs` are not `alone`.
async fn transaction(
    pool: &SqlitePool,
    jobs: Vec<Job>,
    alone: bool,
    handoff: &Handoff,
) -> Result<(), Vec<Job>> {
    let mut tx = match pool.begin_with("BEGIN IMMEDIATE").await {
        Ok(tx) => tx,
        Err(e) => {
            fail(jobs, &e);
            return Ok(());
        }
    };
    let mut answered: Vec<Answered> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        let step = one(&mut tx, &job.write, !alone && job.write.may_undo(), handoff).await;
        match step {
            Ok(Step::Kept(answer, inserted)) => answered.push(Answered {
                job,
                answer,
                inserted,
            }),
            // Its own transaction: rolling that back undoes it.
            Ok(Step::Undo(answer)) if alone => {
                drop(tx);
                let _ = job.reply.send(answer);
                return Ok(());
            }
            Err(e) if alone => {
                drop(tx);
                fail([job], &e);
                return Ok(());
            }
            Ok(Step::Undo(_)) | Err(_) => {
                drop(tx);
                let done = answered.into_iter().map(|a| a.job);
                return Err(done.chain(std::iter::once(job)).chain(jobs).collect());
            }
        }
    }
    match tx.commit().await {
        Ok(()) => {
            for a in answered {
                a.inserted.hand_over(handoff);
                let _ = a.job.reply.send(a.answer);
            }
        }
        Err(e) => fail(answered.into_iter().map(|a| a.job), &e),
    }
    Ok(())
}

/// How one write went in a shared transaction.
enum Step {
    /// Its answer (an error of its own is an answer too): what it wrote
    /// stands, or it wrote nothing, or its savepoint took it back.
    Kept(Result<Written, StoreError>, Inserted),
    /// What it wrote must go, and only the whole transaction can take it
    /// back.
    Undo(Result<Written, StoreError>),
}

/// Run one write, behind a savepoint of its own if `savepoint`. `Err`: the
/// savepoint could not be set or rolled back to.
async fn one(
    tx: &mut Transaction<'static, Sqlite>,
    write: &Write,
    savepoint: bool,
    handoff: &Handoff,
) -> Result<Step, sqlx::Error> {
    if savepoint {
        sqlx::query("SAVEPOINT w").execute(&mut **tx).await?;
    }
    let answer = match write.run(tx, handoff).await {
        Ok(done) if !done.undo => return Ok(Step::Kept(Ok(done.answer), done.inserted)),
        Ok(done) => Ok(done.answer),
        Err(e) => Err(e),
    };
    if savepoint {
        sqlx::query("ROLLBACK TO w").execute(&mut **tx).await?;
        Ok(Step::Kept(answer, Inserted::none()))
    } else {
        Ok(Step::Undo(answer))
    }
}

/// Every write of a failed transaction fails, with its own operation.
fn fail(jobs: impl IntoIterator<Item = Job>, e: &sqlx::Error) {
    for job in jobs {
        let _ = job.reply.send(Err(StoreError::shared(job.write.op(), e)));
    }
}
