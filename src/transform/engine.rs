//! One handler's script in its own QuickJS engine, compiled once and
//! called for every attempt. Calls to one engine take turns (QuickJS runs
//! one call at a time); each is bounded by the memory limit, the stack
//! limit and an interrupt at its deadline.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Runtime};

use super::request::Request;
use super::{MEMORY_LIMIT, STACK_LIMIT};

/// Defines what a Hookdeck script expects: `addHandler`, a `console` whose
/// lines go to hookline's log, and the call the engine makes per attempt.
const PRELUDE: &str = r#"
(function () {
  const log = globalThis.__hookline_log;
  delete globalThis.__hookline_log;
  const text = (args) => args.map((a) => {
    if (typeof a === "string") return a;
    try { return JSON.stringify(a); } catch (e) { return String(a); }
  }).join(" ");
  const write = (...args) => log(text(args));
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };
  let transform = null;
  globalThis.addHandler = (kind, fn) => {
    if (kind === "transform" && typeof fn === "function") transform = fn;
  };
  globalThis.__hookline_run = (request, context) => {
    if (transform === null) throw new Error('the script registers no addHandler("transform", ...)');
    return JSON.stringify([transform(JSON.parse(request), JSON.parse(context))]);
  };
})();
"#;

/// A compiled script and its engine.
pub struct Engine {
    runtime: Runtime,
    context: Context,
    /// The current call's deadline, in nanoseconds since `epoch`; 0 when
    /// no call runs.
    deadline: Arc<AtomicU64>,
    epoch: Instant,
    timeout: Duration,
    /// The `webhook-id` of the call running, for `console.log` lines.
    current: Arc<Mutex<String>>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Compile `source` and run its top level (which registers the
    /// handler), within the limits.
    pub fn compile(source: &str, handler: &str, timeout: Duration) -> Result<Engine, String> {
        let runtime = Runtime::new().map_err(|e| e.to_string())?;
        runtime.set_memory_limit(MEMORY_LIMIT);
        runtime.set_max_stack_size(STACK_LIMIT);
        let epoch = Instant::now();
        let deadline = Arc::new(AtomicU64::new(0));
        let watched = deadline.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let at = watched.load(Ordering::Relaxed);
            at != 0 && epoch.elapsed().as_nanos() as u64 > at
        })));
        let context = Context::full(&runtime).map_err(|e| e.to_string())?;
        let current = Arc::new(Mutex::new(String::new()));
        let transform = Engine {
            runtime,
            context,
            deadline,
            epoch,
            timeout,
            current,
        };
        let (handler, current) = (handler.to_owned(), transform.current.clone());
        transform.limited(|ctx| {
            let log = Function::new(ctx.clone(), move |line: String| {
                let webhook_id = current.lock().map(|c| c.clone()).unwrap_or_default();
                // A line may repeat what the payload holds: the log's
                // formatter escapes it like every value (`telemetry::bounded`).
                tracing::info!(handler = %handler, webhook_id = %webhook_id, "script: {line}");
            })
            .catch(&ctx)
            .map_err(|e| describe(&e))?;
            ctx.globals()
                .set("__hookline_log", log)
                .catch(&ctx)
                .map_err(|e| describe(&e))?;
            ctx.eval::<(), _>(PRELUDE)
                .catch(&ctx)
                .map_err(|e| describe(&e))?;
            ctx.eval::<(), _>(source)
                .catch(&ctx)
                .map_err(|e| describe(&e))
        })?;
        Ok(transform)
    }

    /// Run the script on `request` for the delivery `webhook_id`; blocks
    /// for at most the timeout. The error is the script's message and line,
    /// or the limit it hit.
    pub fn run(
        &self,
        request: &Request,
        webhook_id: &str,
        context: &serde_json::Value,
    ) -> Result<Request, String> {
        if let Ok(mut c) = self.current.lock() {
            *c = webhook_id.to_owned();
        }
        let input = request.to_js().to_string();
        let context = context.to_string();
        let started = Instant::now();
        let output = self.limited(|ctx| {
            let run: Function = ctx
                .globals()
                .get("__hookline_run")
                .catch(&ctx)
                .map_err(|e| describe(&e))?;
            run.call::<_, String>((input, context))
                .catch(&ctx)
                .map_err(|e| describe(&e))
        });
        let output = match output {
            Ok(o) => o,
            Err(_) if started.elapsed() >= self.timeout => {
                return Err(format!(
                    "the transform ran past its {} ms limit",
                    self.timeout.as_millis()
                ))
            }
            Err(e) => {
                // What a failed call left (an allocation that hit the
                // limit) is freed now, not at some later call.
                self.runtime.run_gc();
                return Err(e);
            }
        };
        let value: serde_json::Value = serde_json::from_str(&output)
            .map_err(|e| format!("the transform returned what is not JSON: {e}"))?;
        let returned = value.get(0).cloned().unwrap_or_default();
        let mut out = Request::from_js(&returned)?;
        if Request::body_is_json(&returned) && !out.headers.iter().any(|(n, _)| n == "content-type")
        {
            out.headers
                .push(("content-type".into(), "application/json".into()));
        }
        Ok(out)
    }

    /// `f` in the engine, with the deadline set for its duration.
    fn limited<T>(&self, f: impl FnOnce(Ctx<'_>) -> Result<T, String>) -> Result<T, String> {
        let at = self.epoch.elapsed() + self.timeout;
        self.deadline.store(at.as_nanos() as u64, Ordering::Relaxed);
        let result = self.context.with(f);
        self.deadline.store(0, Ordering::Relaxed);
        result
    }
}

/// A script's error as one line: its message, and where it was thrown
/// (`TypeError: x is undefined (line 3)`).
fn describe(e: &CaughtError<'_>) -> String {
    match e {
        CaughtError::Exception(ex) => {
            let message = ex.message().unwrap_or_default();
            let name = ex
                .get::<_, String>("name")
                .unwrap_or_else(|_| "Error".to_owned());
            let line = ex.stack().as_deref().and_then(line_of);
            let line = ex
                .get::<_, i32>("lineNumber")
                .ok()
                .map(|n| n.to_string())
                .or(line);
            match line {
                Some(l) => format!("{name}: {message} (line {l})"),
                None => format!("{name}: {message}"),
            }
        }
        CaughtError::Value(v) => format!("the script threw {v:?}"),
        CaughtError::Error(e) => e.to_string(),
    }
}

/// The line of the first frame in the script (`eval_script:LINE`).
fn line_of(stack: &str) -> Option<String> {
    let at = stack.find("eval_script:")? + "eval_script:".len();
    let digits: String = stack[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then_some(digits)
}
