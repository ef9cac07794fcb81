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

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use engine::Engine;
pub use request::Request;

/// A call's wall-clock limit unless the handler sets `transform_timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(100);

/// Memory a script's engine may hold.
pub const MEMORY_LIMIT: usize = 32 * 1024 * 1024;

/// Stack a script may use.
pub const STACK_LIMIT: usize = 256 * 1024;

/// A handler's transformation: its script, compiled, and where it came
/// from, so SIGHUP can compile it again.
#[derive(Debug)]
pub struct Transform {
    path: PathBuf,
    handler: String,
    timeout: Duration,
    engine: RwLock<Arc<Engine>>,
}

/// Load and compile the script at `path` for handler `handler`.
pub fn load(path: &Path, handler: &str, timeout: Duration) -> Result<Transform, String> {
    Ok(Transform {
        engine: RwLock::new(Arc::new(compile(path, handler, timeout)?)),
        path: path.to_owned(),
        handler: handler.to_owned(),
        timeout,
    })
}

fn compile(path: &Path, handler: &str, timeout: Duration) -> Result<Engine, String> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Engine::compile(&source, handler, timeout)
}

impl Transform {
    /// Run the script on `request` for the delivery `webhook_id`; blocks
    /// for at most the timeout. The error is the script's message and
    /// line, or the limit it hit.
    pub fn run(
        &self,
        request: &Request,
        webhook_id: &str,
        context: &serde_json::Value,
    ) -> Result<Request, String> {
        let engine = self
            .engine
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        engine.run(request, webhook_id, context)
    }

    /// Read and compile the script again; on failure the previous one
    /// stays.
    pub fn reload(&self) -> Result<(), String> {
        let engine = compile(&self.path, &self.handler, self.timeout)?;
        *self.engine.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(engine);
        Ok(())
    }
}
