//! Releasing a held event: an operator decided a suspected replay is a real
//! event (GitHub's block, unblock, block again sends one body twice). It
//! goes through the same protocol as when it arrived, without the replay
//! guard that held it, so it is recorded and delivered like any event; the
//! held record is marked released only once that is done, so a crash in
//! between leaves it releasable, and releasing it again is a duplicate.

use chrono::{DateTime, Utc};

use super::outcome::{Refusal, Status};
use super::Ingest;
use crate::provider::VerifiedWebhook;
use crate::store::{EventKey, StoreError};

/// Why a held event was not released.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error("no event {0} is held")]
    NotHeld(String),
    #[error("event {event} was already released at {at}")]
    AlreadyReleased { event: String, at: DateTime<Utc> },
    #[error("provider {0:?} is not configured any more")]
    UnknownProvider(String),
    #[error("the held record of event {0} no longer reads as an event")]
    Unreadable(String),
    #[error(transparent)]
    Refused(#[from] Refusal),
}

impl From<StoreError> for ReleaseError {
    fn from(e: StoreError) -> Self {
        ReleaseError::Refused(Refusal::Store(e))
    }
}

impl Ingest {
    /// Release the event `key` names, held as a suspected replay, to its
    /// handlers: [`Status::Accepted`] when it is recorded now,
    /// [`Status::Duplicate`] when its event ID was recorded meanwhile
    /// with the same content.
    pub async fn release(&self, key: &EventKey) -> Result<Status, ReleaseError> {
        let name = format!("{}/{}/{}", key.provider, key.tenant, key.event_id);
        let held = self
            .store
            .with_records("lookup", |r| r.held(key))
            .await?
            .ok_or_else(|| ReleaseError::NotHeld(name.clone()))?;
        if let Some(at) = held.released_at {
            return Err(ReleaseError::AlreadyReleased { event: name, at });
        }
        let provider = self
            .settings
            .providers
            .get(key.provider.as_str())
            .ok_or_else(|| ReleaseError::UnknownProvider(key.provider.to_string()))?;
        let ev = VerifiedWebhook::released(provider.clone(), &held)
            .ok_or_else(|| ReleaseError::Unreadable(name.clone()))?;
        let status = self.event(ev).await?.status;
        self.store
            .with_records("release", |r| r.mark_released(key))
            .await?;
        tracing::info!(event = %name, status = status.as_str(), "held event released");
        Ok(status)
    }
}
