//! A handler's filter and transform: the filter compiled from `filter` or
//! `filter_file` at load and applied when an event is routed to the
//! handlers; the transform's script compiled at load.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::handlers::{matching_handlers, Handler};
use crate::filter::{self, Filter, ReloadingFilter};
use crate::ids::HandlerName;

/// The handlers an event goes to, and those whose filter refused it.
#[derive(Debug, Default)]
pub struct Routed<'a> {
    /// Subscribed and let through: one delivery each, in name order.
    pub handlers: Vec<&'a HandlerName>,
    /// Subscribed (`events`, `tenants`), but their filter refused it.
    pub filtered: Vec<&'a HandlerName>,
}

/// Route an event: the handlers whose `events` and `tenants` take it, less
/// those whose filter refuses `request` (built only when some filter asks).
pub fn route<'a>(
    handlers: &'a BTreeMap<HandlerName, Arc<Handler>>,
    provider: &str,
    tenant: &str,
    event_type: &str,
    request: impl FnOnce() -> filter::Request,
) -> Routed<'a> {
    let mut routed = Routed::default();
    let request = std::cell::LazyCell::new(request);
    for name in matching_handlers(handlers, provider, tenant, event_type) {
        let allowed = match &handlers[name].filter {
            None => true,
            Some(f) => f.allows(&request),
        };
        if allowed {
            routed.handlers.push(name);
        } else {
            routed.filtered.push(name);
        }
    }
    routed
}

/// The handler's `filter` or `filter_file`, compiled; or the key at fault
/// and why (`$.body.amount: $gte needs a number or a string`).
pub(super) fn compile(h: &Handler) -> Result<Option<ReloadingFilter>, (&'static str, String)> {
    let text = match (&h.filter_setting, &h.filter_file) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(("filter_file", "set filter or filter_file, not both".into()))
        }
        (Some(text), None) => {
            return Filter::parse(text)
                .map(|f| Some(ReloadingFilter::new(f, None)))
                .map_err(|e| ("filter", e.to_string()))
        }
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
            (
                "filter_file",
                format!("cannot read {}: {e}", path.display()),
            )
        })?,
    };
    Filter::parse(&text)
        .map(|f| Some(ReloadingFilter::new(f, h.filter_file.clone())))
        .map_err(|e| ("filter_file", e.to_string()))
}

/// The handler's `transform` script, compiled; or why it cannot be.
pub(super) fn load_transform(
    h: &Handler,
) -> Result<Option<Arc<crate::transform::Transform>>, String> {
    let Some(path) = &h.transform_file else {
        return Ok(None);
    };
    let timeout = h
        .transform_timeout
        .unwrap_or(crate::transform::DEFAULT_TIMEOUT);
    crate::transform::load(path, h.name.as_str(), timeout).map(|t| Some(Arc::new(t)))
}
