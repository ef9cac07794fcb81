//! The embedded store's dedup state (`dedup_key`) and the writes that move
//! it with the records they write. Claims, commits and deliveries' records
//! run in the write lane's transactions (`writes.rs`), which begin
//! IMMEDIATE: they take the file's write lock first (waiting up to
//! `busy_timeout` for another process, such as the CLI), so a read inside
//! them is never overtaken by another writer.

use std::time::Duration;

use chrono::SecondsFormat;
use rusqlite::Connection;
use sqlx::SqlitePool;

use super::deliveries::{self, Inserted};
use super::stmt;
use super::writes::{Done, Written};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::handoff::Handoff;
use crate::store::sql::{OtherBody, OtherBodyRow, OTHER_BODY};
use crate::store::types::{
    at_ms, ms, now_ms, ClaimOutcome, CommitOutcome, DedupRecord, EventKey, OwnerToken,
    RecordOutcome,
};
use crate::store::StoreError;

/// Take the event's key for `owner` if it is absent or expired.
pub(super) fn claim(
    db: &Connection,
    ev: &VerifiedWebhook,
    owner: OwnerToken,
    ttl: Duration,
) -> Result<Done, StoreError> {
    let op = "claim";
    let now = now_ms();
    let (provider, tenant, event_id) = key(ev);
    let sha: &[u8] = &ev.body_sha256()[..];
    // Take the key if it is absent or expired, in one statement.
    let taken = stmt::execute(
        db,
        "INSERT INTO dedup_key (provider, tenant, event_id, state, owner, body_sha256, expires_at_ms)
         VALUES ($1, $2, $3, 'in_progress', $4, $5, $6)
         ON CONFLICT (provider, tenant, event_id) DO UPDATE SET
             state = 'in_progress', owner = excluded.owner,
             body_sha256 = excluded.body_sha256, expires_at_ms = excluded.expires_at_ms
         WHERE dedup_key.expires_at_ms <= $7",
        &[
            &provider,
            &tenant,
            &event_id,
            &&owner.as_bytes()[..],
            &sha,
            &(now + ms(ttl)),
            &now,
        ],
    )
    .map_err(StoreError::sqlite(op))?;
    let outcome = if taken == 1 {
        if ev.guards_body() {
            if let Some(held) = super::replay::claim(db, ev, &owner, ttl, now)? {
                // The claim is undone.
                return Ok(Done::undone(Written::Claim(held)));
            }
        }
        ClaimOutcome::Owned(owner)
    } else {
        let held = stmt::first(
            db,
            "SELECT state, body_sha256, expires_at_ms FROM dedup_key
             WHERE provider = $1 AND tenant = $2 AND event_id = $3",
            &[&provider, &tenant, &event_id],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Vec<u8>>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            },
        )
        .map_err(StoreError::sqlite(op))?;
        let Some((state, held_sha, expires)) = held else {
            return Err(StoreError::internal(op, "the key neither taken nor held"));
        };
        // A different body under the same ID is a conflict whatever the
        // state, as on Redis.
        if held_sha[..] != *sha {
            ClaimOutcome::Conflict
        } else if state == "completed" {
            ClaimOutcome::Duplicate
        } else {
            ClaimOutcome::InProgress {
                retry_after: Duration::from_millis((expires - now).max(0) as u64),
            }
        }
    };
    Ok(Done::kept(Written::Claim(outcome), Inserted::none()))
}

/// Record the event and its deliveries, and complete its key, if `owner`
/// still owns it.
pub(super) fn commit(
    db: &Connection,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
    window: Duration,
    handlers: &[HandlerName],
    handoff: &Handoff,
) -> Result<Done, StoreError> {
    let op = "commit";
    let now = now_ms();
    let (provider, tenant, event_id) = key(ev);
    // Ownership is checked in the transaction that writes: a stale owner
    // writes nothing.
    let owned = stmt::execute(
        db,
        "UPDATE dedup_key SET state = 'completed', owner = NULL, expires_at_ms = $5
         WHERE provider = $1 AND tenant = $2 AND event_id = $3
           AND state = 'in_progress' AND owner = $4",
        &[
            &provider,
            &tenant,
            &event_id,
            &&owner.as_bytes()[..],
            &(now + ms(window)),
        ],
    )
    .map_err(StoreError::sqlite(op))?;
    if owned == 0 {
        // Nothing was written.
        return Ok(Done::kept(
            Written::Commit(CommitOutcome::NotOwner),
            Inserted::none(),
        ));
    }
    let outcome = match other_body(db, ev).map_err(StoreError::sqlite(op))? {
        // The row, or the deliveries the handlers were given, carry
        // another body: key the dedup state to the original, so later
        // copies of it are duplicates and copies of this body conflicts.
        Some(original) if original.in_row || !ev.is_critical() => {
            stmt::execute(
                db,
                "UPDATE dedup_key SET body_sha256 = $4
                 WHERE provider = $1 AND tenant = $2 AND event_id = $3",
                &[&provider, &tenant, &event_id, &original.digest],
            )
            .map_err(StoreError::sqlite(op))?;
            CommitOutcome::Conflict
        }
        // A critical original that only deliveries hold was never completed
        // (`ack = "handlers"` answered 503): its key is left free, so that
        // its own retry completes it and writes its row.
        Some(_) => {
            stmt::execute(
                db,
                "DELETE FROM dedup_key WHERE provider = $1 AND tenant = $2 AND event_id = $3",
                &[&provider, &tenant, &event_id],
            )
            .map_err(StoreError::sqlite(op))?;
            CommitOutcome::Conflict
        }
        _ if ev.is_critical() && !insert_processed(db, ev)? => {
            // The row outlived the dedup key, with this body.
            CommitOutcome::Duplicate
        }
        _ => CommitOutcome::Accepted,
    };
    let inserted = if outcome == CommitOutcome::Accepted {
        // One pending delivery per matching handler, in the same
        // transaction: no 2xx without its deliveries.
        deliveries::insert(db, ev, handlers, now, handoff)?
    } else {
        Inserted::none()
    };
    if ev.guards_body() {
        if outcome == CommitOutcome::Conflict {
            // This body was not recorded under this ID: it holds nothing.
            super::replay::release_in(db, ev, owner)?;
        } else {
            super::replay::complete(db, ev, owner, ev.provider().replay_window, now)?;
        }
    }
    Ok(Done::kept(Written::Commit(outcome), inserted))
}

/// Claim the key and, if this write takes it, commit the event: one write
/// of the lane, so the claim is never seen IN_PROGRESS (nor left so by a
/// crash). Its owner lives only inside the write.
pub(super) fn claim_committed(
    db: &Connection,
    ev: &VerifiedWebhook,
    window: Duration,
    handlers: &[HandlerName],
    handoff: &Handoff,
) -> Result<Done, StoreError> {
    let owner = OwnerToken::new();
    // The claim's TTL never shows: the commit below replaces it.
    let claimed = claim(db, ev, owner, window)?;
    match claimed.answer {
        Written::Claim(ClaimOutcome::Owned(_)) if !claimed.undo => {
            commit(db, ev, &owner, window, handlers, handoff)
        }
        _ => Ok(claimed),
    }
}

/// The event's key columns, as the statements bind them (`$1`-`$3`).
pub(super) fn key(ev: &VerifiedWebhook) -> (&str, &str, &str) {
    (
        ev.provider_name(),
        ev.tenant().as_str(),
        ev.event_id().as_str(),
    )
}

/// The body `ev`'s event ID is recorded with, when that is not `ev`'s
/// body (the statement both dialects share, `sql/ledger.rs`).
fn other_body(db: &Connection, ev: &VerifiedWebhook) -> rusqlite::Result<Option<OtherBody>> {
    let (provider, tenant, event_id) = key(ev);
    let row = stmt::first(
        db,
        OTHER_BODY,
        &[
            &provider,
            &tenant,
            &event_id,
            &&ev.body_sha256()[..],
            &&ev.body()[..],
        ],
        |row| {
            Ok(OtherBodyRow {
                rank: row.get(0)?,
                body_sha256: row.get(1)?,
                body: row.get(2)?,
            })
        },
    )?;
    Ok(row.map(OtherBody::from))
}

/// Insert the event's `processed_event` row unless its ID has one; whether
/// it was new.
fn insert_processed(db: &Connection, ev: &VerifiedWebhook) -> Result<bool, StoreError> {
    let (provider, tenant, event_id) = key(ev);
    // As sqlx writes a timestamp to SQLite, which the reads decode.
    let received_at = chrono::Utc::now().to_rfc3339_opts(SecondsFormat::AutoSi, false);
    let inserted = stmt::execute(
        db,
        "INSERT INTO processed_event
             (provider, tenant, event_id, event_type, body_sha256, body, content_type, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (provider, tenant, event_id) DO NOTHING",
        &[
            &provider,
            &tenant,
            &event_id,
            &ev.event_type().as_str(),
            &&ev.body_sha256()[..],
            &&ev.body()[..],
            &ev.content_type(),
            &received_at,
        ],
    )
    .map_err(StoreError::sqlite("commit"))?;
    Ok(inserted == 1)
}

/// The event's pending deliveries, without completing its key.
pub(super) fn record_pending(
    db: &Connection,
    ev: &VerifiedWebhook,
    handlers: &[HandlerName],
    handoff: &Handoff,
) -> Result<Done, StoreError> {
    let op = "deliveries";
    if other_body(db, ev)
        .map_err(StoreError::sqlite(op))?
        .is_some()
    {
        // The deliveries or the row carry another body: nothing is
        // recorded.
        return Ok(Done::kept(
            Written::Record(RecordOutcome::Conflict),
            Inserted::none(),
        ));
    }
    let inserted = deliveries::insert(db, ev, handlers, now_ms(), handoff)?;
    Ok(Done::kept(
        Written::Record(RecordOutcome::Recorded),
        inserted,
    ))
}

pub(super) async fn release(
    pool: &SqlitePool,
    ev: &VerifiedWebhook,
    owner: &OwnerToken,
) -> Result<(), StoreError> {
    sqlx::query(
        "DELETE FROM dedup_key
         WHERE provider = $1 AND tenant = $2 AND event_id = $3
           AND state = 'in_progress' AND owner = $4",
    )
    .bind(ev.provider_name())
    .bind(ev.tenant())
    .bind(ev.event_id())
    .bind(&owner.as_bytes()[..])
    .execute(pool)
    .await
    .map_err(StoreError::sqlx("release"))?;
    if ev.guards_body() {
        // Owner tokens are unique per claim: no other claim's key can go.
        super::replay::release(pool, ev, owner).await?;
    }
    Ok(())
}

/// What the key of one event says; an expired row not yet purged is absent.
pub(super) async fn record(pool: &SqlitePool, key: &EventKey) -> Result<DedupRecord, StoreError> {
    let row: Option<(String, i64)> = sqlx::query_as(
        "SELECT state, expires_at_ms FROM dedup_key
         WHERE provider = $1 AND tenant = $2 AND event_id = $3 AND expires_at_ms > $4",
    )
    .bind(key.provider.as_str())
    .bind(key.tenant.as_str())
    .bind(key.event_id.as_str())
    .bind(now_ms())
    .fetch_optional(pool)
    .await
    .map_err(StoreError::sqlx("lookup"))?;
    Ok(match row {
        None => DedupRecord::Absent,
        Some((state, until)) if state == "completed" => DedupRecord::Completed {
            kept_until: at_ms(until),
        },
        Some((_, until)) => DedupRecord::InProgress {
            kept_until: at_ms(until),
        },
    })
}

/// Drop expired keys, body keys included (SQLite has no TTLs of its
/// own); how many went.
pub(super) async fn purge_expired(pool: &SqlitePool) -> Result<u64, StoreError> {
    let now = now_ms();
    let keys = sqlx::query("DELETE FROM dedup_key WHERE expires_at_ms <= $1")
        .bind(now)
        .execute(pool)
        .await
        .map_err(StoreError::sqlx("purge"))?
        .rows_affected();
    Ok(keys + super::replay::purge_expired(pool, now).await?)
}

pub(super) async fn count(pool: &SqlitePool) -> Result<u64, StoreError> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM dedup_key")
        .fetch_one(pool)
        .await
        .map_err(StoreError::sqlx("inventory"))?;
    Ok(n as u64)
}
