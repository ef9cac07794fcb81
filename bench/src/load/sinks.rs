//! What the sink received while the load ran: read at the start of the
//! load, at both edges of the measured window and after the drain, so
//! deliveries can be set against the events hookline accepted.

use std::time::{Duration, Instant};

use crate::client::get_json;
use crate::sink::HandlerStats;

/// One handler's stats at one moment.
pub async fn read(url: &str) -> anyhow::Result<HandlerStats> {
    Ok(serde_json::from_value(get_json(url).await?)?)
}

/// Readings of one handler's stats over a pass.
pub struct Watch {
    pub url: String,
    pub at_start: HandlerStats,
    pub window_from: Option<HandlerStats>,
    pub window_to: Option<HandlerStats>,
}

impl Watch {
    pub async fn start(url: &str) -> anyhow::Result<Watch> {
        Ok(Watch {
            url: url.to_owned(),
            at_start: read(url).await?,
            window_from: None,
            window_to: None,
        })
    }

    /// Deliveries (first arrivals of a `webhook-id`) since the load started.
    pub fn delivered_since_start(&self, now: &HandlerStats) -> u64 {
        now.distinct.saturating_sub(self.at_start.distinct)
    }

    /// Wait until `expected` deliveries have arrived since the load started,
    /// or `timeout` has passed; the last reading.
    pub async fn drain(&self, expected: u64, timeout: Duration) -> (HandlerStats, bool) {
        let deadline = Instant::now() + timeout;
        loop {
            let now = read(&self.url).await.unwrap_or_default();
            let done = self.delivered_since_start(&now) >= expected;
            if done || Instant::now() >= deadline {
                return (now, done);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The window's figures, over `seconds`.
    pub fn window_json(&self, seconds: f64) -> serde_json::Value {
        let (Some(a), Some(b)) = (&self.window_from, &self.window_to) else {
            return serde_json::Value::Null;
        };
        let delivered = b.distinct.saturating_sub(a.distinct);
        let received = b.received.saturating_sub(a.received);
        let without_id = b.without_id.saturating_sub(a.without_id);
        serde_json::json!({
            "url": self.url,
            "in_window": delivered,
            "per_second": delivered as f64 / seconds,
            "received_in_window": received,
            "repeats_in_window": received.saturating_sub(delivered + without_id),
            "answered_in_window": b.answered.saturating_sub(a.answered),
        })
    }
}
