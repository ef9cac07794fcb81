//! The record of accepted and conflicting events, in both dialects:
//! `processed_event` lookups, what body an event is recorded with, and the
//! quarantine of conflicting copies.

use async_trait::async_trait;
use sha2::{Digest, Sha256};
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::filter::{self, bind, Param};
use super::{Dialect, Tables};
use crate::provider::VerifiedWebhook;
use crate::store::listing::{EventFilter, EventListed, EventRecord};
use crate::store::records::EventRecords;
use crate::store::types::{EventKey, ProcessedEvent, QuarantinedCopy};
use crate::store::StoreError;

/// The digest of a body recorded for this event ID other than `$4` (body
/// `$5`): the `processed_event` row's, or else one its deliveries carry
/// (`ack = "handlers"` records those before any row, and they outlive a
/// released claim). Rows written before migration 0003 carry no digest;
/// they are compared by body, and their body is returned to hash.
pub(crate) const OTHER_BODY: &str = "
    SELECT rank, body_sha256, body FROM (
        SELECT 0 AS rank, body_sha256, NULL AS body FROM processed_event
        WHERE provider = $1 AND tenant = $2 AND event_id = $3 AND body_sha256 <> $4
        UNION ALL
        SELECT 1, body_sha256, CASE WHEN body_sha256 IS NULL THEN body END FROM delivery
        WHERE provider = $1 AND tenant = $2 AND event_id = $3
          AND NOT COALESCE(body_sha256 = $4, body = $5)
    ) other
    ORDER BY rank LIMIT 1";

#[derive(FromRow)]
pub(crate) struct OtherBodyRow {
    pub(crate) rank: i32,
    pub(crate) body_sha256: Option<Vec<u8>>,
    pub(crate) body: Option<Vec<u8>>,
}

/// Another body an event ID is recorded with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OtherBody {
    /// Its full SHA-256.
    pub(crate) digest: Vec<u8>,
    /// Whether a `processed_event` row holds it (else only deliveries do:
    /// the event was handed to handlers but never completed, so its own
    /// retry must still be able to complete it and write the row).
    pub(crate) in_row: bool,
}

impl From<OtherBodyRow> for OtherBody {
    fn from(r: OtherBodyRow) -> Self {
        OtherBody {
            digest: match (r.body_sha256, r.body) {
                (Some(digest), _) => digest,
                (None, body) => Sha256::digest(body.unwrap_or_default()).to_vec(),
            },
            in_row: r.rank == 0,
        }
    }
}

/// The body `ev`'s event ID is recorded with, when that is not `ev`'s
/// body: `Some` means `ev` is a conflict. Takes any executor, so
/// that a transaction can read it before it writes.
pub(crate) async fn other_body<'e, DB, E>(
    ex: E,
    ev: &VerifiedWebhook,
) -> Result<Option<OtherBody>, sqlx::Error>
where
    DB: Dialect,
    E: Executor<'e, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    OtherBodyRow: for<'r> FromRow<'r, DB::Row>,
{
    let row: Option<OtherBodyRow> = sqlx::query_as(OTHER_BODY)
        .bind(ev.provider_name())
        .bind(ev.tenant().as_str())
        .bind(ev.event_id().as_str())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .fetch_optional(ex)
        .await?;
    Ok(row.map(OtherBody::from))
}

/// What the backends ask of their own SQL database, beside the shared
/// records: whether it answers, and the counts of the inventory.
impl<DB> Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    (i64, i64): for<'r> FromRow<'r, DB::Row>,
{
    pub(crate) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("ping"))?;
        Ok(())
    }

    /// (processed_event rows, quarantined requests).
    pub(crate) async fn counts(&self) -> Result<(u64, u64), StoreError> {
        let (processed, quarantined): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM processed_event),
                    (SELECT CAST(COALESCE(SUM(copies), 0) AS BIGINT) FROM conflict_quarantine)",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::sqlx("inventory"))?;
        Ok((processed as u64, quarantined as u64))
    }
}

#[async_trait]
impl<DB> EventRecords for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    ProcessedEvent: for<'r> FromRow<'r, DB::Row>,
    QuarantinedCopy: for<'r> FromRow<'r, DB::Row>,
    EventListed: for<'r> FromRow<'r, DB::Row>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
{
    async fn processed_event(&self, key: &EventKey) -> Result<Option<ProcessedEvent>, StoreError> {
        sqlx::query_as(
            "SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type,
                    received_at
             FROM processed_event WHERE provider = $1 AND tenant = $2 AND event_id = $3",
        )
        .bind(key.provider.as_str())
        .bind(key.tenant.as_str())
        .bind(key.event_id.as_str())
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::sqlx("lookup"))
    }

    /// Keep a conflicting request: a new record for a new body, one more
    /// copy (and the time it was last seen) for a body already kept, so a
    /// provider retrying a conflict for days does not pile up rows.
    async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO conflict_quarantine
                 (provider, tenant, event_id, event_type, body_sha256, body, content_type)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (provider, tenant, event_id, body_sha256) DO UPDATE
                 SET copies = conflict_quarantine.copies + 1,
                     last_seen_at = excluded.last_seen_at",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant().as_str())
        .bind(ev.event_id().as_str())
        .bind(ev.event_type().as_str())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
        .execute(&self.pool)
        .await
        .map_err(StoreError::sqlx("quarantine"))?;
        Ok(())
    }

    async fn quarantined(&self, key: &EventKey) -> Result<Vec<QuarantinedCopy>, StoreError> {
        sqlx::query_as(
            "SELECT event_type, body_sha256, body, content_type, copies, first_seen_at,
                    last_seen_at
             FROM conflict_quarantine WHERE provider = $1 AND tenant = $2 AND event_id = $3
             ORDER BY first_seen_at, id",
        )
        .bind(key.provider.as_str())
        .bind(key.tenant.as_str())
        .bind(key.event_id.as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::sqlx("lookup"))
    }

    /// Accepted (critical) or conflicting events, newest first: each page
    /// a range scan of the primary key from the cursor.
    async fn list_events(
        &self,
        record: EventRecord,
        f: &EventFilter,
    ) -> Result<Vec<EventListed>, StoreError> {
        let (table, copies, at) = match record {
            EventRecord::Accepted => ("processed_event", "1", "received_at"),
            EventRecord::Conflict => ("conflict_quarantine", "copies", "last_seen_at"),
            EventRecord::Held => ("held_event", "copies", "last_seen_at"),
        };
        let (conditions, params) = filter::events(f);
        let statement = format!(
            "SELECT id, provider, tenant, event_id, event_type,
                    CAST(LENGTH(body) AS BIGINT) AS body_bytes,
                    CAST({copies} AS BIGINT) AS copies, {at} AS at
             FROM {table} WHERE TRUE{conditions} ORDER BY id DESC LIMIT ${}",
            params.len() + 1
        );
        bind!(sqlx::query_as::<DB, EventListed>(&statement), params)
            .bind(i64::from(f.limit.unwrap_or(100)))
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::sqlx("list"))
    }
}
