//! What each rule sees on this node, per configured handler, at each
//! check: whether it holds, its value and its threshold.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::AlertSettings;
use crate::ids::HandlerName;
use crate::metrics::Metrics;
use crate::store::{now_ms, Store, StoreError};

/// One rule for one handler, as this node sees it now.
#[derive(Debug, Clone)]
pub struct Condition {
    /// `dead_letters`, `circuit_open` or `backlog_age`.
    pub rule: &'static str,
    pub handler: HandlerName,
    /// Whether the rule holds (the alert should be firing).
    pub holds: bool,
    /// Dead letters added within `every`, or seconds open, or seconds old.
    pub value: u64,
    /// The rule's threshold in the same unit.
    pub threshold: u64,
}

/// The rules' memory on this node.
pub struct Rules {
    dead_letters: Option<u64>,
    circuit_open: Option<Duration>,
    backlog_age: Option<Duration>,
    every: Duration,
    handlers: Vec<HandlerName>,
    metrics: Arc<Metrics>,
    /// Whether this node runs workers: circuits exist only there.
    workers: bool,
    /// Each handler's dead-letter count at each check within `every`.
    dead: HashMap<HandlerName, VecDeque<(Instant, u64)>>,
    /// When this node first saw each open circuit open.
    open_since: HashMap<HandlerName, Instant>,
    /// The (rule, handler) pairs this node saw hold at its last check: only
    /// they can be resolved by this node. A node that never saw a rule
    /// hold (a circuit open on another node) does not resolve it.
    held: HashSet<(&'static str, HandlerName)>,
}

impl Rules {
    pub fn new(
        settings: &AlertSettings,
        handlers: Vec<HandlerName>,
        metrics: Arc<Metrics>,
        workers: bool,
    ) -> Rules {
        Rules {
            dead_letters: settings.dead_letters,
            circuit_open: settings.circuit_open,
            backlog_age: settings.backlog_age,
            every: settings.every,
            handlers,
            metrics,
            workers,
            dead: HashMap::new(),
            open_since: HashMap::new(),
            held: HashSet::new(),
        }
    }

    /// Every rule for every handler: those that hold, and those that held
    /// at the last check and no longer do.
    pub async fn check(&mut self, store: &Store) -> Result<Vec<Condition>, StoreError> {
        let mut all = Vec::new();
        if let Some(n) = self.dead_letters {
            let depths = store.depth_by_handler().await?;
            let now = Instant::now();
            for h in &self.handlers {
                let count = depths
                    .iter()
                    .find(|d| &d.handler == h)
                    .map_or(0, |d| d.depth.dead);
                let seen = self.dead.entry(h.clone()).or_default();
                seen.push_back((now, count));
                // Keep the counts of the last `every`, and the one just
                // before it: the growth is measured from there.
                while seen.len() > 1 && now.duration_since(seen[1].0) >= self.every {
                    seen.pop_front();
                }
                let low = seen.iter().map(|(_, c)| *c).min().unwrap_or(count);
                let grown = count.saturating_sub(low);
                all.push(condition("dead_letters", h, grown >= n, grown, n));
            }
        }
        if let Some(age) = self.backlog_age {
            let oldest = store.oldest_pending().await?;
            let now = now_ms();
            for h in &self.handlers {
                let secs = oldest
                    .iter()
                    .find(|(handler, _)| handler == h)
                    .map_or(0, |(_, created)| ((now - created).max(0) / 1000) as u64);
                let over = oldest.iter().any(|(handler, created)| {
                    handler == h && now - created >= age.as_millis() as i64
                });
                all.push(condition("backlog_age", h, over, secs, age.as_secs()));
            }
        }
        if let (Some(open_for), true) = (self.circuit_open, self.workers) {
            let now = Instant::now();
            for h in &self.handlers {
                let open = self.metrics.circuit_open.with_label_values(&[h]).get() == 1;
                let secs = if open {
                    let since = *self.open_since.entry(h.clone()).or_insert(now);
                    now.duration_since(since)
                } else {
                    self.open_since.remove(h);
                    Duration::ZERO
                };
                let over = open && secs >= open_for;
                all.push(condition(
                    "circuit_open",
                    h,
                    over,
                    secs.as_secs(),
                    open_for.as_secs(),
                ));
            }
        }
        // What holds, and what this node saw hold and now clears.
        let held = std::mem::take(&mut self.held);
        all.retain(|c| c.holds || held.contains(&(c.rule, c.handler.clone())));
        self.held = all
            .iter()
            .filter(|c| c.holds)
            .map(|c| (c.rule, c.handler.clone()))
            .collect();
        Ok(all)
    }
}

fn condition(
    rule: &'static str,
    handler: &HandlerName,
    holds: bool,
    value: u64,
    threshold: u64,
) -> Condition {
    Condition {
        rule,
        handler: handler.clone(),
        holds,
        value,
        threshold,
    }
}
