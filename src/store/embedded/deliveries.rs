//! The embedded store's pending deliveries, inserted in the transaction
//! that records their event, and leased there to this process's workers
//! when they have room (the hand-off, `store/handoff.rs`).

use rusqlite::Connection;

use super::dedup::key;
use super::stmt;
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::delivery::Leased;
use crate::store::handoff::{handed, Handoff, Ticket};
use crate::store::types::ms;
use crate::store::StoreError;

/// What a transaction inserted, to hand over once it has committed.
#[must_use = "hand the deliveries over after the commit"]
pub(super) struct Inserted {
    handed: Vec<(Leased, Ticket)>,
    /// Some were inserted without a hand-off: the lease loop must look.
    queued: bool,
}

impl Default for Inserted {
    fn default() -> Self {
        Inserted::none()
    }
}

impl Inserted {
    /// Nothing inserted.
    pub(super) fn none() -> Self {
        Inserted {
            handed: Vec::new(),
            queued: false,
        }
    }

    /// After the commit: hand the leased deliveries to the workers, and
    /// wake the lease loop for the others.
    pub(super) fn hand_over(self, handoff: &Handoff) {
        for (leased, ticket) in self.handed {
            handoff.hand(leased, ticket);
        }
        if self.queued {
            handoff.queued();
        }
    }
}

/// One pending delivery per handler, with the body's digest; an existing
/// one is left as it is (a handler that acknowledged stays acknowledged).
/// A handler the workers have room for gets its delivery leased to them.
pub(super) fn insert(
    db: &Connection,
    ev: &VerifiedWebhook,
    handlers: &[HandlerName],
    now: i64,
    handoff: &Handoff,
) -> Result<Inserted, StoreError> {
    let mut inserted = Inserted::none();
    let lease = handoff
        .lease()
        .map(|(owner, lease)| (owner.to_owned(), ms(lease)));
    let (provider, tenant, event_id) = key(ev);
    let forwarded = ev.forwarded_json();
    for handler in handlers {
        let ticket = lease.as_ref().and_then(|_| handoff.reserve(handler));
        let (owner, until) = match (&ticket, &lease) {
            (Some(_), Some((owner, lease_ms))) => (Some(owner.as_str()), Some(now + lease_ms)),
            _ => (None, None),
        };
        let id: Option<i64> = stmt::first(
            db,
            "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type,
                                   body, body_sha256, forward_headers, state, next_attempt_ms,
                                   lease_owner, lease_until_ms, created_ms, updated_ms,
                                   trace_parent, query)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10, 'pending', COALESCE($12, $9),
                     $11, $12, $9, $9, $13, $14)
             ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING
             RETURNING id",
            &[
                &provider,
                &tenant,
                &event_id,
                &handler.as_str(),
                &ev.event_type().as_str(),
                &ev.content_type(),
                &&ev.body()[..],
                &&ev.body_sha256()[..],
                &now,
                &forwarded,
                &owner,
                &until,
                &ev.trace_parent(),
                &ev.stored_query(),
            ],
            |row| row.get(0),
        )
        .map_err(StoreError::sqlite("commit"))?;
        match (id, ticket) {
            (Some(id), Some(ticket)) => {
                inserted.handed.push((handed(ev, id, handler, now), ticket))
            }
            (Some(_), None) => inserted.queued = true,
            // It existed: nothing new to deliver (the ticket frees its room).
            (None, _) => {}
        }
    }
    Ok(inserted)
}
