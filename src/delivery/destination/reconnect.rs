//! Backoff between connection attempts to a broker: after a failed
//! connect, attempts fail at once (as retries) until the delay has passed,
//! so a broker that is down is not dialled by every delivery. The delay
//! doubles per failure, from [`FIRST`] up to [`MAX`]; a connection made
//! resets it. The handler's circuit breaker then spaces the attempts out
//! further, as it does for an HTTP handler that does not answer.

use std::time::{Duration, Instant};

/// The delay after the first failed connect.
pub const FIRST: Duration = Duration::from_millis(200);
/// The longest delay between two connects.
pub const MAX: Duration = Duration::from_secs(10);

/// Connect attempts to one broker.
#[derive(Debug, Default)]
pub struct Reconnect {
    failures: u32,
    not_before: Option<Instant>,
    /// Why the last connect failed, for the attempts that wait.
    last_error: String,
}

impl Reconnect {
    /// Whether a connect may be tried now; if not, the reason to record.
    pub fn may_try(&self) -> Result<(), String> {
        match self.not_before {
            Some(t) if Instant::now() < t => Err(format!(
                "{} (next connect in {} ms)",
                self.last_error,
                t.saturating_duration_since(Instant::now()).as_millis()
            )),
            _ => Ok(()),
        }
    }

    /// A connect failed with `error`: wait longer before the next; the
    /// error, for the attempt to record.
    pub fn failed(&mut self, error: String) -> String {
        self.failures = self.failures.saturating_add(1);
        let delay = FIRST
            .saturating_mul(1 << (self.failures - 1).min(16))
            .min(MAX);
        self.not_before = Some(Instant::now() + delay);
        self.last_error = error.clone();
        error
    }

    /// A connect succeeded.
    pub fn succeeded(&mut self) {
        *self = Reconnect::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_up_to_the_cap_and_resets() {
        let mut r = Reconnect::default();
        assert!(r.may_try().is_ok());
        r.failed("refused".into());
        let why = r.may_try().unwrap_err();
        assert!(why.starts_with("refused (next connect in "), "{why}");
        for _ in 0..30 {
            r.failed("refused".into());
        }
        let wait = r.not_before.unwrap() - Instant::now();
        assert!(wait <= MAX && wait > MAX / 2, "{wait:?}");
        r.succeeded();
        assert!(r.may_try().is_ok());
    }
}
