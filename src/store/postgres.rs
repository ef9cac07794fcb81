//! PostgreSQL: the durable truth of the `redis` store. `processed_event`
//! holds every critical event exactly once, ever; `conflict_quarantine`
//! keeps requests that reused an event ID with a different body.

use std::str::FromStr;

use secrecy::ExposeSecret;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;

use std::time::Duration;

use super::delivery::{
    attempt_view, delivery_view, leased, push_filter, AttemptRecord, AttemptView, DeliveryFilter,
    DeliveryState, DeliveryView, Leased, Next, QueueDepth, DELIVERY_COLUMNS, LEASED_COLUMNS,
};
use super::group_commit::{Batch, GroupCommit};
use super::{ms, ProcessedEvent, StoreError};
use crate::config::StoreSettings;
use crate::provider::VerifiedWebhook;

/// Milliseconds since the epoch by the database's clock: every worker,
/// whatever host it runs on, agrees on leases and due times.
///
/// A macro as well as a constant, so that the statements run per webhook
/// and per delivery are assembled once, at compile time, with `concat!`
/// rather than by a `format!` (an allocation and a formatting pass) on
/// every call.
macro_rules! now_ms {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    };
}
const NOW_MS: &str = now_ms!();
/// The same clock read once, at the statement's start.
const STATEMENT_MS: &str = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

pub(crate) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// What inserting a critical event found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The row is new.
    Inserted,
    /// A row already held this event ID; its body digest (full SHA-256).
    Existing { body_sha256: Vec<u8> },
}

#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// Critical events (with their deliveries), group-committed.
    records: GroupCommit<RecordBatch>,
    /// Non-critical events' deliveries, group-committed.
    deliveries: GroupCommit<DeliveryBatch>,
    /// Delivery outcomes, group-committed.
    outcomes: GroupCommit<OutcomeBatch>,
}

/// Delivery outcome statements in flight at once. A worker holds a slot
/// until its outcome is committed, so one statement at a time caps
/// deliveries at a batch per commit latency (bench/NOTES.md: 780/s and a
/// backlog that did not drain, against 1,212/s and drained in 33 s with
/// four): a quarter of the pool carries them.
fn outcomes_in_flight(settings: &StoreSettings) -> usize {
    (settings.pool_size as usize / 4).max(settings.write_concurrency as usize)
}

/// Most writes in one group-committed statement.
const MAX_BATCH_ROWS: usize = 128;

impl PgStore {
    /// Open the pool. Establishes one connection, so a wrong URL or a down
    /// server is reported at start-up rather than on the first webhook.
    pub async fn open(settings: &StoreSettings) -> Result<Self, StoreError> {
        let url = settings
            .database_url
            .as_ref()
            .ok_or_else(|| StoreError::Unavailable {
                op: "open",
                source: "store.database_url is not set".into(),
            })?;
        // The URL may carry a password: never echo it or the parser's view
        // of it in an error.
        let options = PgConnectOptions::from_str(url.expose_secret())
            .map_err(|_| StoreError::Unavailable {
                op: "open",
                source: "store.database_url is not a valid PostgreSQL URL".into(),
            })?
            .application_name("hookline");
        let pool = PgPoolOptions::new()
            .max_connections(settings.pool_size)
            // A full pool or a dead server must not hold a request longer
            // than any other store call.
            .acquire_timeout(settings.timeout)
            // No ping before every acquire: it would double the round trips
            // of a critical event. A connection that died with the server
            // fails one statement (a 503 the provider retries) and is dropped.
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .map_err(StoreError::unavailable("open"))?;
        // Receiver statements in flight at once per kind of write. The
        // fewer, the more writes each carries under load (bench/NOTES.md:
        // one at a time gave the most rows per second); a lone write still
        // goes out at once. The rest of the pool serves the workers and the
        // operators' queries.
        let in_flight = settings.write_concurrency as usize;
        Ok(PgStore {
            records: GroupCommit::start(pool.clone(), MAX_BATCH_ROWS, in_flight),
            deliveries: GroupCommit::start(pool.clone(), MAX_BATCH_ROWS, in_flight),
            outcomes: GroupCommit::start(
                pool.clone(),
                MAX_BATCH_ROWS,
                outcomes_in_flight(settings),
            ),
            pool,
        })
    }

    /// Apply pending migrations (`hookline migrate`).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        MIGRATOR.run(&self.pool).await?;
        Ok(())
    }

    /// Refuse a schema that is behind this binary: every embedded migration
    /// must be applied, successfully, with the same checksum. Newer
    /// migrations in the database are tolerated (a rolling upgrade applies
    /// them before the old binaries stop).
    pub async fn check_schema(&self) -> Result<(), StoreError> {
        let table: Option<String> =
            sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations')::text")
                .fetch_one(&self.pool)
                .await
                .map_err(StoreError::unavailable("schema check"))?;
        let applied: Vec<(i64, Vec<u8>)> = if table.is_some() {
            sqlx::query("SELECT version, checksum FROM _sqlx_migrations WHERE success")
                .fetch_all(&self.pool)
                .await
                .map_err(StoreError::unavailable("schema check"))?
                .into_iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect()
        } else {
            Vec::new()
        };
        for m in MIGRATOR
            .iter()
            .filter(|m| m.migration_type.is_up_migration())
        {
            match applied.iter().find(|(v, _)| *v == m.version) {
                None => {
                    return Err(StoreError::SchemaBehind(format!(
                        "migration {} ({}) is not applied",
                        m.version, m.description
                    )))
                }
                Some((_, sum)) if sum[..] != m.checksum[..] => {
                    return Err(StoreError::SchemaBehind(format!(
                        "migration {} ({}) was applied with a different checksum",
                        m.version, m.description
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Insert a critical event unless its ID is already recorded, with one
    /// pending delivery per handler when the row is new; then say which.
    /// Group-committed with concurrent requests' events: one statement for
    /// all of them (atomic on its own) when the rows are new (the hot path).
    pub async fn record(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<Recorded, StoreError> {
        self.records.submit(PendingEvent::new(ev, handlers)).await
    }

    pub async fn quarantine(&self, ev: &VerifiedWebhook) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO conflict_quarantine
                 (provider, tenant, event_id, event_type, body_sha256, body, content_type)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(ev.provider_name())
        .bind(ev.tenant())
        .bind(ev.event_id())
        .bind(ev.event_type())
        .bind(&ev.body_sha256()[..])
        .bind(&ev.body()[..])
        .bind(ev.content_type())
        .execute(&self.pool)
        .await
        .map_err(StoreError::unavailable("quarantine"))?;
        Ok(())
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map_err(StoreError::unavailable("ping"))?;
        Ok(())
    }

    /// (processed_event rows, quarantined rows).
    pub async fn counts(&self) -> Result<(u64, u64), StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM processed_event),
                    (SELECT COUNT(*) FROM conflict_quarantine)",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("inventory"))?;
        Ok((row.get::<i64, _>(0) as u64, row.get::<i64, _>(1) as u64))
    }

    pub async fn processed_event(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
    ) -> Result<Option<ProcessedEvent>, StoreError> {
        let row = sqlx::query(
            "SELECT event_type, body_sha256, body FROM processed_event
             WHERE provider = $1 AND tenant = $2 AND event_id = $3",
        )
        .bind(provider)
        .bind(tenant)
        .bind(event_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::unavailable("lookup"))?;
        Ok(row.map(|r| ProcessedEvent {
            provider: provider.to_owned(),
            tenant: tenant.to_owned(),
            event_id: event_id.to_owned(),
            event_type: r.get(0),
            body_sha256: r.get(1),
            body: r.get(2),
        }))
    }
}

/// The delivery queue.
impl PgStore {
    /// One pending delivery per handler for a non-critical event (critical
    /// events get theirs with their row in [`PgStore::record`]),
    /// group-committed with concurrent requests' deliveries.
    pub async fn record_deliveries(
        &self,
        ev: &VerifiedWebhook,
        handlers: &[&str],
    ) -> Result<(), StoreError> {
        self.deliveries
            .submit(PendingEvent::new(ev, handlers))
            .await
    }

    pub async fn lease_deliveries(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
    ) -> Result<Vec<Leased>, StoreError> {
        // SKIP LOCKED: concurrent workers each take different rows without
        // waiting on one another. A lease also moves the row's due time to
        // the lease's end (when it is due again if its worker dies), so the
        // due index holds the rows that are due at its front, and leased
        // rows behind them: a lease statement reads the rows it takes and
        // stops. The due time is the statement's start (a stable
        // expression, so an index bound rather than a filter on every row).
        let rows = sqlx::query(&format!(
            "UPDATE delivery SET lease_owner = $1, lease_until_ms = {NOW_MS} + $2,
                                 next_attempt_ms = {NOW_MS} + $2
             WHERE id IN (SELECT id FROM delivery
                          WHERE state = 'pending' AND next_attempt_ms <= {STATEMENT_MS}
                            AND (lease_until_ms IS NULL OR lease_until_ms <= {STATEMENT_MS})
                          ORDER BY next_attempt_ms LIMIT $3
                          FOR UPDATE SKIP LOCKED)
             RETURNING {LEASED_COLUMNS}"
        ))
        .bind(owner)
        .bind(ms(lease))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("lease"))?;
        Ok(rows.iter().map(|r| leased!(r, i32)).collect())
    }

    /// Record an attempt and its outcome, if `owner` still holds the lease,
    /// group-committed with other workers' outcomes.
    pub async fn finish_delivery(
        &self,
        d: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        self.outcomes
            .submit(Outcome {
                delivery_id: d.id,
                owner: owner.to_owned(),
                attempt: attempt.clone(),
                next,
            })
            .await
    }

    pub async fn list_deliveries(
        &self,
        f: &DeliveryFilter,
    ) -> Result<Vec<DeliveryView>, StoreError> {
        let mut q = sqlx::QueryBuilder::new(format!(
            "SELECT {DELIVERY_COLUMNS} FROM delivery WHERE TRUE"
        ));
        push_filter!(&mut q, f);
        q.push(" ORDER BY id LIMIT ")
            .push_bind(i64::from(f.limit.unwrap_or(100)));
        let rows = q
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(StoreError::unavailable("list"))?;
        Ok(rows.iter().map(|r| delivery_view!(r, i32)).collect())
    }

    pub async fn delivery_attempts(
        &self,
        delivery_id: i64,
    ) -> Result<Vec<AttemptView>, StoreError> {
        let rows = sqlx::query(
            "SELECT attempt, started_ms, status, latency_ms, response_body, error
             FROM delivery_attempt WHERE delivery_id = $1 ORDER BY attempt, id",
        )
        .bind(delivery_id)
        .fetch_all(&self.pool)
        .await
        .map_err(StoreError::unavailable("attempts"))?;
        Ok(rows.iter().map(|r| attempt_view!(r, i32)).collect())
    }

    /// Requeue matching deliveries, due now, attempts reset; rows a worker
    /// is holding right now are left alone.
    pub async fn requeue(&self, f: &DeliveryFilter) -> Result<u64, StoreError> {
        let mut q = sqlx::QueryBuilder::new(format!(
            "UPDATE delivery SET state = 'pending', attempts = 0, next_attempt_ms = {NOW_MS},
                                 updated_ms = {NOW_MS}
             WHERE NOT (state = 'pending' AND COALESCE(lease_until_ms > {NOW_MS}, FALSE))"
        ));
        push_filter!(&mut q, f);
        Ok(q.build()
            .execute(&self.pool)
            .await
            .map_err(StoreError::unavailable("requeue"))?
            .rows_affected())
    }

    pub async fn queue_depth(&self) -> Result<QueueDepth, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FILTER (WHERE state = 'pending'), COUNT(*) FILTER (WHERE state = 'dead')
             FROM delivery",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::unavailable("depth"))?;
        Ok(QueueDepth {
            pending: row.get::<i64, _>(0) as u64,
            dead: row.get::<i64, _>(1) as u64,
        })
    }
}

/// An event to record, owned so that it can wait in a group-commit batch.
pub(crate) struct PendingEvent {
    ev: VerifiedWebhook,
    handlers: Vec<String>,
}

impl PendingEvent {
    fn new(ev: &VerifiedWebhook, handlers: &[&str]) -> Self {
        PendingEvent {
            ev: ev.clone(),
            handlers: handlers.iter().map(|h| (*h).to_owned()).collect(),
        }
    }
}

/// The events of a batch as one array per column (`unnest` turns them back
/// into rows, numbered from 1 in `n`), and their handlers as (n, handler)
/// pairs.
macro_rules! event_input {
    () => {
        "input AS (
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[],
                                  $6::bytea[], $7::text[])
                 WITH ORDINALITY AS i(provider, tenant, event_id, event_type, body_sha256, body,
                                      content_type, n)
         ), handlers AS (
             SELECT * FROM unnest($8::bigint[], $9::text[]) AS h(n, handler)
         )"
    };
}

/// The pending deliveries of the events in `$from` (a relation shaped like
/// `input`), one per handler. Rows are inserted in key order, so that
/// concurrent batches take their locks in the same order.
macro_rules! insert_deliveries {
    ($from:literal) => {
        concat!(
            "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, content_type,
                                   body, state, next_attempt_ms, created_ms, updated_ms)
             SELECT e.provider, e.tenant, e.event_id, h.handler, e.event_type, e.content_type,
                    e.body, 'pending', ",
            now_ms!(),
            ", ",
            now_ms!(),
            ", ",
            now_ms!(),
            "
             FROM ",
            $from,
            " e JOIN handlers h ON h.n = e.n
             ORDER BY e.provider, e.tenant, e.event_id, h.handler
             ON CONFLICT (provider, tenant, event_id, handler) DO NOTHING"
        )
    };
}

fn bind_events<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    items: &'q [PendingEvent],
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    let column = |f: fn(&'q VerifiedWebhook) -> &'q str| -> Vec<&'q str> {
        items.iter().map(|p| f(&p.ev)).collect()
    };
    let (mut handler_n, mut handler) = (Vec::new(), Vec::new());
    for (n, p) in (1i64..).zip(items) {
        for h in &p.handlers {
            handler_n.push(n);
            handler.push(h.as_str());
        }
    }
    query
        .bind(column(VerifiedWebhook::provider_name))
        .bind(column(VerifiedWebhook::tenant))
        .bind(column(VerifiedWebhook::event_id))
        .bind(column(VerifiedWebhook::event_type))
        .bind(
            items
                .iter()
                .map(|p| &p.ev.body_sha256()[..])
                .collect::<Vec<&[u8]>>(),
        )
        .bind(
            items
                .iter()
                .map(|p| &p.ev.body()[..])
                .collect::<Vec<&[u8]>>(),
        )
        .bind(
            items
                .iter()
                .map(|p| p.ev.content_type())
                .collect::<Vec<Option<&str>>>(),
        )
        .bind(handler_n)
        .bind(handler)
}

/// Critical events: each row inserted unless its ID is recorded, and the
/// deliveries of the rows that are new, in one statement.
#[derive(Debug)]
pub(crate) struct RecordBatch;

impl Batch for RecordBatch {
    type Item = PendingEvent;
    type Out = Recorded;
    const OP: &'static str = "commit";

    async fn run(pool: &PgPool, items: &[PendingEvent]) -> Result<Vec<Recorded>, sqlx::Error> {
        // Of several writes of one ID in a batch only the first is offered
        // (the others find its row, like a retry would); rows go in key
        // order.
        let won = bind_events(
            sqlx::query(concat!(
                "WITH ",
                event_input!(),
                ", firsts AS (
                     SELECT DISTINCT ON (provider, tenant, event_id) * FROM input
                     ORDER BY provider, tenant, event_id, n
                 ), ins AS (
                     INSERT INTO processed_event
                         (provider, tenant, event_id, event_type, body_sha256, body, content_type)
                     SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type
                     FROM firsts ORDER BY provider, tenant, event_id
                     ON CONFLICT (provider, tenant, event_id) DO NOTHING
                     RETURNING provider, tenant, event_id
                 ), won AS (
                     SELECT f.* FROM firsts f JOIN ins USING (provider, tenant, event_id)
                 ), deliveries AS (",
                insert_deliveries!("won"),
                ")
                 SELECT n FROM won"
            )),
            items,
        )
        .fetch_all(pool)
        .await?;
        let inserted = numbered(&won, items.len());
        let mut out = Vec::with_capacity(items.len());
        for (item, inserted) in items.iter().zip(inserted) {
            if inserted {
                out.push(Recorded::Inserted);
                continue;
            }
            // A separate statement: its snapshot sees the row even if it
            // was committed by a concurrent insert the INSERT above waited
            // for. Rare: Redis answers duplicates before they get here.
            let body_sha256: Vec<u8> = sqlx::query_scalar(
                "SELECT body_sha256 FROM processed_event
                 WHERE provider = $1 AND tenant = $2 AND event_id = $3",
            )
            .bind(item.ev.provider_name())
            .bind(item.ev.tenant())
            .bind(item.ev.event_id())
            .fetch_one(pool)
            .await?;
            out.push(Recorded::Existing { body_sha256 });
        }
        Ok(out)
    }
}

/// Non-critical events' deliveries, in one statement.
#[derive(Debug)]
pub(crate) struct DeliveryBatch;

impl Batch for DeliveryBatch {
    type Item = PendingEvent;
    type Out = ();
    const OP: &'static str = "commit";

    async fn run(pool: &PgPool, items: &[PendingEvent]) -> Result<Vec<()>, sqlx::Error> {
        bind_events(
            sqlx::query(concat!(
                "WITH ",
                event_input!(),
                " ",
                insert_deliveries!("input")
            )),
            items,
        )
        .execute(pool)
        .await?;
        Ok(vec![(); items.len()])
    }
}

/// A delivery attempt's outcome, to record while the lease is held.
pub(crate) struct Outcome {
    delivery_id: i64,
    owner: String,
    attempt: AttemptRecord,
    next: Next,
}

/// Delivery outcomes and their attempt rows, in one statement; each only
/// where its worker still holds the lease.
#[derive(Debug)]
pub(crate) struct OutcomeBatch;

impl Batch for OutcomeBatch {
    type Item = Outcome;
    type Out = bool;
    const OP: &'static str = "finish";

    async fn run(pool: &PgPool, items: &[Outcome]) -> Result<Vec<bool>, sqlx::Error> {
        let (states, delays): (Vec<&str>, Vec<i64>) = items
            .iter()
            .map(|o| match o.next {
                Next::Delivered => (DeliveryState::Delivered.as_str(), 0),
                Next::Dead => (DeliveryState::Dead.as_str(), 0),
                Next::RetryIn(delay) => (DeliveryState::Pending.as_str(), ms(delay)),
            })
            .unzip();
        let owned = sqlx::query(concat!(
            "WITH input AS (
                 SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::bigint[],
                                      $6::int[], $7::text[], $8::bigint[], $9::bigint[], $10::text[])
                     WITH ORDINALITY AS i(id, owner, state, attempts, delay_ms, status, error,
                                          started_ms, latency_ms, response_body, n)
             ), upd AS (
                 UPDATE delivery d SET state = i.state, attempts = i.attempts,
                                       next_attempt_ms = ",
            now_ms!(),
            " + i.delay_ms,
                                       lease_owner = NULL, lease_until_ms = NULL,
                                       last_status = i.status, last_error = i.error,
                                       updated_ms = ",
            now_ms!(),
            "
                 FROM input i
                 WHERE d.id = i.id AND d.lease_owner = i.owner
                 RETURNING d.id
             ), att AS (
                 INSERT INTO delivery_attempt
                     (delivery_id, attempt, started_ms, status, latency_ms, response_body, error)
                 SELECT i.id, i.attempts, i.started_ms, i.status, i.latency_ms, i.response_body,
                        i.error
                 FROM input i JOIN upd USING (id)
             )
             SELECT i.n FROM input i JOIN upd USING (id)"
        ))
        .bind(items.iter().map(|o| o.delivery_id).collect::<Vec<i64>>())
        .bind(items.iter().map(|o| o.owner.as_str()).collect::<Vec<&str>>())
        .bind(states)
        .bind(
            items
                .iter()
                .map(|o| o.attempt.attempt as i32)
                .collect::<Vec<i32>>(),
        )
        .bind(delays)
        .bind(
            items
                .iter()
                .map(|o| o.attempt.status.map(i32::from))
                .collect::<Vec<Option<i32>>>(),
        )
        .bind(
            items
                .iter()
                .map(|o| o.attempt.error.as_deref())
                .collect::<Vec<Option<&str>>>(),
        )
        .bind(
            items
                .iter()
                .map(|o| o.attempt.started_ms)
                .collect::<Vec<i64>>(),
        )
        .bind(
            items
                .iter()
                .map(|o| ms(o.attempt.latency))
                .collect::<Vec<i64>>(),
        )
        .bind(
            items
                .iter()
                .map(|o| o.attempt.response_body.as_str())
                .collect::<Vec<&str>>(),
        )
        .fetch_all(pool)
        .await?;
        Ok(numbered(&owned, items.len()))
    }
}

/// Which of `len` inputs the rows name by their number `n` (from 1, the
/// first column).
fn numbered(rows: &[sqlx::postgres::PgRow], len: usize) -> Vec<bool> {
    let mut hit = vec![false; len];
    for row in rows {
        let n: i64 = row.get(0);
        if let Some(slot) = usize::try_from(n - 1).ok().and_then(|i| hit.get_mut(i)) {
            *slot = true;
        }
    }
    hit
}
