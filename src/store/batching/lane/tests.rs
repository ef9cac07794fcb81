//! The lane's order when it is behind: writes someone waits on go first,
//! and those that can wait still get a share of every transaction.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::sqlite::SqlitePoolOptions;

use super::*;

/// A write that records which transaction ran it; write 0 holds the lane
/// until the test lets it go, so that the others queue behind it.
struct Probe {
    id: u32,
    urgent: bool,
}

#[derive(Default)]
struct Seen {
    /// The writes of each transaction, in the order they ran.
    transactions: Mutex<Vec<Vec<u32>>>,
    /// Write 0 waits here until the test sends.
    hold: Mutex<Option<std::sync::mpsc::Receiver<()>>>,
    /// Told once write 0 runs.
    running: tokio::sync::Notify,
}

impl LaneWrite for Probe {
    type Answer = u32;
    type After = ();
    type Shared = Arc<Seen>;

    fn op(&self) -> &'static str {
        "probe"
    }

    fn may_undo(&self) -> bool {
        false
    }

    fn urgent(&self) -> bool {
        self.urgent
    }

    fn run(&self, _db: &rusqlite::Connection, seen: &Arc<Seen>) -> Result<Done<Self>, StoreError> {
        if self.id == 0 {
            seen.running.notify_one();
            let hold = seen.hold.lock().unwrap().take().expect("one write 0");
            hold.recv().unwrap();
        }
        let mut transactions = seen.transactions.lock().unwrap();
        transactions.last_mut().unwrap().push(self.id);
        Ok(Done::kept(self.id, ()))
    }

    fn hand_over(_: (), _: &Arc<Seen>) {}

    async fn between(_: &SqlitePool, seen: &Arc<Seen>) {
        seen.transactions.lock().unwrap().push(Vec::new());
    }
}

#[tokio::test]
async fn outcomes_give_way_when_the_lane_is_behind_and_still_go_out() {
    let dir = tempfile::tempdir().unwrap();
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect(&format!(
            "sqlite:{}?mode=rwc",
            dir.path().join("l.db").display()
        ))
        .await
        .unwrap();
    let (tx, hold) = std::sync::mpsc::channel();
    let seen = Arc::new(Seen {
        hold: Mutex::new(Some(hold)),
        ..Seen::default()
    });
    let lane = Lane::start(pool, seen.clone()).unwrap();
    let shared = lane.clone();
    let first = tokio::spawn(async move {
        shared
            .write(Probe {
                id: 0,
                urgent: true,
            })
            .await
    });
    seen.running.notified().await;
    // Behind write 0: 24 writes that can wait (100..), then 40 that
    // someone waits on (1..), queued in that order.
    let later = (100..124).map(|id| (id, false));
    let urgent = (1..41).map(|id| (id, true));
    let writes = later.chain(urgent).map(|(id, urgent)| {
        let lane = lane.clone();
        async move { lane.write(Probe { id, urgent }).await.unwrap() }
    });
    let all = tokio::spawn(futures::future::join_all(writes));
    tokio::time::sleep(Duration::from_millis(200)).await;
    tx.send(()).unwrap();
    assert_eq!(first.await.unwrap().unwrap(), 0);
    let answers = all.await.unwrap();
    assert_eq!(answers.len(), 64, "every write is answered");

    let transactions = seen.transactions.lock().unwrap().clone();
    // The first transaction: write 0 alone. The next takes a full
    // transaction's worth: the urgent writes first, in their order, and
    // the quarter kept for the others (the oldest of them).
    assert_eq!(transactions[0], vec![0]);
    let second: Vec<u32> = (1..25).chain(100..108).collect();
    assert_eq!(
        transactions[1], second,
        "urgent first, a quarter for the rest"
    );
    // Then the rest of both, nothing lost, nothing twice.
    let mut rest: Vec<u32> = transactions[2..].concat();
    rest.sort_unstable();
    let expected: Vec<u32> = (25..41).chain(108..124).collect();
    assert_eq!(rest, expected);
}
