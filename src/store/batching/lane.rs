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
//! The lane runs on a thread of its own. Each transaction takes the
//! store's one connection from the pool, locks SQLite's handle out of
//! sqlx's worker thread, and runs from `BEGIN` to `COMMIT` on the lane's
//! thread through `rusqlite`: one hand-off to sqlx's worker and back per
//! transaction, where each statement sent through sqlx costs one (a thread
//! put to sleep and woken on each side, the most of a statement's time on
//! a virtual machine's two cores: `bench/NOTES.md`, "The embedded store at
//! its maximum"). A write blocks that thread while it runs, and nothing
//! else.
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

use std::collections::VecDeque;
use std::future::Future;

use sqlx::SqlitePool;
use tokio::sync::{mpsc, oneshot};

use crate::store::StoreError;

/// Writes per transaction, at most: the last of them waits for all the
/// others.
const MAX_WRITES: usize = 32;

/// Places of a transaction kept for writes that are not urgent, when some
/// wait: when the lane is behind, the writes a request waits on go first
/// (a delivery's outcome can wait; the provider cannot), and yet the
/// outcomes go on (a quarter of each full transaction), so deliveries slow
/// down rather than stop (`bench/NOTES.md`, "Leasing ahead").
const LATER_SHARE: usize = MAX_WRITES / 4;

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

    /// Whether someone's answer waits on the write (the default). Writes
    /// that answer nobody outside (a delivery's outcome) give way to those
    /// when more are queued than a transaction takes (see [`LATER_SHARE`]).
    fn urgent(&self) -> bool {
        true
    }

    /// Run the write in the open transaction, on the lane's thread.
    fn run(
        &self,
        db: &rusqlite::Connection,
        shared: &Self::Shared,
    ) -> Result<Done<Self>, StoreError>;

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
    /// Start the lane, on a thread of its own, over the store's one
    /// connection.
    pub(crate) fn start(pool: SqlitePool, shared: W::Shared) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel(MAX_WRITES * 4);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("hookline-lane".into())
            .spawn(move || runtime.block_on(run::<W>(pool, rx, shared)))?;
        Ok(Lane { tx })
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
    // Writes taken from the channel for the next transactions, in arrival
    // order: those someone waits on, and those that can wait.
    let (mut urgent, mut later) = (VecDeque::new(), VecDeque::new());
    loop {
        if urgent.is_empty() && later.is_empty() {
            match rx.recv().await {
                Some(job) => sort(job, &mut urgent, &mut later),
                None => return,
            }
        }
        W::between(&pool, &shared).await;
        while urgent.len() < MAX_WRITES {
            match rx.try_recv() {
                Ok(job) => sort(job, &mut urgent, &mut later),
                Err(_) => break,
            }
        }
        let from_later = later
            .len()
            .min(LATER_SHARE.max(MAX_WRITES.saturating_sub(urgent.len())));
        let from_urgent = urgent.len().min(MAX_WRITES - from_later);
        let mut jobs: Vec<_> = urgent.drain(..from_urgent).collect();
        jobs.extend(later.drain(..from_later));
        // A caller that has given up (its store timeout passed, and it
        // answered 503) is not written for: the provider retries it.
        jobs.retain(|j| !j.reply.is_closed());
        if !jobs.is_empty() {
            write_all(&pool, jobs, &shared).await;
        }
    }
}

/// Put `job` with the urgent writes or the held-back ones.
fn sort<W: LaneWrite>(job: Job<W>, urgent: &mut VecDeque<Job<W>>, later: &mut VecDeque<Job<W>>) {
    if job.write.urgent() {
        urgent.push_back(job);
    } else {
        later.push_back(job);
    }
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
    let mut conn = match pool.acquire().await {
        Ok(conn) => conn,
        Err(e) => {
            fail(jobs, |op| StoreError::shared(op, &e));
            return Ok(());
        }
    };
    let mut handle = match conn.lock_handle().await {
        Ok(handle) => handle,
        Err(e) => {
            fail(jobs, |op| StoreError::shared(op, &e));
            return Ok(());
        }
    };
    // SAFETY: while `handle` lives, sqlx's worker thread makes no call on
    // this connection or on its statements. The `rusqlite::Connection`
    // made here does not close the connection, and it and the statements
    // it prepared are gone before `handle` is.
    #[allow(unsafe_code)]
    let db = unsafe { rusqlite::Connection::from_handle(handle.as_raw_handle().as_ptr()) };
    let db = match db {
        Ok(db) => db,
        Err(e) => {
            fail(jobs, |op| StoreError::shared_sqlite(op, &e));
            return Ok(());
        }
    };
    db.set_prepared_statement_cache_capacity(PREPARED);
    let ran = in_transaction(&db, jobs, alone, shared);
    drop(db);
    drop(handle);
    drop(conn);
    match ran {
        Ran::Committed(answered) => {
            for a in answered {
                W::hand_over(a.after, shared);
                let _ = a.job.reply.send(a.answer);
            }
        }
        Ran::Alone(job, answer) => {
            let _ = job.reply.send(answer);
        }
        Ran::Failed(jobs, e) => fail(jobs, |op| StoreError::shared_sqlite(op, &e)),
        Ran::Again(jobs) => return Err(jobs),
    }
    Ok(())
}

/// Statements kept prepared for one transaction, more than the writes use.
const PREPARED: usize = 32;

/// A write done in the open transaction, to answer once it commits.
struct Answered<W: LaneWrite> {
    job: Job<W>,
    answer: Result<W::Answer, StoreError>,
    after: W::After,
}

/// How a transaction went.
enum Ran<W: LaneWrite> {
    /// Committed: every write's answer, to give now.
    Committed(Vec<Answered<W>>),
    /// A write alone in its transaction, rolled back: its answer.
    Alone(Job<W>, Result<W::Answer, StoreError>),
    /// The transaction itself failed (not begun, not committed), or the
    /// one write alone in it did: each write fails with it.
    Failed(Vec<Job<W>>, rusqlite::Error),
    /// A write could not be taken back alone: nothing was kept, and each
    /// write is to run again alone.
    Again(Vec<Job<W>>),
}

/// The transaction, run on the lane's thread from `BEGIN` to `COMMIT`.
fn in_transaction<W: LaneWrite>(
    db: &rusqlite::Connection,
    jobs: Vec<Job<W>>,
    alone: bool,
    shared: &W::Shared,
) -> Ran<W> {
    if let Err(e) = db.execute_batch("BEGIN IMMEDIATE") {
        return Ran::Failed(jobs, e);
    }
    let mut answered: Vec<Answered<W>> = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        let step = one(db, &job.write, !alone && job.write.may_undo(), shared);
        match step {
            Ok(Step::Kept(answer, after)) => answered.push(Answered { job, answer, after }),
            // Its own transaction: rolling that back undoes it.
            Ok(Step::Undo(answer)) if alone => {
                rollback(db);
                return Ran::Alone(job, answer);
            }
            Err(e) if alone => {
                rollback(db);
                return Ran::Failed(vec![job], e);
            }
            Ok(Step::Undo(_)) | Err(_) => {
                rollback(db);
                let done = answered.into_iter().map(|a| a.job);
                return Ran::Again(done.chain(std::iter::once(job)).chain(jobs).collect());
            }
        }
    }
    match db.execute_batch("COMMIT") {
        Ok(()) => Ran::Committed(answered),
        Err(e) => {
            rollback(db);
            Ran::Failed(answered.into_iter().map(|a| a.job).collect(), e)
        }
    }
}

/// Nothing of the open transaction is kept. (After a failed `COMMIT`
/// SQLite may have rolled back already, and says so: not an error here.)
fn rollback(db: &rusqlite::Connection) {
    let _ = db.execute_batch("ROLLBACK");
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
fn one<W: LaneWrite>(
    db: &rusqlite::Connection,
    write: &W,
    savepoint: bool,
    shared: &W::Shared,
) -> Result<Step<W>, rusqlite::Error> {
    if savepoint {
        db.execute_batch("SAVEPOINT w")?;
    }
    let answer = match write.run(db, shared) {
        Ok(done) if !done.undo => return Ok(Step::Kept(Ok(done.answer), done.after)),
        Ok(done) => Ok(done.answer),
        Err(e) => Err(e),
    };
    if savepoint {
        db.execute_batch("ROLLBACK TO w")?;
        Ok(Step::Kept(answer, W::After::default()))
    } else {
        Ok(Step::Undo(answer))
    }
}

/// Every write of a failed transaction fails, with its own operation.
fn fail<W: LaneWrite>(
    jobs: impl IntoIterator<Item = Job<W>>,
    error: impl Fn(&'static str) -> StoreError,
) {
    for job in jobs {
        let _ = job.reply.send(Err(error(job.write.op())));
    }
}

#[cfg(test)]
mod tests;
