//! What a worker holds of a delivery in a Redis Stream
//! (`store.non_critical_deliveries = "redis"`): the entry's ID, and the
//! attempts the entry kept (`l`, one JSON object per line, the last
//! [`KEPT_ATTEMPTS`]), so that its dead letter and its event's page list
//! them as they do a row's.

use serde::{Deserialize, Serialize};

/// Most attempts an entry keeps, the latest: each costs its entry about a
/// hundred bytes of Redis memory while it waits.
pub const KEPT_ATTEMPTS: u32 = 20;

/// An attempt an entry keeps: what a row's attempt holds, but the answer's
/// body (only the last attempt's reaches a dead letter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptAttempt {
    pub attempt: u32,
    pub started_ms: i64,
    pub status: Option<u16>,
    pub latency_ms: i64,
    pub error: Option<String>,
}

impl KeptAttempt {
    /// The entry's field `l` as the attempts it lists; a line that does
    /// not read as one is skipped.
    pub fn parse_lines(field: &str) -> Vec<KeptAttempt> {
        field
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// One line of the field `l`.
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("an attempt serializes")
    }
}

/// A leased delivery's stream entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEntry {
    pub id: String,
    /// The attempts it kept, oldest first.
    pub attempts: Vec<KeptAttempt>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_attempts_read_back_line_by_line() {
        let a = KeptAttempt {
            attempt: 1,
            started_ms: 1_795_000_000_123,
            status: Some(503),
            latency_ms: 12,
            error: None,
        };
        let b = KeptAttempt {
            attempt: 2,
            status: None,
            error: Some("connection refused\nby peer".into()),
            ..a.clone()
        };
        let field = format!("{}\n{}\nnot an attempt", a.line(), b.line());
        assert_eq!(KeptAttempt::parse_lines(&field), [a, b]);
    }
}
