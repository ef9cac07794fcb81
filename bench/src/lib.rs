//! hookline's benchmark tools, shared by the binaries of this package
//! (`bench-load`, `bench-sink`, `bench-bare`, `bench-search`,
//! `bench-publish`) that
//! `bench/run` drives. Not part of the service: nothing here ships with
//! `hookline`.

pub mod client;
pub mod latency;
pub mod load;
pub mod procstat;
pub mod publish;
pub mod request;
pub mod search;
pub mod sink;
pub mod timeline;
