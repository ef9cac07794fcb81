//! `ack = "handlers"`: the provider gets its 2xx only once every matching
//! handler has acknowledged the event. The deliveries are recorded first
//! (so nothing waits on memory alone), the workers are woken, and the
//! deliveries are watched until each is delivered, one is dead, or the
//! deadline passes.

use std::time::Duration;

use super::outcome::Refusal;
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::delivery::DeliveryState;
use crate::store::{EventKey, RecordOutcome, Store};

/// How often the deliveries are looked at while waiting.
const ACK_POLL: Duration = Duration::from_millis(20);

/// Record the deliveries and wait for every handler's acknowledgement, or
/// until `deadline`. The event's deliveries already carrying another body
/// (an earlier request under this ID, whose claim was released) is a
/// [`Refusal::Conflict`]. A delivery in the dead letters ends the wait at
/// once ([`Refusal::DeadLettered`]): no worker calls its handler again
/// until an operator replays it, so waiting could only time out.
pub(super) async fn wait_for_acks(
    store: &Store,
    ev: &VerifiedWebhook,
    handlers: &[&HandlerName],
    deadline: Duration,
) -> Result<(), Refusal> {
    if store.record_pending(ev, handlers).await? == RecordOutcome::Conflict {
        return Err(Refusal::Conflict);
    }
    crash_point!("after_delivery_record");
    let filter = EventKey::of(ev).deliveries(None);
    // A deadline too far to add (the config takes any duration) is "never".
    let now = tokio::time::Instant::now();
    let until = now
        .checked_add(deadline)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600));
    loop {
        let rows = store.with_records("list", |r| r.list(&filter)).await?;
        let state = |h: &str| rows.iter().find(|d| d.handler == h).map(|d| d.state);
        if let Some(dead) = handlers
            .iter()
            .find(|h| state(h) == Some(DeliveryState::Dead))
        {
            return Err(Refusal::DeadLettered {
                handler: (*dead).to_string(),
            });
        }
        if handlers
            .iter()
            .all(|h| state(h) == Some(DeliveryState::Delivered))
        {
            return Ok(());
        }
        if tokio::time::Instant::now() >= until {
            return Err(Refusal::NotAcknowledged);
        }
        tokio::time::sleep(ACK_POLL).await;
    }
}
