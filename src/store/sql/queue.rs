//! The delivery queue's statements that both dialects run as written:
//! leases, listings, attempts, requeues and depth. Recording outcomes
//! differs (one transaction per outcome on SQLite, group-committed batches
//! on PostgreSQL) and lives with each backend.

use std::time::Duration;

use async_trait::async_trait;
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::filter::{self, bind, Param};
use super::rows::{
    AttemptRow, DeliveryRow, HandlerCounts, LeasedRow, DELIVERY_COLUMNS, LEASED_COLUMNS,
};
use super::{Dialect, Tables};
use crate::store::delivery::{
    AttemptView, DeliveryFilter, DeliveryView, HandlerDepth, LeaseFrom, Leased, QueueDepth,
};
use crate::store::records::DeliveryRecords;
use crate::store::types::ms;
use crate::store::StoreError;

#[async_trait]
impl<DB> DeliveryRecords for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    DeliveryRow: for<'r> FromRow<'r, DB::Row>,
    LeasedRow: for<'r> FromRow<'r, DB::Row>,
    AttemptRow: for<'r> FromRow<'r, DB::Row>,
    HandlerCounts: for<'r> FromRow<'r, DB::Row>,
    (i64, i64): for<'r> FromRow<'r, DB::Row>,
{
    /// Lease up to `limit` due deliveries to `owner` for `lease`, of the
    /// handlers `from` names, in due order.
    async fn lease(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        if from == LeaseFrom::Only(&[]) {
            // No handler has room: nothing to ask the database.
            return Ok(Vec::new());
        }
        // A lease also moves the row's due time to the lease's end (when it
        // is due again if its worker dies), so the due indexes hold the
        // rows that are due at their front and leased rows behind them: a
        // lease reads the rows it takes and stops. The due bound is the
        // statement's start, so the index can use it.
        let due = |rows: &str| {
            format!(
                "SELECT id, next_attempt_ms FROM delivery
                 WHERE {rows} AND next_attempt_ms <= {start}
                   AND (lease_until_ms IS NULL OR lease_until_ms <= {start})
                 ORDER BY next_attempt_ms LIMIT $3 {skip_locked}",
                start = DB::STATEMENT_MS,
                skip_locked = DB::SKIP_LOCKED,
            )
        };
        let candidates = match from {
            // Every handler's rows: the front of `delivery_due`.
            LeaseFrom::Every => due("state = 'pending'"),
            // Each handler's front of `delivery_due_by_handler`, merged.
            // A walk of `delivery_due` filtered on the handler would read
            // every due row of the skipped handlers first, and the planner
            // cannot know that they sit at its front. So pending is said
            // here as that index says it (neither delivered nor dead, the
            // only other states), which `delivery_due` does not match.
            LeaseFrom::Only(handlers) => {
                let ranges: Vec<String> = (0..handlers.len())
                    .map(|i| {
                        let rows = format!(
                            "handler = ${} AND state <> 'delivered' AND state <> 'dead'",
                            i + 4
                        );
                        format!("SELECT * FROM ({}) AS h{i}", due(&rows))
                    })
                    .collect();
                format!(
                    "SELECT id FROM ({}) AS due ORDER BY next_attempt_ms LIMIT $3",
                    ranges.join(" UNION ALL ")
                )
            }
        };
        let taken = DB::ID_IN.replace("{}", &format!("SELECT id FROM ({candidates}) AS taken"));
        let statement = format!(
            "UPDATE delivery SET lease_owner = $1, lease_until_ms = {now} + $2,
                                 next_attempt_ms = {now} + $2
             WHERE {taken}
             RETURNING {LEASED_COLUMNS}",
            now = DB::NOW_MS,
        );
        let mut query = sqlx::query_as::<DB, LeasedRow>(&statement)
            .bind(owner)
            .bind(ms(lease))
            .bind(i64::from(limit));
        if let LeaseFrom::Only(handlers) = from {
            for handler in handlers {
                query = query.bind(handler.as_str());
            }
        }
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::sqlx("lease"))?;
        Ok(rows.into_iter().map(Leased::from).collect())
    }

    /// Hand a leased delivery back, unattempted and due now.
    async fn give_back(&self, delivery: &Leased, owner: &str) -> Result<(), StoreError> {
        let statement = format!(
            "UPDATE delivery SET lease_owner = NULL, lease_until_ms = NULL,
                                 next_attempt_ms = {now}
             WHERE id = $1 AND lease_owner = $2",
            now = DB::NOW_MS,
        );
        sqlx::query(&statement)
            .bind(delivery.row_id("lease")?)
            .bind(owner)
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("lease"))?;
        Ok(())
    }

    async fn list(&self, f: &DeliveryFilter) -> Result<Vec<DeliveryView>, StoreError> {
        let (conditions, params) = filter::deliveries(f);
        // Newest first walks the primary key backwards: with `before_id`
        // as the cursor, each page is an index range scan (keyset
        // pagination), however deep.
        let statement = format!(
            "SELECT {DELIVERY_COLUMNS} FROM delivery WHERE TRUE{conditions}
             ORDER BY id {} LIMIT ${}",
            if f.newest_first { "DESC" } else { "ASC" },
            params.len() + 1
        );
        let rows = bind!(sqlx::query_as::<DB, DeliveryRow>(&statement), params)
            .bind(i64::from(f.limit.unwrap_or(100)))
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::sqlx("list"))?;
        Ok(rows.into_iter().map(DeliveryView::from).collect())
    }

    /// A delivery's attempts by time: `attempt` counts from 1 again each
    /// time the delivery is queued again (a replay, a redelivery), so it
    /// does not order them.
    async fn attempts(&self, delivery_id: i64) -> Result<Vec<AttemptView>, StoreError> {
        let rows: Vec<AttemptRow> = sqlx::query_as(
            "SELECT attempt, started_ms, status, latency_ms, response_body, error
             FROM delivery_attempt WHERE delivery_id = $1 ORDER BY started_ms, id",
        )
        .bind(delivery_id)
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::sqlx("attempts"))?;
        Ok(rows.into_iter().map(AttemptView::from).collect())
    }

    /// The body a delivery carries (the same columns a lease reads).
    async fn payload(&self, delivery_id: i64) -> Result<Option<Leased>, StoreError> {
        let row: Option<LeasedRow> = sqlx::query_as(&format!(
            "SELECT {LEASED_COLUMNS} FROM delivery WHERE id = $1"
        ))
        .bind(delivery_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::sqlx("payload"))?;
        Ok(row.map(Leased::from))
    }

    /// Requeue matching deliveries, due now, attempts reset. A pending row
    /// is queued already, and a leased one is being attempted right now:
    /// both are left alone.
    async fn requeue(&self, f: &DeliveryFilter) -> Result<u64, StoreError> {
        let (conditions, params) = filter::deliveries(f);
        let statement = format!(
            "UPDATE delivery SET state = 'pending', attempts = 0, next_attempt_ms = {now},
                                 updated_ms = {now}
             WHERE NOT (state = 'pending' AND COALESCE(lease_until_ms > {now}, FALSE))
             {conditions}",
            now = DB::NOW_MS,
        );
        let done = bind!(sqlx::query::<DB>(&statement), params)
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("requeue"))?;
        Ok(DB::rows_affected(&done))
    }

    async fn depth(&self) -> Result<QueueDepth, StoreError> {
        let (pending, dead): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*) FILTER (WHERE state = 'pending'),
                    COUNT(*) FILTER (WHERE state = 'dead')
             FROM delivery",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::sqlx("depth"))?;
        Ok(QueueDepth {
            pending: pending as u64,
            dead: dead as u64,
        })
    }

    async fn count(&self, f: &DeliveryFilter) -> Result<u64, StoreError> {
        let (conditions, params) = filter::deliveries(f);
        // The second column only fits the row type the bounds already name.
        let statement =
            format!("SELECT COUNT(*), CAST(0 AS BIGINT) FROM delivery WHERE TRUE{conditions}");
        let (n, _): (i64, i64) = bind!(sqlx::query_as::<DB, (i64, i64)>(&statement), params)
            .fetch_one(&self.pool)
            .await
            .map_err(StoreError::sqlx("count"))?;
        Ok(n as u64)
    }

    async fn depth_by_handler(&self) -> Result<Vec<HandlerDepth>, StoreError> {
        // One count per state, each an index scan (the pending and dead
        // indexes), then merged: a filter on both states at once makes
        // PostgreSQL scan the whole table, delivered rows and all.
        let rows: Vec<HandlerCounts> = sqlx::query_as(
            "SELECT handler, CAST(SUM(pending) AS BIGINT) AS pending,
                    CAST(SUM(dead) AS BIGINT) AS dead
             FROM (SELECT handler, COUNT(*) AS pending, 0 AS dead FROM delivery
                   WHERE state = 'pending' GROUP BY handler
                   UNION ALL
                   SELECT handler, 0, COUNT(*) FROM delivery
                   WHERE state = 'dead' GROUP BY handler) AS counts
             GROUP BY handler ORDER BY handler",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::sqlx("depth"))?;
        Ok(rows.into_iter().map(HandlerDepth::from).collect())
    }
}
