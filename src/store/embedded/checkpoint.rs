//! WAL checkpoints for the embedded store, off its one connection.
//!
//! In WAL mode SQLite appends every commit to the `-wal` file and copies
//! those pages back into the database file at a checkpoint. By default the
//! connection that commits runs the checkpoint itself, right after its
//! commit, once the log holds 1,000 pages. Under load that is several times
//! a second on the store's one connection, and every request queued behind
//! it waits while megabytes are written and the file is synced (measured:
//! 50-240 ms each, p99 of the answer 120-220 ms at 700 events/s).
//!
//! So the store's connection runs no automatic checkpoint. A second
//! connection here copies the log into the file every [`EVERY`], as a
//! PASSIVE checkpoint, which never blocks the writer. The log can only
//! start over from its beginning once every page in it is copied and the
//! writer begins anew; against a writer that never pauses, a passive
//! checkpoint rarely gets there. So once the log holds [`RESTART_PAGES`],
//! the write lane (`writes.rs`) is asked to checkpoint once itself, between
//! two transactions: it finds nearly every page already copied, and the
//! log starts over at its next transaction. The log stays under about
//! `RESTART_PAGES` pages; if it grew past [`KEEP_BYTES`] meanwhile (the
//! lane's checkpoint kept finding the background one busy), it is cut
//! back to that when it starts over.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, SqliteConnection};

/// How often the background connection checkpoints.
const EVERY: Duration = Duration::from_millis(100);

/// Pages in the log past which the write lane is asked to let it start
/// over (32 MiB of 4 KiB pages). At 32,768 (128 MiB) every start-over
/// held the lane's answers 30-50 ms, every 4 s at 534 events/s; at 8,192
/// those stalls were gone (bench/NOTES.md, "A smaller write-ahead log").
const RESTART_PAGES: i64 = 8_192;

/// Passes run back to back before the lane is asked to checkpoint.
const CATCH_UP: usize = 3;

/// What the log file is cut back to when it starts over
/// (`journal_size_limit`).
pub(super) const KEEP_BYTES: i64 = 64 << 20;

/// Keeps the checkpoints running; they stop once every clone of the store
/// is dropped.
#[derive(Debug)]
pub(super) struct Alive;

/// The running checkpoints: what keeps them going, and the flag the write
/// lane checkpoints on.
pub(super) struct Checkpoints {
    pub(super) alive: Arc<Alive>,
    pub(super) restart: Arc<AtomicBool>,
}

/// Start checkpointing the file behind `options` until `alive` is gone.
/// Failures are logged and retried.
pub(super) fn start(options: SqliteConnectOptions) -> Checkpoints {
    let alive = Arc::new(Alive);
    let restart = Arc::new(AtomicBool::new(false));
    tokio::spawn(run(options, Arc::downgrade(&alive), restart.clone()));
    Checkpoints { alive, restart }
}

async fn run(options: SqliteConnectOptions, alive: Weak<Alive>, restart: Arc<AtomicBool>) {
    let mut conn = None;
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if alive.strong_count() == 0 {
            break;
        }
        if conn.is_none() {
            match options.connect().await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    tracing::warn!(error = %e, "embedded store: checkpoint connection failed");
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        if let Err(e) = pass(c, &restart).await {
            tracing::warn!(error = %e, "embedded store: background checkpoint failed");
            if let Some(c) = conn.take() {
                let _ = c.close().await;
            }
        }
    }
    if let Some(c) = conn {
        let _ = c.close().await;
    }
}

/// One background pass. Past [`RESTART_PAGES`] in the log, it catches up
/// at once with what was written meanwhile ([`CATCH_UP`] passes, less each
/// time), so the lane's own checkpoint has only the last few pages left to
/// copy, then asks the lane for it.
async fn pass(conn: &mut SqliteConnection, restart: &AtomicBool) -> Result<(), sqlx::Error> {
    if passive(conn).await?.pages >= RESTART_PAGES {
        for _ in 0..CATCH_UP {
            passive(conn).await?;
        }
        restart.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// What a checkpoint found.
pub(super) struct Log {
    /// Another checkpoint was running: this one did nothing.
    pub(super) busy: bool,
    /// Pages in the log.
    pub(super) pages: i64,
    /// Pages of the log now copied into the file.
    pub(super) copied: i64,
}

/// One PASSIVE checkpoint on `conn`.
pub(super) async fn passive(conn: &mut SqliteConnection) -> Result<Log, sqlx::Error> {
    let (busy, pages, copied): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(&mut *conn)
        .await?;
    Ok(Log {
        busy: busy != 0,
        pages,
        copied,
    })
}
