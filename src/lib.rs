//! hookline: a webhook ingestion receiver.
//!
//! A request flows through [`provider::verify_request`] (signature, event ID),
//! then [`store::Store`] (dedup claim, durable record, completion), and the
//! answer to the provider is decided in one place, [`server`].

pub mod admin;
pub mod capture;
pub mod cli;
pub mod config;
pub mod delivery;
pub mod metrics;
pub mod provider;
pub mod replay;
pub mod server;
pub mod store;
pub mod telemetry;
