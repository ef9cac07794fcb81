//! The sustained-rate search of issue 12: the highest offered rate at which,
//! over a whole open-loop pass, every request is answered 2xx, deliveries
//! keep pace with acceptance, and p99 of the answer (from the scheduled
//! send) stays under a bound.
//!
//! `judge` reads one `bench-load` pass; `Search` keeps the passes tried and
//! picks the next rate: the closed-loop estimate first, then halving until
//! a rate passes (or growing until one fails), then geometric bisection
//! until the highest pass and the lowest fail above it are within
//! `precision`. Each pass costs its full duration (30 s or more), so the
//! search stops after `max_steps` whatever it has found.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a pass must show to count as sustained.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Criteria {
    /// p99 of the answer, from the scheduled send, below this.
    pub p99_ms: f64,
    /// Deliveries per second in the window at least this share of the new
    /// events accepted per second.
    pub keep_pace: f64,
    /// Accepted but undelivered at the end of the window: under this many
    /// seconds' worth of the accepted rate.
    pub backlog_seconds: f64,
    /// Whether the scenario has a handler (otherwise only the answers count).
    pub deliveries: bool,
}

/// One check of a pass, as the report shows it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Check {
    pub name: String,
    pub measured: f64,
    pub limit: f64,
    pub ok: bool,
}

fn num(v: &Value, path: &[&str]) -> f64 {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_f64)
        .unwrap_or(f64::NAN)
}

/// The checks of one `bench-load` pass against `c`. A figure that is
/// missing from the pass reads as NaN and fails its check.
pub fn judge(pass: &Value, c: &Criteria) -> Vec<Check> {
    let scheduled = num(pass, &["scheduled"]);
    let ok_answers: f64 = pass["status"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.starts_with('2'))
                .filter_map(|(_, v)| v.as_f64())
                .sum()
        })
        .unwrap_or(0.0);
    let mut checks = vec![
        Check {
            name: "requests not answered 2xx (other status, error, unanswered)".into(),
            measured: scheduled - ok_answers,
            limit: 0.0,
            ok: scheduled > 0.0 && ok_answers == scheduled,
        },
        Check {
            name: "p99 of the answer from the scheduled send, ms".into(),
            measured: num(pass, &["latency_ms", "p99"]),
            limit: c.p99_ms,
            ok: num(pass, &["latency_ms", "p99"]) < c.p99_ms,
        },
        Check {
            name: "answers that contradict dedup (copy accepted, original duplicate)".into(),
            measured: num(pass, &["dedup_mismatch"]),
            limit: 0.0,
            ok: num(pass, &["dedup_mismatch"]) == 0.0,
        },
    ];
    if c.deliveries {
        let accepted = num(pass, &["accepted_per_s"]);
        let delivered = num(pass, &["deliveries", "per_second"]);
        let backlog = num(pass, &["deliveries", "backlog_at_end"]);
        checks.push(Check {
            name: "delivered/s over accepted/s in the window".into(),
            measured: delivered / accepted,
            limit: c.keep_pace,
            ok: delivered >= c.keep_pace * accepted,
        });
        checks.push(Check {
            name: "backlog at the end of the window, seconds of accepted/s".into(),
            measured: backlog / accepted,
            limit: c.backlog_seconds,
            ok: backlog < c.backlog_seconds * accepted,
        });
    }
    checks
}

/// One pass of the search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    pub rate: f64,
    pub ok: bool,
    pub checks: Vec<Check>,
    /// The pass's `bench-load` output file.
    pub pass: String,
}

/// The search's state, kept in a JSON file between passes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Search {
    /// The first rate tried (a short closed-loop pass's figure).
    pub estimate: f64,
    /// Below this the search gives up: no sustained rate.
    pub min_rate: f64,
    pub max_steps: usize,
    /// Stop when the lowest fail is within this factor of the highest pass
    /// (0.1: within 10%).
    pub precision: f64,
    pub criteria: Criteria,
    pub steps: Vec<Step>,
}

/// How much higher to try after a pass with no fail above it yet.
const GROW: f64 = 1.5;

impl Search {
    /// The highest rate that passed.
    pub fn sustained(&self) -> Option<f64> {
        self.steps
            .iter()
            .filter(|s| s.ok)
            .map(|s| s.rate)
            .max_by(f64::total_cmp)
    }

    /// The lowest rate that failed above the highest pass (a noisy pass
    /// can fail below a rate that passed; the search looks above the pass).
    fn lowest_fail(&self) -> Option<f64> {
        let lo = self.sustained().unwrap_or(0.0);
        self.steps
            .iter()
            .filter(|s| !s.ok && s.rate > lo)
            .map(|s| s.rate)
            .min_by(f64::total_cmp)
    }

    /// The next rate to try, or `None` when the search is done.
    pub fn next_rate(&self) -> Option<f64> {
        if self.steps.len() >= self.max_steps {
            return None;
        }
        let next = match (self.sustained(), self.lowest_fail()) {
            _ if self.steps.is_empty() => self.estimate,
            (None, Some(hi)) => hi / 2.0,
            (Some(lo), None) => lo * GROW,
            (Some(lo), Some(hi)) if hi / lo <= 1.0 + self.precision => return None,
            (Some(lo), Some(hi)) => (lo * hi).sqrt(),
            (None, None) => return None,
        };
        let next = next.round().max(1.0);
        // Never repeat a rate (rounding can land on one already tried).
        let tried = self.steps.iter().any(|s| s.rate == next);
        (next >= self.min_rate && !tried).then_some(next)
    }

    /// Judge the pass run at `rate` and keep it.
    pub fn record(&mut self, rate: f64, pass: &Value, file: &str) -> &Step {
        let checks = judge(pass, &self.criteria);
        self.steps.push(Step {
            rate,
            ok: checks.iter().all(|c| c.ok),
            checks,
            pass: file.to_owned(),
        });
        self.steps.last().expect("just pushed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn criteria(deliveries: bool) -> Criteria {
        Criteria {
            p99_ms: 10.0,
            keep_pace: 0.95,
            backlog_seconds: 1.0,
            deliveries,
        }
    }

    fn pass(p99: f64, status: Value, delivered: f64, backlog: f64) -> Value {
        json!({
            "scheduled": 30000, "status": status, "dedup_mismatch": 0,
            "latency_ms": {"p99": p99}, "accepted_per_s": 900.0,
            "deliveries": {"per_second": delivered, "backlog_at_end": backlog},
        })
    }

    fn failed(checks: &[Check]) -> Vec<&str> {
        checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect()
    }

    #[test]
    fn a_pass_that_keeps_every_bound_is_sustained() {
        let p = pass(4.0, json!({"200": 30000}), 880.0, 200.0);
        assert!(failed(&judge(&p, &criteria(true))).is_empty());
    }

    #[test]
    fn each_bound_fails_on_its_own() {
        let c = criteria(true);
        let slow = pass(10.0, json!({"200": 30000}), 900.0, 0.0);
        assert_eq!(
            failed(&judge(&slow, &c)),
            ["p99 of the answer from the scheduled send, ms"]
        );
        let refused = pass(2.0, json!({"200": 29999, "503": 1}), 900.0, 0.0);
        assert_eq!(failed(&judge(&refused, &c)).len(), 1);
        let unanswered = pass(2.0, json!({"200": 29990}), 900.0, 0.0);
        assert_eq!(failed(&judge(&unanswered, &c)).len(), 1);
        let behind = pass(2.0, json!({"200": 30000}), 850.0, 0.0);
        assert_eq!(
            failed(&judge(&behind, &c)),
            ["delivered/s over accepted/s in the window"]
        );
        let backlog = pass(2.0, json!({"200": 30000}), 900.0, 900.0);
        assert_eq!(
            failed(&judge(&backlog, &c)),
            ["backlog at the end of the window, seconds of accepted/s"]
        );
        // Without a handler, deliveries are not judged.
        assert!(failed(&judge(&behind, &criteria(false))).is_empty());
        // A pass without its sink readings fails rather than passes.
        let blind = json!({"scheduled": 10, "status": {"200": 10}, "dedup_mismatch": 0,
                           "latency_ms": {"p99": 1.0}, "accepted_per_s": 9.0, "deliveries": null});
        assert_eq!(failed(&judge(&blind, &c)).len(), 2);
    }

    fn search(estimate: f64) -> Search {
        Search {
            estimate,
            min_rate: 10.0,
            max_steps: 8,
            precision: 0.1,
            criteria: criteria(false),
            steps: vec![],
        }
    }

    /// Drive the search against a server that sustains `capacity`/s.
    fn run(mut s: Search, capacity: f64) -> Search {
        while let Some(rate) = s.next_rate() {
            let p99 = if rate <= capacity { 2.0 } else { 50.0 };
            s.record(rate, &pass(p99, json!({"200": 30000}), 0.0, 0.0), "p.json");
        }
        s
    }

    #[test]
    fn search_from_an_estimate_above_capacity_converges_within_precision() {
        let s = run(search(10_000.0), 3_000.0);
        let found = s.sustained().unwrap();
        assert!(found <= 3_000.0 && found > 3_000.0 / 1.1, "{found}");
        assert!(s.steps.len() <= 6, "{} steps", s.steps.len());
        assert_eq!(s.steps[0].rate, 10_000.0);
        assert_eq!(s.steps[1].rate, 5_000.0);
    }

    #[test]
    fn search_from_an_estimate_below_capacity_grows() {
        let s = run(search(1_000.0), 3_000.0);
        let found = s.sustained().unwrap();
        assert!(found <= 3_000.0 && found > 3_000.0 / 1.1, "{found}");
        assert_eq!(s.steps[1].rate, 1_500.0);
    }

    #[test]
    fn search_gives_up_below_min_rate_and_after_max_steps() {
        let s = run(search(1_000.0), 5.0);
        assert_eq!(s.sustained(), None);
        assert!(s.steps.iter().all(|st| st.rate >= 10.0));
        let mut few = search(1_000_000.0);
        few.max_steps = 3;
        let s = run(few, 3_000.0);
        assert_eq!(s.steps.len(), 3);
    }
}
