//! The embedded store's body keys (`replay_key`): the second dedup key of
//! events whose provider signs the body but not the event ID
//! (`replay_guard = "body"`). Each function runs inside the transaction
//! that moves the event's own `dedup_key` row, so both keys move together.

use std::time::Duration;

use rusqlite::Connection;
use sqlx::SqlitePool;

use super::dedup::key;
use super::stmt;

use crate::provider::VerifiedWebhook;
use crate::store::types::{ms, ClaimOutcome, OwnerToken};
use crate::store::StoreError;

/// Claim the body key for `owner` along with the event's key. `Some` is
/// the answer when another event holds this body (the caller rolls back):
/// a replay if that event completed, in progress if it has not yet.
pub(super) fn claim(
    db: &Connection,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
    ttl: Duration,
    now: i64,
) -> Result<Option<ClaimOutcome>, StoreError> {
    let op = "claim";
    let (provider, tenant, event_id) = key(ev);
    let sha: &[u8] = &ev.body_sha256()[..];
    let held = stmt::first(
        db,
        "SELECT event_id, state, expires_at_ms FROM replay_key
         WHERE provider = $1 AND tenant = $2 AND body_sha256 = $3 AND expires_at_ms > $4",
        &[&provider, &tenant, &sha, &now],
        |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
            ))
        },
    )
    .map_err(StoreError::sqlite(op))?;
    if let Some((holder, state, expires)) = held {
        if holder != event_id {
            return Ok(Some(if state == "completed" {
                ClaimOutcome::Replay
            } else {
                ClaimOutcome::InProgress {
                    retry_after: Duration::from_millis((expires - now).max(0) as u64),
                }
            }));
        }
    }
    stmt::execute(
        db,
        "INSERT INTO replay_key (provider, tenant, body_sha256, event_id, state, owner, expires_at_ms)
         VALUES ($1, $2, $3, $4, 'in_progress', $5, $6)
         ON CONFLICT (provider, tenant, body_sha256) DO UPDATE SET
             event_id = excluded.event_id, state = 'in_progress', owner = excluded.owner,
             expires_at_ms = excluded.expires_at_ms",
        &[
            &provider,
            &tenant,
            &sha,
            &event_id,
            &&owner.as_bytes()[..],
            &(now + ms(ttl)),
        ],
    )
    .map_err(StoreError::sqlite(op))?;
    Ok(None)
}

/// The event was recorded with this body: its body key is COMPLETED for
/// the replay window (if `owner` still holds it).
pub(super) fn complete(
    db: &Connection,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
    window: Duration,
    now: i64,
) -> Result<(), StoreError> {
    let (provider, tenant, _) = key(ev);
    stmt::execute(
        db,
        "UPDATE replay_key SET state = 'completed', owner = NULL, expires_at_ms = $5
         WHERE provider = $1 AND tenant = $2 AND body_sha256 = $3 AND owner = $4",
        &[
            &provider,
            &tenant,
            &&ev.body_sha256()[..],
            &&owner.as_bytes()[..],
            &(now + ms(window)),
        ],
    )
    .map_err(StoreError::sqlite("commit"))?;
    Ok(())
}

/// Give the body key up with the claim (released, or the event turned out
/// to be recorded with another body), if `owner` still holds it. Owner
/// tokens are unique per claim: no other claim's key can go.
const RELEASE: &str = "DELETE FROM replay_key
     WHERE provider = $1 AND tenant = $2 AND body_sha256 = $3 AND owner = $4";

/// [`RELEASE`], in the write lane's transaction.
pub(super) fn release_in(
    db: &Connection,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
) -> Result<(), StoreError> {
    let (provider, tenant, _) = key(ev);
    stmt::execute(
        db,
        RELEASE,
        &[
            &provider,
            &tenant,
            &&ev.body_sha256()[..],
            &&owner.as_bytes()[..],
        ],
    )
    .map_err(StoreError::sqlite("release"))?;
    Ok(())
}

/// [`RELEASE`], on the pool, with the claim's own release.
pub(super) async fn release(
    pool: &SqlitePool,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
) -> Result<(), StoreError> {
    sqlx::query(RELEASE)
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(&ev.body_sha256()[..])
        .bind(&owner.as_bytes()[..])
        .execute(pool)
        .await
        .map_err(StoreError::sqlx("release"))?;
    Ok(())
}

/// Drop expired body keys; how many went.
pub(super) async fn purge_expired(pool: &SqlitePool, now: i64) -> Result<u64, StoreError> {
    Ok(
        sqlx::query("DELETE FROM replay_key WHERE expires_at_ms <= $1")
            .bind(now)
            .execute(pool)
            .await
            .map_err(StoreError::sqlx("purge"))?
            .rows_affected(),
    )
}
