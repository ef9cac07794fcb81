//! [`VerifiedWebhook`]: the only thing the dedup and delivery code accepts.

use std::sync::Arc;

use bytes::Bytes;

use crate::config::Provider;
use crate::ids::TenantName;
use crate::ids::{BodyDigest, EventId, EventType};
use crate::store::HeldEvent;

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
    /// The content digest the conflict check compares: the SHA-256 of
    /// the body, or of its fingerprint (the body without the envelope the
    /// provider rewrites on a retry, `fingerprint.rs`).
    pub(super) body_sha256: BodyDigest,
    /// The request's, shared by the items of a batch as the two below are:
    /// a copy each would cost items x length (a 30 KB query on 50,000
    /// items was 1.5 GB).
    pub(super) content_type: Option<Arc<str>>,
    /// The request's headers that a handler forwards, as they arrived.
    pub(super) forwarded: Arc<[(String, String)]>,
    /// The request's query string without `?`, a `query-token` scheme's
    /// token redacted (`redact_query`); empty when there was none.
    pub(super) query: Arc<str>,
    /// Whether its body is a second dedup key (`replay_guard = "body"`);
    /// off for a held event an operator released.
    pub(super) replay_guard: bool,
    /// The W3C `traceparent` of the request's span, once the receiver
    /// set it: a delivery handed off to this process's workers joins that
    /// trace, and one leased later links to it.
    pub(super) trace_parent: Option<String>,
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
    /// The content digest the conflict check compares and the stores
    /// keep (see the field).
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
    /// The request's query string (see the field).
    pub fn query(&self) -> &str {
        &self.query
    }
    /// [`Self::query`] as the stores keep it: `None` when empty.
    pub fn stored_query(&self) -> Option<&str> {
        (!self.query.is_empty()).then_some(&*self.query)
    }
    /// [`Self::forwarded_headers`] as the JSON the deliveries keep; `None`
    /// when there are none.
    pub fn forwarded_json(&self) -> Option<String> {
        (!self.forwarded.is_empty())
            .then(|| serde_json::to_string(&*self.forwarded).expect("strings serialize"))
    }
    /// Whether the body's digest is a second dedup key for this event
    /// (its provider signs the body but not the ID).
    pub fn guards_body(&self) -> bool {
        self.replay_guard
    }

    /// An event held as a suspected replay that an operator released: it
    /// was verified when it arrived, and is decided now without the replay
    /// guard that held it. `None` if the stored record does not make an
    /// event any more (its names no longer parse).
    pub fn released(provider: Arc<Provider>, held: &HeldEvent) -> Option<Self> {
        let forwarded: Vec<(String, String)> = match &held.forwarded {
            Some(json) => serde_json::from_str(json).ok()?,
            None => Vec::new(),
        };
        Some(VerifiedWebhook {
            tenant: TenantName::parse(&held.tenant).ok()?,
            event_id: EventId::parse(held.event_id.as_str()).ok()?,
            event_type: EventType::parse(held.event_type.as_str()).ok()?,
            body_sha256: BodyDigest::from_bytes(held.body_sha256.as_slice().try_into().ok()?),
            body: Bytes::copy_from_slice(&held.body),
            content_type: held.content_type.as_deref().map(Arc::from),
            forwarded: forwarded.into(),
            query: held.query.as_deref().unwrap_or_default().into(),
            replay_guard: false,
            trace_parent: None,
            provider,
        })
    }

    /// The request's trace context (a W3C `traceparent`), kept with the
    /// event's deliveries.
    pub fn trace_parent(&self) -> Option<&str> {
        self.trace_parent.as_deref()
    }

    /// The event, part of the trace `traceparent` names.
    pub fn with_trace_parent(mut self, traceparent: Option<String>) -> Self {
        self.trace_parent = traceparent;
        self
    }
    /// Whether the provider's `critical` globs select this event type.
    pub fn is_critical(&self) -> bool {
        self.provider.is_critical(&self.event_type)
    }
}
