//! Fan-out to downstream handlers: at-least-once delivery with a stable
//! idempotency key per event and handler.

mod attempt;
pub mod destination;
pub mod gate;
pub mod outgoing;
pub mod policy;
pub mod preview;
pub mod transform;
pub mod worker;
