//! Named crash points for the crash matrix (`docs/crash-matrix.md`).
//!
//! Compiled in only with the `failpoints` feature, which only the test
//! script turns on: `FAILPOINTS=after_claim=return` then makes the process
//! abort at that point, as a power cut or `kill -9` would (no destructor,
//! no release, no answer). Without the feature every point is nothing.

/// A point where the process may be made to die. It aborts, so it fits in
/// any function whatever it returns.
macro_rules! crash_point {
    ($name:literal) => {
        ::fail::fail_point!($name, |_| $crate::failpoint::crash($name))
    };
}

/// A point where the request may be made to wait (`FAILPOINTS=
/// NAME=return(MS)`), without blocking its thread: a slow store, seen from
/// the request. Only in an async function.
macro_rules! delay_point {
    ($name:literal) => {
        #[cfg(feature = "failpoints")]
        {
            let ms = ::fail::eval($name, |arg| arg.and_then(|a| a.parse::<u64>().ok()));
            if let Some(Some(ms)) = ms {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            }
        }
    };
}

/// Die at once, as a crash would.
#[cfg(feature = "failpoints")]
pub fn crash(name: &str) -> ! {
    eprintln!("crash point {name}: aborting");
    std::process::abort()
}

/// Die just after the current answer has gone out: the `after_answer`
/// point, armed by the webhook route once its answer is built.
pub fn crash_after_answer() {
    #[cfg(feature = "failpoints")]
    if fail::eval("after_answer", |_| ()).is_some() {
        tokio::spawn(async {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            crash("after_answer")
        });
    }
}

/// Read `FAILPOINTS` (a no-op without the feature). Keep the guard for the
/// life of the process.
pub fn setup() -> impl Drop {
    #[cfg(feature = "failpoints")]
    return fail::FailScenario::setup();
    #[cfg(not(feature = "failpoints"))]
    return Nothing;
}

#[cfg(not(feature = "failpoints"))]
struct Nothing;

#[cfg(not(feature = "failpoints"))]
impl Drop for Nothing {
    fn drop(&mut self) {}
}
