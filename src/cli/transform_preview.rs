//! `hookline transform --config F --handler NAME CAPTURE_FILE`: what the
//! handler would receive for a captured request (its filter, transform and
//! signature applied), or why it would receive nothing.

use std::path::Path;

use bytes::Bytes;

use crate::capture::Capture;
use crate::config::Settings;
use crate::delivery::destination::http::headers;
use crate::delivery::preview::{preview, Event, Preview};

/// Print the preview; the exit code: 0 delivered, 1 otherwise.
pub async fn run(settings: &Settings, handler: &str, capture: &Path) -> anyhow::Result<i32> {
    let h = settings
        .handlers
        .get(handler)
        .ok_or_else(|| anyhow::anyhow!("--handler: no [handlers.{handler}] in the config"))?;
    let capture = Capture::read(capture)?;
    let provider = settings
        .providers
        .get(capture.provider.as_str())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the capture is for [providers.{}], which the config lacks",
                capture.provider
            )
        })?;
    let body = capture.body()?;
    // The signature is not checked: a capture's timestamp is usually past
    // its tolerance by now.
    let (event_id, event_type) = crate::provider::identity::extract(
        &provider.def.event_id,
        provider.def.event_type.as_ref(),
        &capture.headers,
        &body,
        &provider.fingerprint.digest(&body),
    )
    .map_err(|e| anyhow::anyhow!("the capture's event ID or type: {e:?}"))?;
    let event = Event {
        provider: &capture.provider,
        tenant: &capture.tenant,
        event_id: event_id.as_str(),
        event_type: event_type.as_str(),
        headers: &capture.headers,
        body: Bytes::from(body),
        query: &capture.query,
    };
    match preview(h, &event).await {
        Preview::NotSubscribed => {
            println!(
                "not delivered: [handlers.{handler}] does not subscribe to {}:{} from tenant {}",
                capture.provider, event.event_type, capture.tenant
            );
            Ok(1)
        }
        Preview::Filtered => {
            println!("not delivered: the filter of [handlers.{handler}] refuses this event");
            Ok(1)
        }
        Preview::Failed(reason) => {
            println!("failed: {reason}");
            Ok(1)
        }
        Preview::Delivered(out) => {
            println!("POST {}", h.redacted_url());
            for (name, value) in headers(&out) {
                println!("{name}: {value}");
            }
            println!();
            println!("{}", String::from_utf8_lossy(&out.body));
            Ok(0)
        }
    }
}
