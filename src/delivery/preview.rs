//! What a handler would receive for an event, without sending it: its
//! filter, then its transform, then the signature, as an attempt makes
//! them. `hookline transform` and the console's event page show it.

use bytes::Bytes;
use globset::Candidate;

use super::outgoing::{webhook_id, Outgoing, DEFAULT_CONTENT_TYPE};
use crate::config::Handler;
use crate::filter;

/// The event a preview is made for.
pub struct Event<'a> {
    pub provider: &'a str,
    pub tenant: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    /// The request's headers (all of them, or those kept with the event).
    pub headers: &'a [(String, String)],
    pub body: Bytes,
    /// The request's query string, without `?`.
    pub query: &'a str,
}

/// What the handler would get.
#[derive(Debug)]
pub enum Preview {
    /// Its `events` or `tenants` do not take the event.
    NotSubscribed,
    /// Its filter refuses the event.
    Filtered,
    /// This message, signed (attempt 1, made now).
    Delivered(Box<Outgoing>),
    /// Its transform fails, for this reason.
    Failed(String),
}

/// Preview `event` for `handler`.
pub async fn preview(handler: &Handler, event: &Event<'_>) -> Preview {
    let key = format!("{}:{}", event.provider, event.event_type);
    if !handler.matches_candidate(event.tenant, &Candidate::new(&key)) {
        return Preview::NotSubscribed;
    }
    let header = |name: &str| {
        event
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    if let Some(f) = &handler.filter {
        let path = filter::Request::path_of(event.provider, event.tenant);
        let headers = event.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        if !f.allows(&filter::Request::new(
            headers,
            &event.body,
            event.query,
            &path,
        )) {
            return Preview::Filtered;
        }
    }
    let out = Outgoing {
        webhook_id: webhook_id(event.provider, event.tenant, event.event_id, &handler.name),
        timestamp: chrono::Utc::now().timestamp(),
        provider: event.provider.to_owned(),
        tenant: event.tenant.to_owned(),
        event_id: event.event_id.to_owned(),
        event_type: event.event_type.to_owned(),
        content_type: header("content-type").unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_owned()),
        body: event.body.clone(),
        attempt: 1,
        query: event.query.to_owned(),
        forwarded: handler
            .forward_headers
            .iter()
            .filter_map(|f| Some((f.to_string(), header(f.name().as_str())?)))
            .collect(),
        signature: None,
        // A preview is no attempt: it carries no trace.
        trace: None,
    };
    match super::transform::apply(handler, out).await {
        Ok(out) => Preview::Delivered(Box::new(out.signed(handler.signing_key.as_ref()))),
        Err(reason) => Preview::Failed(reason),
    }
}
