//! Group commit: the PostgreSQL writes of concurrent requests share one
//! statement, and so one transaction and one WAL flush.
//!
//! Each write is handed to a task that takes whatever has queued up (at
//! most `max_rows`) and runs it as one statement. At most `in_flight` such
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
//! one write), so a lone request is never delayed.
//!
//! If a batch fails with an error from the database itself (bad data in one
//! write, a deadlock), its writes are retried one by one, so one bad write
//! cannot fail the others. Any other error (connection lost, pool
//! exhausted) fails every write of the batch, and each caller answers 503.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use tokio::sync::{mpsc, oneshot, Semaphore};

use crate::store::StoreError;

/// One kind of batched write.
pub(crate) trait Batch: Send + Sync + 'static {
    type Item: Send + Sync + 'static;
    type Out: Send + 'static;
    /// Names the operation in errors.
    const OP: &'static str;
    /// How long a batch waits for more writes once its first has arrived
    /// (and it is not full). Zero for writes a provider's answer waits on.
    const LINGER: Duration = Duration::ZERO;
    /// How long a batch waits for more writes while they come in company
    /// (the batch before it carried more than one), when `LINGER` is zero:
    /// under load, a little latency for fuller statements.
    const LINGER_UNDER_LOAD: Duration = Duration::ZERO;
    /// Run `items` as one atomic statement; one answer per item, in order.
    fn run(
        pool: &PgPool,
        items: &[Self::Item],
    ) -> impl Future<Output = Result<Vec<Self::Out>, sqlx::Error>> + Send;
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
    pub(crate) fn start(pool: PgPool, max_rows: usize, in_flight: usize) -> Self {
        let (tx, rx) = mpsc::channel(max_rows * in_flight * 4);
        tokio::spawn(batch_loop::<B>(pool, rx, max_rows.max(1), in_flight.max(1)));
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
    pool: PgPool,
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
        if !wait.is_zero() && jobs.len() < max_rows {
            linger(&mut rx, &mut jobs, max_rows, wait).await;
        }
        last_len = jobs.len();
        let pool = pool.clone();
        tokio::spawn(async move {
            execute::<B>(&pool, jobs).await;
            drop(slot);
        });
    }
}

/// Add to `jobs` what arrives within `wait`, up to `max_rows`.
async fn linger<B: Batch>(
    rx: &mut mpsc::Receiver<Job<B>>,
    jobs: &mut Vec<Job<B>>,
    max_rows: usize,
    wait: Duration,
) {
    let until = tokio::time::Instant::now() + wait;
    while jobs.len() < max_rows {
        match tokio::time::timeout_at(until, rx.recv()).await {
            Ok(Some(job)) => jobs.push(job),
            // The wait is over, or the last handle is gone: the loop
            // notices that on its next receive.
            Ok(None) | Err(_) => return,
        }
    }
}

async fn execute<B: Batch>(pool: &PgPool, jobs: Vec<Job<B>>) {
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
    match B::run(pool, &items).await {
        Ok(outs) => {
            debug_assert_eq!(outs.len(), replies.len());
            for (reply, out) in replies.into_iter().zip(outs) {
                let _ = reply.send(Ok(out));
            }
        }
        Err(sqlx::Error::Database(_)) if items.len() > 1 => {
            for (item, reply) in items.iter().zip(replies) {
                let one = B::run(pool, std::slice::from_ref(item))
                    .await
                    .map_err(StoreError::sqlx(B::OP))
                    .and_then(|outs| outs.into_iter().next().ok_or_else(|| no_answer::<B>()));
                let _ = reply.send(one);
            }
        }
        Err(e) => {
            for reply in replies {
                let _ = reply.send(Err(StoreError::shared(B::OP, &e)));
            }
        }
    }
}

fn no_answer<B: Batch>() -> StoreError {
    StoreError::internal(B::OP, "the statement returned no answer for a write")
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sqlx::postgres::PgPoolOptions;

    use super::*;

    /// Statements run, per test (each test has its own `K`).
    static STATEMENTS: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

    /// Divides 100 by each item, in the database: an item 0 fails the
    /// statement there (division by zero), like a bad row would.
    struct Divide<const K: usize>;

    impl<const K: usize> Batch for Divide<K> {
        type Item = i64;
        type Out = i64;
        const OP: &'static str = "divide";

        async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
            divide(pool, items, K, "").await
        }
    }

    /// One statement dividing 100 by each item, counted in `STATEMENTS[k]`;
    /// `pause` joins the rows (a `pg_sleep` to make it slow).
    async fn divide(
        pool: &PgPool,
        items: &[i64],
        k: usize,
        pause: &str,
    ) -> Result<Vec<i64>, sqlx::Error> {
        STATEMENTS[k].fetch_add(1, Ordering::SeqCst);
        let statement = format!(
            "SELECT 100 / x FROM unnest($1::int8[]) WITH ORDINALITY AS t(x, n){pause} ORDER BY n"
        );
        sqlx::query_scalar(&statement)
            .bind(items.to_vec())
            .fetch_all(pool)
            .await
    }

    /// [`Divide`] waiting for company, as outcomes do.
    struct Lingering;

    impl Batch for Lingering {
        type Item = i64;
        type Out = i64;
        const OP: &'static str = "divide";
        const LINGER: Duration = Duration::from_millis(300);

        async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
            Divide::<2>::run(pool, items).await
        }
    }

    /// [`Divide`] taking 100 ms a statement, waiting for company only
    /// under load, as a critical event's record does.
    struct UnderLoad;

    impl Batch for UnderLoad {
        type Item = i64;
        type Out = i64;
        const OP: &'static str = "divide";
        const LINGER_UNDER_LOAD: Duration = Duration::from_millis(300);

        async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
            divide(pool, items, 3, ", pg_sleep(0.1)").await
        }
    }

    async fn pool() -> PgPool {
        let url = std::env::var("HOOKLINE_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        PgPoolOptions::new()
            .max_connections(4)
            .connect(&url)
            .await
            .expect("connect to PostgreSQL")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_share_statements_and_each_gets_its_own_answer() {
        let writes = GroupCommit::<Divide<0>>::start(pool().await, 128, 1);
        let answers = futures::future::join_all((1..=50).map(|x| writes.submit(x as i64))).await;
        for (x, answer) in (1..=50).zip(answers) {
            assert_eq!(answer.unwrap(), 100 / x);
        }
        let statements = STATEMENTS[0].load(Ordering::SeqCst);
        // One statement in flight at a time: the first write goes alone and
        // the others queue behind it into a few shared statements.
        assert!(statements <= 10, "50 writes took {statements} statements");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_write_does_not_fail_the_others_in_its_batch() {
        let pool = pool().await;
        let (jobs, answers): (Vec<_>, Vec<_>) = [5i64, 0, 20, 4]
            .into_iter()
            .map(|item| {
                let (reply, answer) = oneshot::channel();
                (Job::<Divide<1>> { item, reply }, answer)
            })
            .unzip();
        execute::<Divide<1>>(&pool, jobs).await;
        // The batch failed as a whole, then each write ran alone.
        assert_eq!(STATEMENTS[1].load(Ordering::SeqCst), 1 + 4);
        let mut answers = answers.into_iter();
        assert_eq!(answers.next().unwrap().await.unwrap().unwrap(), 20);
        match answers.next().unwrap().await.unwrap() {
            // Division by zero is no outage: retrying cannot fix it.
            Err(e) if e.op() == "divide" && !e.is_retryable() => {}
            other => panic!("the bad write must fail on its own, got {other:?}"),
        }
        assert_eq!(answers.next().unwrap().await.unwrap().unwrap(), 5);
        assert_eq!(answers.next().unwrap().await.unwrap().unwrap(), 25);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lingering_write_waits_for_the_ones_that_follow_it() {
        let writes = GroupCommit::<Lingering>::start(pool().await, 128, 4);
        let started = tokio::time::Instant::now();
        // Five writes 20 ms apart, each of them alone when it is sent: with
        // four statements allowed in flight, without the wait each would
        // go out on its own.
        let sent: Vec<_> = (1..=5)
            .map(|x| {
                let writes = writes.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(20 * (x as u64 - 1))).await;
                    writes.submit(x).await
                })
            })
            .collect();
        for (x, answer) in (1..=5).zip(futures::future::join_all(sent).await) {
            assert_eq!(answer.unwrap().unwrap(), 100 / x);
        }
        assert_eq!(STATEMENTS[2].load(Ordering::SeqCst), 1, "one statement");
        assert!(
            started.elapsed() >= Lingering::LINGER,
            "the first write waited"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_waits_for_company_only_while_writes_come_in_company() {
        let writes = GroupCommit::<UnderLoad>::start(pool().await, 128, 1);
        let timed = |x: i64, after_ms: u64| {
            let writes = writes.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(after_ms)).await;
                let sent = tokio::time::Instant::now();
                let answer = writes.submit(x).await.unwrap();
                (answer, sent.elapsed())
            })
        };
        // A lone write goes out at once: its statement alone (100 ms).
        let (answer, took) = timed(1, 0).await.unwrap();
        assert_eq!(answer, 100);
        assert!(
            took < UnderLoad::LINGER_UNDER_LOAD,
            "a lone write waited: {took:?}"
        );
        // Three writes at once: the first goes alone, the two that queue
        // behind it share the next statement. That batch had company.
        let load = [timed(2, 0), timed(4, 50), timed(5, 50)];
        for (x, done) in [2, 4, 5]
            .into_iter()
            .zip(futures::future::join_all(load).await)
        {
            assert_eq!(done.unwrap().0, 100 / x);
        }
        assert_eq!(STATEMENTS[3].load(Ordering::SeqCst), 3);
        // So the next write waits for company, and one sent 100 ms after it
        // shares its statement.
        let (first, second) = (timed(10, 0), timed(20, 100));
        let (first, second) = (first.await.unwrap(), second.await.unwrap());
        assert_eq!((first.0, second.0), (10, 5));
        assert_eq!(
            STATEMENTS[3].load(Ordering::SeqCst),
            4,
            "one statement for both"
        );
        assert!(
            first.1 >= UnderLoad::LINGER_UNDER_LOAD,
            "it did not wait: {:?}",
            first.1
        );
    }
}
