//! What one request of a provider is made of, as its configuration may
//! adjust the definition: a `batch` of events or one, the `fingerprint`
//! of the content the conflict check compares, and the window of the
//! replay guard.

use super::issues::{key, ConfigIssue};
use super::providers::Provider;
use crate::provider::{FieldSource, ProviderDef};

/// Settle `p`'s batch, fingerprint and replay window from its own keys,
/// else its definition's; what does not hold is reported under `at`.
pub(super) fn resolve(p: &mut Provider, def: &ProviderDef, at: &str) -> Vec<ConfigIssue> {
    let mut issues = Vec::new();
    p.replay_window = p
        .replay_window_override
        .or(def.replay_window)
        .unwrap_or(p.window);
    if let Some(f) = &p.fingerprint_override {
        if let Err(e) = f.check() {
            issues.push(ConfigIssue::new(key(at, "fingerprint"), e));
        }
    }
    p.fingerprint = p
        .fingerprint_override
        .clone()
        .unwrap_or_else(|| def.fingerprint.clone());
    if let Some(batch) = &p.batch_override {
        if let Err(e) = crate::provider::identity::check_pointer(batch) {
            issues.push(ConfigIssue::new(key(at, "batch"), e));
        }
        // Each item needs an ID of its own, read from the item.
        if matches!(
            def.event_id,
            FieldSource::Header(_)
                | FieldSource::FormField(_)
                | FieldSource::FormBase64Xml(..)
                | FieldSource::JwtPayloadPointer(..)
        ) {
            issues.push(ConfigIssue::new(
                key(at, "batch"),
                format!(
                    "provider kind {:?} reads its event ID from the request, not from each item",
                    p.kind
                ),
            ));
        }
    }
    p.batch = p.batch_override.clone().or_else(|| def.batch.clone());
    issues
}
