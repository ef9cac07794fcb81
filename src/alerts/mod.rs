//! Alerts: `[alerts]` rules checked every `check_interval` on every node,
//! each alert and its resolve POSTed once across the nodes sharing a store.
//!
//! - `dead_letters`: a handler's dead letters grew by at least N within
//!   `every`;
//! - `circuit_open`: a handler's circuit has stayed open this long on this
//!   node (checked where workers run);
//! - `backlog_age`: a handler's oldest pending delivery is older than this.
//!
//! Each node keeps its own view of the rules; the store keeps whether each
//! rule is firing for each handler (`alert_state`). A node whose rule holds
//! asks the store to turn it on: only the one that does sends the alert,
//! and not within `every` of the last one, so N nodes send one alert per
//! episode, not N. A node that saw the rule hold and now sees it clear
//! turns it off the same way and sends the resolve. Sending is [`send`]:
//! retried with backoff, counted in `hookline_alerts_total`.

mod rules;
mod send;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use self::rules::{Condition, Rules};
use self::send::{Alert, Sender};
use crate::config::{AlertSettings, Settings};
use crate::metrics::Metrics;
use crate::store::{now_ms, Store};

/// The alert rules of one node.
pub struct Alerts {
    settings: AlertSettings,
    store: Store,
    rules: Rules,
    sender: Sender,
}

impl Alerts {
    /// The rules of `settings.alerts`, if the section is there. `workers`:
    /// whether this node runs delivery workers (and so has circuits).
    pub fn new(
        settings: &Settings,
        store: Store,
        metrics: Arc<Metrics>,
        workers: bool,
    ) -> Result<Option<Alerts>, String> {
        let Some(alerts) = settings.alerts.clone() else {
            return Ok(None);
        };
        let handlers = settings.handlers.keys().cloned().collect();
        let console = settings
            .server
            .public_url
            .as_ref()
            .map(|u| format!("{}/console", u.as_str()));
        let sender = Sender::new(&alerts, &settings.tls, console, metrics.clone())?;
        Ok(Some(Alerts {
            rules: Rules::new(&alerts, handlers, metrics, workers),
            settings: alerts,
            store,
            sender,
        }))
    }

    /// Check the rules every `check_interval` until `shutdown`.
    pub async fn run(mut self, shutdown: CancellationToken) {
        let mut tick = tokio::time::interval(self.settings.check_interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = shutdown.cancelled() => break,
            }
            self.check().await;
        }
        self.sender.finish().await;
    }

    async fn check(&mut self) {
        let conditions = match self.rules.check(&self.store).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e.chain(), "alert rules not checked");
                return;
            }
        };
        for c in conditions {
            if let Err(e) = self.settle(&c).await {
                tracing::warn!(
                    error = %e.chain(),
                    rule = c.rule,
                    handler = %c.handler,
                    "alert state not written"
                );
            }
        }
    }

    /// Turn the rule on or off in the store; send what this node turned.
    async fn settle(&mut self, c: &Condition) -> Result<(), crate::store::StoreError> {
        let state = if c.holds {
            let now = now_ms();
            let quiet_since = now - self.settings.every.as_millis() as i64;
            let ours = self
                .store
                .with_records("alert_state", |r| {
                    r.alert_fire(c.rule, &c.handler, now, quiet_since)
                })
                .await?;
            ours.then_some("firing")
        } else {
            let ours = self
                .store
                .with_records("alert_state", |r| r.alert_resolve(c.rule, &c.handler))
                .await?;
            ours.then_some("resolved")
        };
        if let Some(state) = state {
            tracing::warn!(
                rule = c.rule,
                handler = %c.handler,
                value = c.value,
                threshold = c.threshold,
                state,
                "alert"
            );
            self.sender.send(Alert::new(c, state));
        }
        Ok(())
    }
}
