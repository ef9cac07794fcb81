//! Counts per wall-clock second. The load generator and the sink are
//! separate processes, so both key their seconds by Unix time: the report
//! lines up "accepted" and "delivered" second by second without either
//! knowing when the other started.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, now, as a float (for lining up an
/// `Instant` with the wall clock).
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// `counts[i]` events in Unix second `start + i`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub start: u64,
    pub counts: Vec<u64>,
}

impl Timeline {
    /// Count `n` events in Unix second `second`.
    pub fn add(&mut self, second: u64, n: u64) {
        if self.counts.is_empty() {
            self.start = second;
        }
        if second < self.start {
            // An event before the first one seen (clocks read on other
            // threads): grow the front.
            let grow = (self.start - second) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.start = second;
        }
        let i = (second - self.start) as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += n;
    }

    pub fn merge(&mut self, other: &Timeline) {
        for (i, n) in other.counts.iter().enumerate() {
            if *n > 0 {
                self.add(other.start + i as u64, *n);
            }
        }
    }

    /// The counts of seconds `from .. from + len`, zero where nothing was
    /// counted.
    pub fn window(&self, from: u64, len: usize) -> Vec<u64> {
        (0..len as u64)
            .map(|i| {
                let s = from + i;
                s.checked_sub(self.start)
                    .and_then(|k| self.counts.get(k as usize))
                    .copied()
                    .unwrap_or(0)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_line_up_whatever_order_they_come_in() {
        let mut a = Timeline::default();
        a.add(105, 2);
        a.add(103, 1);
        a.add(105, 1);
        let mut b = Timeline::default();
        b.add(107, 4);
        a.merge(&b);
        assert_eq!(a.start, 103);
        assert_eq!(a.counts, vec![1, 0, 3, 0, 4]);
        assert_eq!(a.window(101, 8), vec![0, 0, 1, 0, 3, 0, 4, 0]);
    }
}
