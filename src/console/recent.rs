//! The last hour of this process's traffic, per minute: what the console's
//! overview draws. Fed where the request and delivery metrics are counted
//! (`http::webhook`, `delivery::worker`), so it says exactly what
//! `/metrics` says, minute by minute.
//!
//! It is in memory and per node: it starts empty when the process starts,
//! and a cluster of receivers shows each node's own traffic on its own
//! console. Keys are configured names only (unknown routes are counted as
//! `_unknown` upstream), so an attacker cannot grow it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

/// Minutes kept.
pub const MINUTES: usize = 60;

/// Counts of one minute.
#[derive(Debug, Default, Clone)]
struct Minute {
    /// Minutes since the epoch.
    at: i64,
    /// (provider, tenant, outcome) -> requests.
    requests: BTreeMap<(String, String, String), u64>,
    /// (handler, outcome) -> attempts.
    deliveries: BTreeMap<(String, String), u64>,
}

/// Per-minute counters of the last [`MINUTES`] minutes.
#[derive(Debug, Default)]
pub struct Recent {
    minutes: Mutex<VecDeque<Minute>>,
}

/// One series: a value per minute, oldest first, [`MINUTES`] long.
pub type Series = Vec<u64>;

/// What the overview reads.
#[derive(Debug, Default, Clone)]
pub struct Snapshot {
    /// (provider, tenant) -> outcome -> requests per minute.
    pub requests: BTreeMap<(String, String), BTreeMap<String, Series>>,
    /// handler -> outcome (`delivered`, `retry`, `dead`) -> attempts per minute.
    pub deliveries: BTreeMap<String, BTreeMap<String, Series>>,
}

fn minute_now() -> i64 {
    crate::store::now_ms().div_euclid(60_000)
}

impl Recent {
    pub fn new() -> Self {
        Self::default()
    }

    /// A request answered with `outcome` (`accepted`, `duplicate` or the
    /// problem code).
    pub fn request(&self, provider: &str, tenant: &str, outcome: &str) {
        self.count_at(minute_now(), |m| {
            let key = (provider.to_owned(), tenant.to_owned(), outcome.to_owned());
            *m.requests.entry(key).or_default() += 1;
        });
    }

    /// A delivery attempt ended with `outcome` (`delivered`, `retry`, `dead`).
    pub fn delivery(&self, handler: &str, outcome: &str) {
        self.count_at(minute_now(), |m| {
            let key = (handler.to_owned(), outcome.to_owned());
            *m.deliveries.entry(key).or_default() += 1;
        });
    }

    fn count_at(&self, at: i64, add: impl FnOnce(&mut Minute)) {
        let mut minutes = self.minutes.lock().unwrap_or_else(|e| e.into_inner());
        if minutes.back().is_none_or(|m| m.at < at) {
            minutes.push_back(Minute {
                at,
                ..Default::default()
            });
        }
        while minutes.front().is_some_and(|m| m.at <= at - MINUTES as i64) {
            minutes.pop_front();
        }
        // A clock stepping back counts into the newest minute.
        if let Some(m) = minutes.back_mut() {
            add(m);
        }
    }

    /// The last hour, ending with the current minute.
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot_at(minute_now())
    }

    fn snapshot_at(&self, now: i64) -> Snapshot {
        let minutes = self.minutes.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Snapshot::default();
        for m in minutes.iter() {
            let Some(slot) = usize::try_from(m.at - now + MINUTES as i64 - 1)
                .ok()
                .filter(|s| *s < MINUTES)
            else {
                continue;
            };
            for ((provider, tenant, outcome), n) in &m.requests {
                let series = out
                    .requests
                    .entry((provider.clone(), tenant.clone()))
                    .or_default()
                    .entry(outcome.clone())
                    .or_insert_with(|| vec![0; MINUTES]);
                series[slot] += n;
            }
            for ((handler, outcome), n) in &m.deliveries {
                let series = out
                    .deliveries
                    .entry(handler.clone())
                    .or_default()
                    .entry(outcome.clone())
                    .or_insert_with(|| vec![0; MINUTES]);
                series[slot] += n;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_land_in_their_slot_and_old_ones_drop_out() {
        let recent = Recent::new();
        let add = |at: i64, outcome: &str| {
            recent.count_at(at, |m| {
                *m.requests
                    .entry(("stripe".into(), "acme".into(), outcome.into()))
                    .or_default() += 1;
            })
        };
        add(1000, "accepted");
        add(1000, "accepted");
        add(1030, "invalid_signature");
        add(1059, "accepted");
        let s = recent.snapshot_at(1059);
        let series = &s.requests[&("stripe".into(), "acme".into())];
        assert_eq!(series["accepted"][0], 2, "the oldest minute kept");
        assert_eq!(series["accepted"][59], 1, "the current minute last");
        assert_eq!(series["invalid_signature"][30], 1);
        // One minute later the first minute is out of the hour.
        add(1060, "duplicate");
        let s = recent.snapshot_at(1060);
        let series = &s.requests[&("stripe".into(), "acme".into())];
        assert_eq!(series["accepted"].iter().sum::<u64>(), 1);
        assert_eq!(series["duplicate"][59], 1);
    }
}
