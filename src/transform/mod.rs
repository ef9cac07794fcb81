//! Per-handler transformations in JavaScript, with Hookdeck's entry point
//! (<https://hookdeck.com/docs/transformations>), so a script written for
//! Hookdeck runs unchanged:
//!
//! ```js
//! addHandler("transform", (request, context) => {
//!   request.body.amount_usd = request.body.amount / 100;
//!   return request;
//! });
//! ```
//!
//! `request` is `{headers, body, query, path}` (`body` parsed when it is
//! JSON, a string otherwise); what the script returns is what the handler
//! receives. Each script is compiled once, when the config is loaded, into
//! an engine of its own (QuickJS) with hard limits: memory, stack, and a
//! wall-clock limit per call. The engine has no network, no file system and
//! no clock beyond `Date`. `console.log` goes to hookline's log.

mod engine;
mod request;

use std::path::Path;
use std::time::Duration;

pub use engine::Transform;
pub use request::Request;

/// A call's wall-clock limit unless the handler sets `transform_timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(100);

/// Memory a script's engine may hold.
pub const MEMORY_LIMIT: usize = 32 * 1024 * 1024;

/// Stack a script may use.
pub const STACK_LIMIT: usize = 256 * 1024;

/// Load and compile the script at `path` for handler `handler`.
pub fn load(path: &Path, handler: &str, timeout: Duration) -> Result<Transform, String> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Transform::compile(&source, handler, timeout)
}
