//! Group commit: the PostgreSQL writes of concurrent requests share one
//! statement, and so one transaction and one WAL flush; the ends of stream
//! deliveries' holds share one Redis script call per stream.
//!
//! Each write is handed to a task that takes whatever has queued up (at
//! most `max_rows`) and runs it as one statement (a [`Batch`] says how, on
//! its [`Batch::Target`]). At most `in_flight` such
//! statements run at once, so a write never waits for a batch to fill: when
//! a connection is free, a lone write goes out at once, alone; under load,
//! the writes that arrive while statements are in flight form the next
//! batch. A batch is atomic; every write in it gets its own answer.
//!
//! A kind of write whose caller is not waiting for an answer to give
//! ([`Batch::LINGER`]: delivery outcomes, written after the handler has
//! answered) waits a little for company instead of going out alone: at
//! the rates of one node, this is what makes its writes share statements.
//! A kind a provider's answer waits on waits only under load
//! ([`Batch::LINGER_UNDER_LOAD`]: while the batch before carried more than
//! one write), so a lone request is never delayed. A waiting batch goes
//! out once it holds [`Batch::LINGER_ROWS`] writes, whatever is left of
//! its wait.
//!
//! If a batch fails with an error from the database itself (bad data in one
//! write, a deadlock: [`BatchError::one_write_failed`]), its writes are
//! retried one by one, so one bad write cannot fail the others. Any other
//! error (connection lost, pool exhausted) fails every write of the batch,
//! and each caller answers 503.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, Semaphore};

use crate::store::StoreError;

/// One kind of batched write.
pub(crate) trait Batch: Send + Sync + 'static {
    /// What a batch is written to (a pool, a Redis handle).
    type Target: Clone + Send + Sync + 'static;
    type Item: Send + Sync + 'static;
    type Out: Send + 'static;
    type Error: BatchError;
    /// Names the operation in errors.
    const OP: &'static str;
    /// How long a batch waits for more writes once its first has arrived
    /// (and it is not full). Zero for writes a provider's answer waits on.
    const LINGER: Duration = Duration::ZERO;
    /// How long a batch waits for more writes while they come in company
    /// (the batch before it carried more than one), when `LINGER` is zero:
    /// under load, a little latency for fuller statements.
    const LINGER_UNDER_LOAD: Duration = Duration::ZERO;
    /// A waiting batch goes out as soon as it holds this many writes. What
    /// waits for company may be holding something its writer needs back
    /// (a delivery worker's place for its outcome): once a statement's
    /// fixed cost is shared this widely, waiting longer only holds it.
    const LINGER_ROWS: usize = usize::MAX;
    /// Run `items` as one batch (for PostgreSQL one atomic statement); one
    /// answer per item, in order.
    fn run(
        target: &Self::Target,
        items: &[Self::Item],
    ) -> impl Future<Output = Result<Vec<Self::Out>, Self::Error>> + Send;
}

/// How a failed batch is answered.
pub(crate) trait BatchError: Send + 'static {
    /// The store refused what one of the writes holds (bad data, a
    /// deadlock), not the batch: each write is then run alone.
    fn one_write_failed(&self) -> bool;
    /// The error of a write run alone.
    fn alone(self, op: &'static str) -> StoreError;
    /// The same failure for every write of a failed batch.
    fn shared(&self, op: &'static str) -> StoreError;
}

impl BatchError for sqlx::Error {
    fn one_write_failed(&self) -> bool {
        matches!(self, sqlx::Error::Database(_))
    }
    fn alone(self, op: &'static str) -> StoreError {
        StoreError::sqlx(op)(self)
    }
    fn shared(&self, op: &'static str) -> StoreError {
        StoreError::shared(op, self)
    }
}

impl BatchError for StoreError {
    /// A batch whose errors are already the store's says per write what
    /// failed (the stream finishes answer per stream); a failure of the
    /// whole is not retried write by write (a Redis script that fails has
    /// written what it did before the failure: running its writes again
    /// alone would not undo that).
    fn one_write_failed(&self) -> bool {
        false
    }
    fn alone(self, _op: &'static str) -> StoreError {
        self
    }
    fn shared(&self, _op: &'static str) -> StoreError {
        self.copied()
    }
}

struct Job<B: Batch> {
    item: B::Item,
    reply: oneshot::Sender<Result<B::Out, StoreError>>,
}

/// The handle requests submit their writes to. Cloning it shares the task.
pub(crate) struct GroupCommit<B: Batch> {
    tx: mpsc::Sender<Job<B>>,
}

impl<B: Batch> Clone for GroupCommit<B> {
    fn clone(&self) -> Self {
        GroupCommit {
            tx: self.tx.clone(),
        }
    }
}

impl<B: Batch> std::fmt::Debug for GroupCommit<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").field("op", &B::OP).finish()
    }
}

impl<B: Batch> GroupCommit<B> {
    /// Start the batching task; it ends when the last handle is dropped.
    pub(crate) fn start(target: B::Target, max_rows: usize, in_flight: usize) -> Self {
        let (tx, rx) = mpsc::channel(max_rows * in_flight * 4);
        tokio::spawn(batch_loop::<B>(
            target,
            rx,
            max_rows.max(1),
            in_flight.max(1),
        ));
        GroupCommit { tx }
    }

    /// Write `item` with whatever else is queued, and return its answer
    /// once the statement holding it has committed.
    pub(crate) async fn submit(&self, item: B::Item) -> Result<B::Out, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Job { item, reply })
            .await
            .map_err(|_| stopped::<B>())?;
        answer.await.map_err(|_| stopped::<B>())?
    }
}

fn stopped<B: Batch>() -> StoreError {
    StoreError::Unavailable {
        op: B::OP,
        source: "the group-commit task has stopped".into(),
    }
}

async fn batch_loop<B: Batch>(
    target: B::Target,
    mut rx: mpsc::Receiver<Job<B>>,
    max_rows: usize,
    in_flight: usize,
) {
    let slots = Arc::new(Semaphore::new(in_flight));
    let mut last_len = 0;
    loop {
        // Wait for a free slot first: whatever queues meanwhile is the next
        // batch.
        let slot = slots.clone().acquire_owned().await.expect("never closed");
        let Some(first) = rx.recv().await else {
            return;
        };
        let mut jobs = vec![first];
        while jobs.len() < max_rows {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let wait = match B::LINGER.is_zero() && last_len > 1 {
            true => B::LINGER_UNDER_LOAD,
            false => B::LINGER,
        };
        let enough = max_rows.min(B::LINGER_ROWS);
        if !wait.is_zero() && jobs.len() < enough {
            linger(&mut rx, &mut jobs, enough, wait).await;
        }
        last_len = jobs.len();
        let target = target.clone();
        tokio::spawn(async move {
            execute::<B>(&target, jobs).await;
            drop(slot);
        });
    }
}

/// Add to `jobs` what arrives within `wait`, up to `enough`.
async fn linger<B: Batch>(
    rx: &mut mpsc::Receiver<Job<B>>,
    jobs: &mut Vec<Job<B>>,
    enough: usize,
    wait: Duration,
) {
    let until = tokio::time::Instant::now() + wait;
    while jobs.len() < enough {
        match tokio::time::timeout_at(until, rx.recv()).await {
            Ok(Some(job)) => jobs.push(job),
            // The wait is over, or the last handle is gone: the loop
            // notices that on its next receive.
            Ok(None) | Err(_) => return,
        }
    }
}

async fn execute<B: Batch>(target: &B::Target, jobs: Vec<Job<B>>) {
    // A caller that has given up (its store timeout passed, and it answered
    // 503) is not written for: the provider retries it.
    let (items, replies): (Vec<_>, Vec<_>) = jobs
        .into_iter()
        .filter(|j| !j.reply.is_closed())
        .map(|j| (j.item, j.reply))
        .unzip();
    if items.is_empty() {
        return;
    }
    match B::run(target, &items).await {
        Ok(outs) => {
            debug_assert_eq!(outs.len(), replies.len());
            for (reply, out) in replies.into_iter().zip(outs) {
                let _ = reply.send(Ok(out));
            }
        }
        Err(e) if items.len() > 1 && e.one_write_failed() => {
            for (item, reply) in items.iter().zip(replies) {
                let one = B::run(target, std::slice::from_ref(item))
                    .await
                    .map_err(|e| e.alone(B::OP))
                    .and_then(|outs| outs.into_iter().next().ok_or_else(|| no_answer::<B>()));
                let _ = reply.send(one);
            }
        }
        Err(e) => {
            for reply in replies {
                let _ = reply.send(Err(e.shared(B::OP)));
            }
        }
    }
}

fn no_answer<B: Batch>() -> StoreError {
    StoreError::internal(B::OP, "the statement returned no answer for a write")
}

#[cfg(test)]
mod tests;
