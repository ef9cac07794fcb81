//! What a handler's answer means, and when to try again.
//!
//! A 2xx acknowledges. 408, 429, 5xx, timeouts and connection errors are
//! retried with exponential backoff and full jitter, honouring a clamped
//! `Retry-After`. Any other 4xx can never succeed: dead-letter at once.

use std::time::Duration;

/// The verdict on one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Acknowledged,
    /// Try again; the handler may have asked for a delay.
    Retry {
        retry_after: Option<Duration>,
    },
    /// A retry cannot succeed.
    Reject,
}

/// Classify an HTTP answer (`None`: timeout or connection error).
pub fn classify(status: Option<u16>, retry_after: Option<Duration>) -> Verdict {
    match status {
        Some(200..=299) => Verdict::Acknowledged,
        Some(408 | 429) | Some(500..=599) | None => Verdict::Retry { retry_after },
        Some(_) => Verdict::Reject,
    }
}

/// Parse `Retry-After`: delay-seconds or an HTTP date.
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate(value)?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

fn httpdate(s: &str) -> Option<std::time::SystemTime> {
    let t = chrono::DateTime::parse_from_rfc2822(s).ok()?;
    let secs = u64::try_from(t.timestamp()).ok()?;
    Some(std::time::UNIX_EPOCH + Duration::from_secs(secs))
}

/// The retry schedule.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    /// Upper bound of the first delay.
    pub base: Duration,
    /// No delay is longer than this.
    pub max: Duration,
    /// A handler's `Retry-After` is clamped to `[min_retry_after, max]`.
    pub min_retry_after: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: Duration::from_secs(1),
            max: Duration::from_secs(3600),
            min_retry_after: Duration::from_secs(1),
        }
    }
}

/// No retry waits longer, whatever `backoff_max` says: every store adds a
/// delay to its clock in milliseconds (PostgreSQL in its own statement),
/// and a due time past `i64::MAX` would fail the outcome's write.
pub const LONGEST_DELAY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

impl From<&crate::config::DeliverySettings> for Backoff {
    /// The schedule `[delivery]` sets.
    fn from(s: &crate::config::DeliverySettings) -> Self {
        let max = s.backoff_max.min(LONGEST_DELAY);
        Backoff {
            base: s.backoff_base,
            max,
            // A handler's Retry-After of 0 would make a busy loop.
            min_retry_after: Duration::from_secs(1).min(max),
        }
    }
}

impl Backoff {
    /// Delay before attempt `attempt + 1`, after `attempt` failures (1-based).
    /// Full jitter: uniform in `[0, min(max, base * 2^(attempt-1))]`, so a
    /// fleet of retries does not arrive in lockstep. `unit` is a uniform
    /// random number in `[0, 1)`, passed in so tests are deterministic.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>, unit: f64) -> Duration {
        if let Some(asked) = retry_after {
            return asked.clamp(self.min_retry_after, self.max);
        }
        let exp = self
            .base
            .checked_mul(
                1u32.checked_shl(attempt.saturating_sub(1))
                    .unwrap_or(u32::MAX),
            )
            .unwrap_or(self.max)
            .min(self.max);
        exp.mul_f64(unit.clamp(0.0, 1.0))
    }
}

/// A retry's delay, brought forward so it falls no later than the
/// handler's `max_age`. Without this, a delay drawn up to `backoff_max`
/// could carry a delivery that is already due to die far past its age
/// limit before the attempt that finds it too old; with it, the last
/// attempt is made at `max_age` and a failure there dead-letters it.
pub fn within_age(delay: Duration, age: Duration, max_age: Option<Duration>) -> Duration {
    match max_age {
        Some(max) => delay.min(max.saturating_sub(age)),
        None => delay,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_delay_outgrows_a_clock_in_milliseconds() {
        let settings = crate::config::DeliverySettings {
            backoff_base: Duration::MAX,
            backoff_max: Duration::MAX,
            ..Default::default()
        };
        let backoff = Backoff::from(&settings);
        assert_eq!(
            backoff.delay(64, None, 0.999_999),
            LONGEST_DELAY.mul_f64(0.999_999)
        );
        assert_eq!(backoff.delay(1, Some(Duration::MAX), 0.5), LONGEST_DELAY);
        let longest = i64::try_from(LONGEST_DELAY.as_millis()).expect("milliseconds in an i64");
        let due = crate::store::now_ms().checked_add(longest);
        assert!(due.is_some(), "a due time past i64::MAX");
    }

    #[test]
    fn a_retry_never_lands_past_max_age() {
        let s = Duration::from_secs;
        assert_eq!(within_age(s(15), s(1), Some(s(3))), s(2));
        assert_eq!(within_age(s(1), s(1), Some(s(3))), s(1));
        assert_eq!(within_age(s(15), s(1), None), s(15));
        assert_eq!(within_age(s(15), s(4), Some(s(3))), Duration::ZERO);
    }

    #[test]
    fn classification() {
        assert_eq!(classify(Some(200), None), Verdict::Acknowledged);
        assert_eq!(classify(Some(204), None), Verdict::Acknowledged);
        for s in [408, 429, 500, 502, 503, 504] {
            assert!(
                matches!(classify(Some(s), None), Verdict::Retry { .. }),
                "{s}"
            );
        }
        assert!(matches!(classify(None, None), Verdict::Retry { .. }));
        for s in [301, 400, 401, 403, 404, 410, 422] {
            assert_eq!(classify(Some(s), None), Verdict::Reject, "{s}");
        }
    }

    #[test]
    fn full_jitter_grows_and_is_capped() {
        let b = Backoff {
            base: Duration::from_secs(1),
            max: Duration::from_secs(60),
            min_retry_after: Duration::from_secs(1),
        };
        assert_eq!(b.delay(1, None, 0.999_999).as_secs(), 0);
        assert_eq!(b.delay(3, None, 0.5), Duration::from_secs(2));
        assert_eq!(b.delay(4, None, 1.0), Duration::from_secs(8));
        assert_eq!(b.delay(40, None, 1.0), Duration::from_secs(60));
        assert_eq!(b.delay(3, None, 0.0), Duration::ZERO);
    }

    #[test]
    fn retry_after_is_honoured_within_bounds() {
        let b = Backoff {
            base: Duration::from_secs(1),
            max: Duration::from_secs(60),
            min_retry_after: Duration::from_secs(2),
        };
        assert_eq!(
            b.delay(1, Some(Duration::from_secs(10)), 0.0),
            Duration::from_secs(10)
        );
        assert_eq!(
            b.delay(1, Some(Duration::from_secs(86_400)), 0.0),
            Duration::from_secs(60)
        );
        assert_eq!(
            b.delay(1, Some(Duration::ZERO), 0.0),
            Duration::from_secs(2)
        );
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        // 2015-10-21 07:28:00 GMT is `now` + 0; a minute later:
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:29:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }
}
