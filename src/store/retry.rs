//! Trying a store call again when it can succeed: one helper, so every
//! caller retries the same way (only [`StoreError::is_retryable`] errors,
//! on a fixed schedule) and logs each failure once.

use std::future::Future;
use std::time::Duration;

use super::StoreError;

/// Waits before each try of a delivery's outcome: the first at once, the
/// last about 2.6 s later, well within any lease.
pub const OUTCOME_SCHEDULE: [Duration; 4] = [
    Duration::ZERO,
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_millis(2000),
];

/// Run `call` after each wait in `schedule` until it succeeds or fails in a
/// way a retry cannot fix. A failure that will be retried is logged here;
/// the last one is returned for the caller to log.
pub async fn with_retries<T, F, Fut>(schedule: &[Duration], mut call: F) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let (last, waits) = schedule
        .split_last()
        .expect("a schedule has at least one try");
    for wait in waits {
        tokio::time::sleep(*wait).await;
        match call().await {
            Err(e) if e.is_retryable() => {
                tracing::warn!(op = e.op(), error = %e.chain(), "store call failed; will retry");
            }
            done => return done,
        }
    }
    tokio::time::sleep(*last).await;
    call().await
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    /// Four tries, no waiting: the schedule's length is what is tested.
    const NOW: [Duration; 4] = [Duration::ZERO; 4];

    fn outage() -> StoreError {
        StoreError::Unavailable {
            op: "finish",
            source: "connection refused".into(),
        }
    }

    #[tokio::test]
    async fn retries_an_outage_until_it_passes() {
        let calls = AtomicU32::new(0);
        let answer = with_retries(&NOW, || async {
            match calls.fetch_add(1, Ordering::SeqCst) {
                0 | 1 => Err(outage()),
                _ => Ok(true),
            }
        })
        .await;
        assert!(answer.unwrap());
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn gives_up_after_the_schedule_and_at_once_on_input_errors() {
        let calls = AtomicU32::new(0);
        let answer: Result<(), _> = with_retries(&NOW, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(outage())
        })
        .await;
        assert!(answer.unwrap_err().is_retryable());
        assert_eq!(calls.load(Ordering::SeqCst), 4, "one try per wait");

        let calls = AtomicU32::new(0);
        let answer: Result<(), _> = with_retries(&NOW, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Input {
                op: "finish",
                source: "NUL in text".into(),
            })
        })
        .await;
        assert!(answer.unwrap_err().is_input());
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a retry cannot fix input");
    }
}
