//! The write lane: group commit on SQLite.
//!
//! Every write goes to one task, which takes whatever has queued up (at
//! most [`MAX_WRITES`]) and runs it in one transaction: one write lock, one
//! WAL sync for them all, where each used to be a transaction, and a sync,
//! of its own. When the lane is idle a lone write goes out at once, alone;
//! under load, the writes that arrive while a transaction runs form the
//! next one. What the writes are (the embedded store's claims, commits,
//! deliveries' records and delivery outcomes) is [`LaneWrite`]'s, in
//! `embedded/writes.rs`.
//!
//! A write that may take back what it wrote (a claim that finds its body
//! key held by another event) runs behind a savepoint of its own, rolled
//! back to if it does. A write that fails leaves the transaction in doubt:
//! it is rolled back, nothing of it kept, and its writes run again, each
//! alone, so one bad write cannot fail the others. A failure of the
//! transaction itself (the lock not granted, the commit failed) fails every
//! write in it, and each caller answers 503. Nobody is answered
//! before the transaction holding their write has committed, and what a
//! write leaves to hand over (the deliveries a commit leased to this
//! process's workers) is handed over only then.

use std::future::Future;

use sqlx::{Sqlite, SqliteConnection, SqlitePool, Transaction};
use tokio::sync::{mpsc, oneshot};

use crate::store::StoreError;

/// Writes per transaction, at most: the last of them waits for all the
/// others.
const MAX_WRITES: usize = 32;

/// One kind of write the lane runs.
pub(crate) trait LaneWrite: Sized + Send + Sync + 'static {
    /// A write's answer.
    type Answer: Send + 'static;
    /// What a write leaves to hand over once its transaction has
    /// committed; the default is nothing.
    type After: Default + Send + 'static;
    /// What every write of one lane shares.
    type Shared: Send + Sync + 'static;

    /// Names the operation in errors.
    fn op(&self) -> &'static str;

    /// Whether the write may have to take back what it wrote with no
    /// error ([`Done::undone`]).
    fn may_undo(&self) -> bool;

    /// Run the write in the open transaction.
    fn run(
        &self,
        tx: &mut SqliteConnection,
        shared: &Self::Shared,
    ) -> impl Future<Output = Result<Done<Self>, StoreError>> + Send;

    /// After the commit: hand over what the write left.
    fn hand_over(after: Self::After, shared: &Self::Shared);

    /// Before each transaction, on the lane's pool.
    fn between(pool: &SqlitePool, shared: &Self::Shared) -> impl Future<Output = ()> + Send;
}

/// What a write leaves: its answer, whether its statements are to be
/// undone, and what it has to hand over after the commit.
pub(crate) struct Done<W: LaneWrite> {
    pub(crate) answer: W::Answer,
    pub(crate) undo: bool,
    pub(crate) after: W::After,
}

impl<W: LaneWrite> Done<W> {
    /// The write stands (or wrote nothing).
    pub(crate) fn kept(answer: W::Answer, after: W::After) -> Self {
        Done {
            answer,
            undo: false,
            after,
        }
    }

    /// What the write wrote must be taken back: only a write that
    /// [`LaneWrite::may_undo`] answers so.
    pub(crate) fn undone(answer: W::Answer) -> Self {
        Done {
            answer,
            undo: true,
            after: W::After::default(),
        }
    }
}

struct Job<W: LaneWrite> {
    write: W,
    reply: oneshot::Sender<Result<W::Answer, StoreError>>,
}

/// The handle the store submits its writes to. Cloning it shares the task,
/// which ends when the last handle is dropped.
pub(crate) struct Lane<W: LaneWrite> {
    tx: mpsc::Sender<Job<W>>,
}

impl<W: LaneWrite> Clone for Lane<W> {
    fn clone(&self) -> Self {
        Lane {
            tx: self.tx.clone(),
        }
    }
}

impl<W: LaneWrite> std::fmt::Debug for Lane<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lane").field("tx", &self.tx).finish()
    }
}

impl<W: LaneWrite> Lane<W> {
    /// Start the lane over the store's one connection.
    pub(crate) fn start(pool: SqlitePool, shared: W::Shared) -> Self {
        let (tx, rx) = mpsc::channel(MAX_WRITES * 4);
        tokio::spawn(run::<W>(pool, rx, shared));
        Lane { tx }
    }

    /// Run `write` with whatever else is queued; its answer once the
    /// transaction holding it has committed.
    pub(crate) async fn write(&self, write: W) -> Result<W::Answer, StoreError> {
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

async fn run<W: LaneWrite>(pool: SqlitePool, mut rx: mpsc::Receiver<Job<W>>, shared: W::Shared) {
    while let Some(first) = rx.recv().await {
        W::between(&pool, &shared).await;
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
            write_all(&pool, jobs, &shared).await;
        }
    }
}

/// A write done in the open transaction, to answer once it commits.
struct Answered<W: LaneWrite> {
    job: Job<W>,
    answer: Result<W::Answer, StoreError>,
    after: W::After,
}

async fn write_all<W: LaneWrite>(pool: &SqlitePool, jobs: Vec<Job<W>>, shared: &W::Shared) {
    let alone = jobs.len() == 1;
    if let Err(jobs) = transaction(pool, jobs, alone, shared).await {
        // A write failed where only the whole transaction could undo it:
        // nothing was kept, and each write now runs alone.
        for job in jobs {
            let _ = transaction(pool, vec![job], true, shared).await;
        }
    }
}

/// Run `jobs` in one transaction and answer each. `Err` gives them back,
/// unanswered and with nothing kept, when one of them could not be taken
/// back alone (it failed, or a savepoint did) and `jobs` are not `alone`.
async fn transaction<W: LaneWrite>(
    pool: &SqlitePool,
    jobs: Vec<Job<W>>,
    alone: bool,
    shared: &W::Shared,
) -> Result<(), Vec<Job<W>>> {
    let mut tx = match pool.begin_with("BEGIN IMMEDIATE").await {
        Ok(tx) => tx,
        Err(e) => {
            fail(jobs, &e);
            return Ok(());
        }
    };
    let mut answered: Vec<Answered<W>> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        let step = one(&mut tx, &job.write, !alone && job.write.may_undo(), shared).await;
        match step {
            Ok(Step::Kept(answer, after)) => answered.push(Answered { job, answer, after }),
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
                W::hand_over(a.after, shared);
                let _ = a.job.reply.send(a.answer);
            }
        }
        Err(e) => fail(answered.into_iter().map(|a| a.job), &e),
    }
    Ok(())
}

/// How one write went in a shared transaction.
enum Step<W: LaneWrite> {
    /// Its answer (an error of its own is an answer too): what it wrote
    /// stands, or it wrote nothing, or its savepoint took it back.
    Kept(Result<W::Answer, StoreError>, W::After),
    /// What it wrote must go, and only the whole transaction can take it
    /// back.
    Undo(Result<W::Answer, StoreError>),
}

/// Run one write, behind a savepoint of its own if `savepoint`. `Err`: the
/// savepoint could not be set or rolled back to.
async fn one<W: LaneWrite>(
    tx: &mut Transaction<'static, Sqlite>,
    write: &W,
    savepoint: bool,
    shared: &W::Shared,
) -> Result<Step<W>, sqlx::Error> {
    if savepoint {
        sqlx::query("SAVEPOINT w").execute(&mut **tx).await?;
    }
    let answer = match write.run(tx, shared).await {
        Ok(done) if !done.undo => return Ok(Step::Kept(Ok(done.answer), done.after)),
        Ok(done) => Ok(done.answer),
        Err(e) => Err(e),
    };
    if savepoint {
        sqlx::query("ROLLBACK TO w").execute(&mut **tx).await?;
        Ok(Step::Kept(answer, W::After::default()))
    } else {
        Ok(Step::Undo(answer))
    }
}

/// Every write of a failed transaction fails, with its own operation.
fn fail<W: LaneWrite>(jobs: impl IntoIterator<Item = Job<W>>, e: &sqlx::Error) {
    for job in jobs {
        let _ = job.reply.send(Err(StoreError::shared(job.write.op(), e)));
    }
}
