//! The verdict log's writer: the receiver hands each verified request's
//! verdict to a bounded queue ([`VerdictLog::record`] never waits), and
//! one task writes whatever has queued up in one statement, then prunes
//! entries older than the retention once a minute.
//!
//! The log is an operator aid (the console's event list), never what the
//! receiver decides by: dedup keys and `processed_event` are the truth. So
//! ingestion never waits for it: when the queue is full (the store slower
//! than the traffic for [`QUEUE`] requests), or a batch cannot be written,
//! the entries are dropped and counted in
//! `hookline_verdict_log_dropped_total`.

use std::time::Duration;

use prometheus::IntCounter;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::listing::{VerdictEntry, PRUNE_CHUNK};
use super::{now_ms, Store};

/// Entries waiting to be written, at most.
pub const QUEUE: usize = 10_000;

/// Entries one statement writes at most.
const BATCH: usize = 500;

/// How often entries past the retention are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// The receiver's end of the verdict log. Cheap to clone.
#[derive(Debug, Clone)]
pub struct VerdictLog {
    tx: mpsc::Sender<VerdictEntry>,
    dropped: IntCounter,
}

impl VerdictLog {
    /// Start the writer over `store`, keeping entries for `retention`. It
    /// ends, once the queue is written, when every clone is dropped.
    pub fn start(
        store: Store,
        retention: Duration,
        dropped: IntCounter,
    ) -> (VerdictLog, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let task = tokio::spawn(write_loop(store, rx, retention, dropped.clone()));
        (VerdictLog { tx, dropped }, task)
    }

    /// Queue one entry; dropped (and counted) if the queue is full.
    pub fn record(&self, entry: VerdictEntry) {
        if self.tx.try_send(entry).is_err() {
            self.dropped.inc();
        }
    }
}

async fn write_loop(
    store: Store,
    mut rx: mpsc::Receiver<VerdictEntry>,
    retention: Duration,
    dropped: IntCounter,
) {
    let mut prune = tokio::time::interval(PRUNE_EVERY);
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        tokio::select! {
            n = rx.recv_many(&mut batch, BATCH) => {
                if n == 0 {
                    return;
                }
                if let Err(e) = store.with_records("verdict log", |r| r.log_verdicts(&batch)).await {
                    dropped.inc_by(batch.len() as u64);
                    tracing::warn!(error = %e.chain(), entries = batch.len(),
                        "verdict log entries dropped: cannot write them");
                }
                batch.clear();
            }
            _ = prune.tick() => prune_old(&store, retention).await,
        }
    }
}

/// Entries older than `retention`, a chunk at a time.
async fn prune_old(store: &Store, retention: Duration) {
    let before = now_ms().saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX));
    let mut removed = 0;
    loop {
        match store
            .with_records("verdict prune", |r| r.prune_verdicts(before))
            .await
        {
            Ok(n) => {
                removed += n;
                if n < PRUNE_CHUNK {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e.chain(), "verdict log prune failed");
                break;
            }
        }
    }
    if removed > 0 {
        tracing::debug!(removed, "verdict log entries past the retention pruned");
    }
}
