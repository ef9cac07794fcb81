//! [`VerifiedWebhook`]: the only thing the dedup and delivery code accepts.

use std::sync::Arc;

use bytes::Bytes;

use crate::config::{Provider, TenantName};
use crate::ids::{BodyDigest, EventId, EventType};

/// A request whose signature checked out and whose event ID was found.
///
/// The fields are visible only inside `provider`, where
/// [`super::verify_request`] is the one place that builds it: nothing that
/// has not been verified can reach the dedup and delivery code.
#[derive(Debug, Clone)]
pub struct VerifiedWebhook {
    pub(super) provider: Arc<Provider>,
    pub(super) tenant: TenantName,
    pub(super) event_id: EventId,
    pub(super) event_type: EventType,
    pub(super) body: Bytes,
    pub(super) body_sha256: BodyDigest,
    pub(super) content_type: Option<String>,
    /// The request's headers that a handler forwards, as they arrived.
    pub(super) forwarded: Vec<(String, String)>,
}

impl VerifiedWebhook {
    pub fn provider(&self) -> &Arc<Provider> {
        &self.provider
    }
    pub fn provider_name(&self) -> &str {
        &self.provider.name
    }
    pub fn tenant(&self) -> &TenantName {
        &self.tenant
    }
    pub fn event_id(&self) -> &EventId {
        &self.event_id
    }
    pub fn event_type(&self) -> &EventType {
        &self.event_type
    }
    pub fn body(&self) -> &Bytes {
        &self.body
    }
    pub fn body_sha256(&self) -> &BodyDigest {
        &self.body_sha256
    }
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }
    /// The provider's headers some handler forwards (`forward_headers`).
    pub fn forwarded_headers(&self) -> &[(String, String)] {
        &self.forwarded
    }
    /// [`Self::forwarded_headers`] as the JSON the deliveries keep; `None`
    /// when there are none.
    pub fn forwarded_json(&self) -> Option<String> {
        (!self.forwarded.is_empty())
            .then(|| serde_json::to_string(&self.forwarded).expect("strings serialize"))
    }
    /// Whether the body's digest is a second dedup key for this event
    /// (its provider signs the body but not the ID).
    pub fn guards_body(&self) -> bool {
        self.provider.guards_body()
    }
    /// Whether the provider's `critical` globs select this event type.
    pub fn is_critical(&self) -> bool {
        self.provider.is_critical(&self.event_type)
    }
}
