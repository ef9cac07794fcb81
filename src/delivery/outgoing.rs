//! The message one attempt sends: built in one place from the leased
//! delivery and its handler, the same for every kind of destination, then
//! handed to the handler's destination (`destination.send(&outgoing)`),
//! which only writes it in its own protocol's form.

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::config::Handler;
use crate::provider::{standard_webhooks_signature, Key};
use crate::store::delivery::Leased;
use crate::telemetry::TraceHeaders;

/// What the body's content type is when the provider sent none.
pub const DEFAULT_CONTENT_TYPE: &str = "application/octet-stream";

/// One outgoing message. Owned, so a step between building and sending
/// (a per-handler transform) can rewrite it; whatever changes the body or
/// the `webhook-id` signs it again with [`Outgoing::signed`].
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The `webhook-id`: stable per event and handler (see [`webhook_id`]).
    pub webhook_id: String,
    /// `webhook-timestamp`: Unix seconds when this attempt was made.
    pub timestamp: i64,
    pub provider: String,
    pub tenant: String,
    pub event_id: String,
    pub event_type: String,
    /// The provider's content type, or [`DEFAULT_CONTENT_TYPE`].
    pub content_type: String,
    /// The accepted body, byte for byte.
    pub body: Bytes,
    /// 1-based attempt number.
    pub attempt: u32,
    /// The provider's headers this handler's `forward_headers` names, as
    /// the provider sent them.
    pub forwarded: Vec<(String, String)>,
    /// The query string the event came with: a transform sees it as
    /// `request.query`; it is not sent.
    pub query: String,
    /// `webhook-signature` (Standard Webhooks, with the handler's
    /// `signing_secret`) over `webhook_id`, `timestamp` and `body`.
    pub signature: Option<String>,
    /// This attempt's own span as W3C `traceparent` and `tracestate`, so
    /// the handler's trace continues hookline's.
    pub trace: Option<TraceHeaders>,
}

impl Outgoing {
    /// The message for attempt `attempt` of delivery `d` to `handler`, made
    /// at `timestamp`; unsigned.
    pub fn new(d: &Leased, handler: &Handler, attempt: u32, timestamp: i64) -> Outgoing {
        Outgoing {
            webhook_id: webhook_id(&d.provider, &d.tenant, &d.event_id, &handler.name),
            timestamp,
            provider: d.provider.to_string(),
            tenant: d.tenant.to_string(),
            event_id: d.event_id.to_string(),
            event_type: d.event_type.to_string(),
            content_type: d
                .content_type
                .clone()
                .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_owned()),
            body: d.body.clone(),
            attempt,
            // The delivery keeps every header some handler of its provider
            // forwards; this handler gets its own.
            forwarded: d
                .forward_headers
                .iter()
                .filter(|(name, _)| {
                    handler
                        .forward_headers
                        .iter()
                        .any(|f| f.name().as_str().eq_ignore_ascii_case(name))
                })
                .cloned()
                .collect(),
            query: d.query.clone(),
            signature: None,
            trace: None,
        }
    }

    /// The message, sent within the span `trace` names.
    pub fn traced(mut self, trace: Option<TraceHeaders>) -> Outgoing {
        self.trace = trace;
        self
    }

    /// The message signed with `key` (a handler's decoded
    /// `signing_secret`), over what it holds now.
    pub fn signed(mut self, key: Option<&Key>) -> Outgoing {
        self.signature = key
            .map(|k| standard_webhooks_signature(k, &self.webhook_id, self.timestamp, &self.body));
        self
    }
}

/// The `webhook-id` of an event for a handler: the same on every attempt
/// and every re-delivery, so the handler can use it as its idempotency key.
pub fn webhook_id(provider: &str, tenant: &str, event_id: &str, handler: &str) -> String {
    let mut h = Sha256::new();
    for part in [provider, tenant, event_id, handler] {
        // Length-prefixed, so ("a:b","c") and ("a","b:c") differ.
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    format!("msg_{}", &hex::encode(h.finalize())[..32])
}

#[cfg(test)]
mod tests {
    use super::webhook_id;

    #[test]
    fn the_webhook_id_is_stable_and_unambiguous() {
        let id = webhook_id("stripe", "acme", "evt_1", "billing");
        assert_eq!(id, webhook_id("stripe", "acme", "evt_1", "billing"));
        assert!(id.starts_with("msg_") && id.len() == 36);
        assert_ne!(
            webhook_id("a:b", "c", "e", "h"),
            webhook_id("a", "b:c", "e", "h")
        );
        assert_ne!(id, webhook_id("stripe", "acme", "evt_1", "audit"));
    }
}
