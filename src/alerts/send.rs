//! An alert on its way to `alerts.url`: a Slack-compatible JSON body (its
//! `text`) with the structured fields, POSTed by a task of its own and
//! retried with backoff, so a slow or failing receiver never holds the
//! rules' checks. Each alert is counted once in `hookline_alerts_total`:
//! `sent`, or `failed` after the last try.

use std::sync::Arc;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use tokio::task::JoinSet;

use super::rules::Condition;
use crate::config::{AlertSettings, TlsSettings};
use crate::metrics::Metrics;

/// Tries per alert.
const ATTEMPTS: u32 = 5;
/// The first retry's delay; it doubles each time.
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// How long one try may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a stopping node waits for alerts still being sent.
const FINISH: Duration = Duration::from_secs(5);

/// The JSON an alert is POSTed as.
#[derive(Debug, Clone, Serialize)]
pub struct Alert {
    /// What Slack shows.
    text: String,
    rule: &'static str,
    handler: String,
    /// `firing` or `resolved`.
    state: &'static str,
    value: u64,
    threshold: u64,
    /// The console, when `server.public_url` is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    console: Option<String>,
}

impl Alert {
    pub fn new(c: &Condition, state: &'static str) -> Alert {
        let what = match c.rule {
            "dead_letters" => format!(
                "{} new dead letters within the period (threshold {})",
                c.value, c.threshold
            ),
            "circuit_open" => format!("circuit open for {}s (threshold {}s)", c.value, c.threshold),
            _ => format!(
                "oldest pending delivery {}s old (threshold {}s)",
                c.value, c.threshold
            ),
        };
        let text = match state {
            "firing" => format!("hookline alert: handler {}: {what}", c.handler),
            _ => format!(
                "hookline resolved: handler {}: {} no longer holds",
                c.handler, c.rule
            ),
        };
        Alert {
            text,
            rule: c.rule,
            handler: c.handler.to_string(),
            state,
            value: c.value,
            threshold: c.threshold,
            console: None,
        }
    }
}

/// Sends alerts, each in a task of its own.
pub struct Sender {
    client: reqwest::Client,
    url: SecretString,
    console: Option<String>,
    metrics: Arc<Metrics>,
    sending: JoinSet<()>,
}

impl Sender {
    pub fn new(
        settings: &AlertSettings,
        tls: &TlsSettings,
        console: Option<String>,
        metrics: Arc<Metrics>,
    ) -> Result<Sender, String> {
        let client = crate::delivery::destination::http::client_builder(tls)?
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| format!("alerts: {e}"))?;
        Ok(Sender {
            client,
            url: settings.url.clone(),
            console,
            metrics,
            sending: JoinSet::new(),
        })
    }

    pub fn send(&mut self, mut alert: Alert) {
        // Handler names are plain names: nothing to escape in a query.
        alert.console = self.console.as_ref().map(|c| match alert.rule {
            "dead_letters" => format!("{c}/dead-letters?handler={}", alert.handler),
            _ => format!("{c}/events?list=deliveries&handler={}", alert.handler),
        });
        let (client, url, metrics) = (self.client.clone(), self.url.clone(), self.metrics.clone());
        // Finished tasks are reaped as new ones start.
        while self.sending.try_join_next().is_some() {}
        self.sending.spawn(async move {
            let outcome = if post(&client, &url, &alert).await {
                "sent"
            } else {
                tracing::warn!(
                    rule = alert.rule,
                    handler = %alert.handler,
                    state = alert.state,
                    "alert not delivered to alerts.url after {ATTEMPTS} tries"
                );
                "failed"
            };
            metrics
                .alerts
                .with_label_values(&[alert.rule, alert.state, outcome])
                .inc();
        });
    }

    /// Wait briefly for alerts still being sent.
    pub async fn finish(mut self) {
        let _ = tokio::time::timeout(FINISH, async {
            while self.sending.join_next().await.is_some() {}
        })
        .await;
    }
}

/// POST `alert`, retrying with backoff; whether a 2xx came.
async fn post(client: &reqwest::Client, url: &SecretString, alert: &Alert) -> bool {
    let mut delay = FIRST_RETRY;
    for attempt in 1..=ATTEMPTS {
        match client.post(url.expose_secret()).json(alert).send().await {
            Ok(r) if r.status().is_success() => return true,
            // The URL is a secret (a Slack URL carries its token): only
            // the status or the kind of failure is said.
            Ok(r) => tracing::debug!(attempt, status = r.status().as_u16(), "alert refused"),
            Err(e) => tracing::debug!(
                attempt,
                timeout = e.is_timeout(),
                connect = e.is_connect(),
                "alert not sent"
            ),
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(delay).await;
            delay *= 2;
        }
    }
    false
}
