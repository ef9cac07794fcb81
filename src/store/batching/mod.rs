//! Group commit, one for each SQL database: the writes of concurrent
//! requests share a transaction, and so one WAL flush, and each gets its
//! own answer once that has committed.
//!
//! - `group_commit.rs`, PostgreSQL: one statement per batch of one kind of
//!   write, several statements in flight ([`GroupCommit`], [`Batch`]); the
//!   same batching carries the Redis stream finishes, one script call per
//!   stream (`redis/finish.rs`);
//! - `lane.rs`, SQLite: one writer, so one task runs every kind of write
//!   queued meanwhile in one transaction ([`Lane`], [`LaneWrite`]).
//!
//! Both answer nobody before the commit, and retry a failed batch's writes
//! one by one, so one bad write cannot fail the others. What is written is
//! each backend's (`postgres/batch.rs`, `embedded/writes.rs`).

mod group_commit;
mod lane;

pub(crate) use self::group_commit::{Batch, GroupCommit};
pub(crate) use self::lane::{Done, Lane, LaneWrite};
