//! What operators name events and deliveries by, in the admin API and the
//! CLI (`hookline events`, `hookline dead-letters`), parsed before any store
//! sees it.
//!
//! A name follows the configuration's rule (a provider, tenant or handler
//! that can exist is a plain name of at most 64 characters), an event ID
//! the receiver's ([`EventId`]). So a NUL or another control character, or
//! an overlong value, is the caller's error (400, exit 2): never a store
//! failure, which a store that refuses NUL in text (PostgreSQL) would
//! otherwise report, and never a log line saying the store is down.

use crate::ids::{EventId, HandlerName, ProviderName, TenantName};
use crate::store::delivery::{DeliveryFilter, DeliveryState};
use crate::store::EventKey;

/// Why an operator's value was refused; never quotes the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct InputError {
    pub field: &'static str,
    pub reason: String,
}

impl InputError {
    fn of(field: &'static str) -> impl FnOnce(String) -> InputError {
        move |reason| InputError { field, reason }
    }
}

pub fn provider(s: &str) -> Result<ProviderName, InputError> {
    ProviderName::parse(s).map_err(InputError::of("provider"))
}

pub fn tenant(s: &str) -> Result<TenantName, InputError> {
    TenantName::parse(s).map_err(InputError::of("tenant"))
}

pub fn handler(s: &str) -> Result<HandlerName, InputError> {
    HandlerName::parse(s).map_err(InputError::of("handler"))
}

pub fn event_id(s: &str) -> Result<EventId, InputError> {
    EventId::parse(s).map_err(|e| InputError::of("event_id")(e.to_string()))
}

impl EventKey {
    /// One event, as an operator names it.
    pub fn parse(provider_: &str, tenant_: &str, event_id_: &str) -> Result<Self, InputError> {
        Ok(EventKey {
            provider: provider(provider_)?,
            tenant: tenant(tenant_)?,
            event_id: event_id(event_id_)?,
        })
    }

    /// Its deliveries, to every handler or to one.
    pub fn deliveries(&self, handler: Option<&HandlerName>) -> DeliveryFilter {
        DeliveryFilter {
            provider: Some(self.provider.clone()),
            tenant: Some(self.tenant.clone()),
            event_id: Some(self.event_id.clone()),
            handler: handler.cloned(),
            ..Default::default()
        }
    }
}

/// Filters on dead letters, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeadLetterFilters {
    pub provider: Option<ProviderName>,
    pub tenant: Option<TenantName>,
    pub handler: Option<HandlerName>,
    pub event_id: Option<EventId>,
}

impl DeadLetterFilters {
    /// Parse each given value.
    pub fn parse(
        provider_: Option<&str>,
        tenant_: Option<&str>,
        handler_: Option<&str>,
        event_id_: Option<&str>,
    ) -> Result<Self, InputError> {
        Ok(DeadLetterFilters {
            provider: provider_.map(provider).transpose()?,
            tenant: tenant_.map(tenant).transpose()?,
            handler: handler_.map(handler).transpose()?,
            event_id: event_id_.map(event_id).transpose()?,
        })
    }

    /// No filter at all: replaying with it means every dead letter, which
    /// is done only when asked for explicitly (`--all`, `?all=true`).
    pub fn is_empty(&self) -> bool {
        *self == DeadLetterFilters::default()
    }

    /// The store's filter: dead letters matching these, at most `limit`.
    pub fn to_filter(&self, limit: Option<u32>) -> DeliveryFilter {
        DeliveryFilter {
            state: Some(DeliveryState::Dead),
            provider: self.provider.clone(),
            tenant: self.tenant.clone(),
            handler: self.handler.clone(),
            event_id: self.event_id.clone(),
            limit,
            ..Default::default()
        }
    }
}

/// One dead letter, by its delivery ID.
pub fn dead_letter(id: i64) -> DeliveryFilter {
    DeliveryFilter {
        id: Some(id),
        state: Some(DeliveryState::Dead),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_overlong_values_are_refused_by_field() {
        assert_eq!(
            EventKey::parse("stripe", "acme\0", "evt")
                .unwrap_err()
                .field,
            "tenant"
        );
        assert_eq!(
            EventKey::parse("stripe", "acme", "evt\u{1b}[2J")
                .unwrap_err()
                .field,
            "event_id"
        );
        let long = "p".repeat(65);
        let err = DeadLetterFilters::parse(Some(&long), None, None, None).unwrap_err();
        assert_eq!(err.field, "provider");
        assert!(!err.to_string().contains(&long), "the value is not echoed");
        let ok = DeadLetterFilters::parse(None, Some("acme"), Some("billing"), Some("evt_1"));
        let f = ok.unwrap().to_filter(Some(5));
        assert_eq!(f.tenant.as_deref(), Some("acme"));
        assert_eq!(f.state, Some(DeliveryState::Dead));
        assert!(DeadLetterFilters::default().is_empty());
    }
}
