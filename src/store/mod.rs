//! Dedup state, durable records and the delivery queue.
//!
//! A backend is a type behind two traits, [`IngestStore`] and
//! [`DeliveryQueue`], holding what the backends do differently; what they
//! share is the same SQL, written once behind [`RecordStore`] (`records.rs`,
//! `sql/`) and handed out by each backend. The backend is chosen once from
//! the configuration ([`Store::connect`]) and reached through one handle,
//! [`Store`], that bounds every call with `store.timeout`:
//!
//! - `embedded/`: one SQLite file holds everything;
//! - `redis/` + `postgres/`, combined by [`RedisPg`]: dedup keys in Redis,
//!   the record and the queue in PostgreSQL;
//! - `streams.rs`: with `non_critical_deliveries = "redis"`, the queue of
//!   non-critical events' deliveries in Redis Streams instead.
//!
//! The verdict log (`verdict_log`) writes each verified request's verdict
//! in batches, off the request path.
//!
//! `sql/` holds what PostgreSQL and SQLite share, so each backend keeps
//! apart only what its dialect forces.

mod batching;
pub mod delivery;
mod embedded;
mod error;
mod handle;
pub mod handoff;
pub mod listing;
mod open;
mod postgres;
mod records;
mod redis;
mod redis_pg;
mod report;
pub mod retry;
mod sql;
pub mod stream_entry;
mod streams;
mod traits;
mod types;
mod verdict_log;

pub use self::embedded::owner::{claim as own_embedded, Owner as EmbeddedOwner};
pub use self::embedded::{EmbeddedOptions, EmbeddedStore};
pub use self::error::{BoxError, Chain, OpenError, StoreError};
pub use self::handle::Store;
pub use self::open::stream_lanes;
pub use self::postgres::{PgOptions, PgStore};
pub use self::records::{
    AlertStates, DeliveryRecords, EventRecords, HandshakeSecrets, HeldEvents, RecordStore,
    Sessions, VerdictRecords,
};
pub use self::redis::{dedup_key as redis_dedup_key, RedisDedup, RedisOptions};
pub use self::redis_pg::RedisPg;
pub use self::report::{
    DeliveryReport, EventReport, NothingRequeued, ProcessedSummary, StreamWaiting, UnreadStream,
    WaitingList,
};
pub use self::streams::StreamQueue;
pub use self::traits::{DeliveryQueue, IngestStore};
pub use self::types::{
    now_ms, ClaimOutcome, CommitOutcome, DedupRecord, EventKey, HeldEvent, Inventory, OneStep,
    OwnerToken, ProcessedEvent, QuarantinedCopy, RecordOutcome,
};
pub use self::verdict_log::VerdictLog;
