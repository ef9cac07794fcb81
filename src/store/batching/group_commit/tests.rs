//! Group commit against a real PostgreSQL: batching, one answer per
//! write, a bad write alone, and the waits for company.

use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

use super::*;

/// Statements run, per test (each test has its own `K`).
static STATEMENTS: [AtomicUsize; 6] = [const { AtomicUsize::new(0) }; 6];

/// Divides 100 by each item, in the database: an item 0 fails the
/// statement there (division by zero), like a bad row would.
struct Divide<const K: usize>;

impl<const K: usize> Batch for Divide<K> {
    type Target = PgPool;
    type Error = sqlx::Error;
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
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = i64;
    type Out = i64;
    const OP: &'static str = "divide";
    const LINGER: Duration = Duration::from_millis(300);

    async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
        Divide::<2>::run(pool, items).await
    }
}

/// [`Divide`] waiting long for company, but only until three writes
/// share the statement.
struct LingeringForThree;

impl Batch for LingeringForThree {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = i64;
    type Out = i64;
    const OP: &'static str = "divide";
    const LINGER: Duration = Duration::from_secs(10);
    const LINGER_ROWS: usize = 3;

    async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
        Divide::<4>::run(pool, items).await
    }
}

/// [`Divide`] taking 100 ms a statement, waiting for company only
/// under load, as a critical event's record does.
struct UnderLoad;

impl Batch for UnderLoad {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = i64;
    type Out = i64;
    const OP: &'static str = "divide";
    // Far above the statement's 100 ms: a lone write's first statement
    // (a new connection's first prepare) took 755 ms in CI with the whole
    // suite running, which a 300 ms wait could not tell from lingering.
    const LINGER_UNDER_LOAD: Duration = Duration::from_secs(2);

    async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
        divide(pool, items, 3, ", pg_sleep(0.1)").await
    }
}

/// [`UnderLoad`], but going out once three writes share the statement,
/// as a critical event's record does once full enough.
struct UnderLoadForThree;

impl Batch for UnderLoadForThree {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = i64;
    type Out = i64;
    const OP: &'static str = "divide";
    const LINGER_UNDER_LOAD: Duration = Duration::from_secs(10);
    const LINGER_ROWS: usize = 3;

    async fn run(pool: &PgPool, items: &[i64]) -> Result<Vec<i64>, sqlx::Error> {
        divide(pool, items, 5, ", pg_sleep(0.1)").await
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

/// Submit the writes 1..=`n` to `writes`, 20 ms apart, and check that
/// each gets its own answer.
async fn spaced<B: Batch<Item = i64, Out = i64>>(writes: &GroupCommit<B>, n: i64) {
    let sent: Vec<_> = (1..=n)
        .map(|x| {
            let writes = writes.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20 * (x as u64 - 1))).await;
                writes.submit(x).await
            })
        })
        .collect();
    for (x, answer) in (1..=n).zip(futures::future::join_all(sent).await) {
        assert_eq!(answer.unwrap().unwrap(), 100 / x);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lingering_write_waits_for_the_ones_that_follow_it() {
    let writes = GroupCommit::<Lingering>::start(pool().await, 128, 4);
    let started = tokio::time::Instant::now();
    // Five writes 20 ms apart, each of them alone when it is sent: with
    // four statements allowed in flight, without the wait each would
    // go out on its own.
    spaced(&writes, 5).await;
    assert_eq!(STATEMENTS[2].load(Ordering::SeqCst), 1, "one statement");
    assert!(
        started.elapsed() >= Lingering::LINGER,
        "the first write waited"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_batch_goes_out_once_it_holds_enough_writes() {
    let writes = GroupCommit::<LingeringForThree>::start(pool().await, 128, 4);
    let started = tokio::time::Instant::now();
    // Three writes 20 ms apart: the third fills the batch, which goes
    // out then rather than after its ten seconds.
    spaced(&writes, 3).await;
    assert_eq!(STATEMENTS[4].load(Ordering::SeqCst), 1, "one statement");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the batch waited {took:?}");
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
    // A lone write goes out at once: its statement alone (100 ms), far
    // sooner than the wait.
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_waiting_under_load_goes_out_once_it_holds_enough_writes() {
    let writes = GroupCommit::<UnderLoadForThree>::start(pool().await, 128, 1);
    // Writes in company: three at once, the ones that queue behind the
    // first (its statement takes 100 ms) share the next statement.
    futures::future::join_all((1..=3).map(|x| writes.submit(x))).await;
    let before = STATEMENTS[5].load(Ordering::SeqCst);
    assert!(before <= 2, "three writes took {before} statements");
    // So the next batch waits for company, but only until three writes
    // share it: three writes 20 ms apart go out together at once, not
    // after ten seconds.
    let started = tokio::time::Instant::now();
    spaced(&writes, 3).await;
    let took = started.elapsed();
    assert_eq!(
        STATEMENTS[5].load(Ordering::SeqCst),
        before + 1,
        "one statement"
    );
    assert!(took < Duration::from_secs(5), "the batch waited {took:?}");
}
