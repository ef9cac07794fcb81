//! Latency percentiles: one HDR histogram per connection, merged at the end.
//! Recording is a counter increment (no per-request allocation, unlike a
//! vector of samples), and the percentiles are within 0.1%.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Microseconds, from 1 µs to 10 minutes at 3 significant digits; a value
/// past the top is recorded as the top (a 10-minute answer fails every
/// target anyway).
pub struct Latencies(Histogram<u64>);

const MAX_US: u64 = 600_000_000;

impl Default for Latencies {
    fn default() -> Self {
        Latencies(Histogram::new_with_bounds(1, MAX_US, 3).expect("valid bounds"))
    }
}

impl Latencies {
    pub fn record(&mut self, d: Duration) {
        // 0 µs is below the histogram's range: a sub-microsecond answer
        // counts as 1 µs.
        let us = (d.as_micros() as u64).clamp(1, MAX_US);
        self.0.saturating_record(us);
    }

    pub fn merge(&mut self, other: &Latencies) {
        self.0
            .add(&other.0)
            .expect("same bounds: adding cannot overflow the range");
    }

    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// Milliseconds at quantile `q` (0.0 to 1.0); 0 when nothing was recorded.
    pub fn ms_at(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.value_at_quantile(q) as f64 / 1000.0
    }

    /// The summary every pass reports.
    pub fn summary(&self) -> serde_json::Value {
        let mean = if self.0.is_empty() {
            0.0
        } else {
            self.0.mean() / 1000.0
        };
        serde_json::json!({
            "p50": self.ms_at(0.5),
            "p90": self.ms_at(0.9),
            "p99": self.ms_at(0.99),
            "p99_9": self.ms_at(0.999),
            "max": self.ms_at(1.0),
            "mean": mean,
            "count": self.count(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_merged_histograms() {
        let mut a = Latencies::default();
        let mut b = Latencies::default();
        // 990 answers at 1 ms and 10 at 50 ms, split over two connections:
        // p99 is still 1 ms, p99.9 is 50 ms.
        for i in 0..1000 {
            let h = if i % 2 == 0 { &mut a } else { &mut b };
            h.record(Duration::from_millis(if i < 990 { 1 } else { 50 }));
        }
        a.merge(&b);
        assert_eq!(a.count(), 1000);
        assert!((a.ms_at(0.5) - 1.0).abs() < 0.01);
        assert!((a.ms_at(0.99) - 1.0).abs() < 0.01);
        assert!((a.ms_at(0.999) - 50.0).abs() < 0.1);
        assert_eq!(Latencies::default().ms_at(0.99), 0.0);
    }
}
