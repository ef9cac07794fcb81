//! hookline: a webhook ingestion receiver.
//!
//! A request flows through [`provider::verify_request`] (signature, event ID),
//! then [`store::Store`] (dedup claim, durable record, completion), and the
//! answer to the provider is decided in one place, [`http`]. [`app`] runs
//! the receiver and the delivery workers as one process.

#[macro_use]
mod failpoint;

pub mod alerts;
pub mod app;
pub mod capture;
pub mod cli;
pub mod config;
pub mod console;
pub mod delivery;
pub mod filter;
pub mod fuzzing;
pub mod http;
pub mod ids;
pub mod ingest;
pub mod lookup;
pub mod metrics;
pub mod provider;
pub mod reload;
pub mod replay;
pub mod store;
pub mod telemetry;
pub mod text;
pub mod transform;

/// Arm the crash points named in `FAILPOINTS` (only with the `failpoints`
/// feature; see `docs/crash-matrix.md`). Keep the guard while running.
pub fn failpoints() -> impl Drop {
    failpoint::setup()
}
