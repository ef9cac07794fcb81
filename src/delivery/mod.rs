//! Fan-out to downstream handlers: at-least-once delivery with a stable
//! idempotency key per event and handler.

pub mod gate;
pub mod outbound;
pub mod policy;
pub mod worker;
