//! The group-committed writes (see `batching/group_commit.rs`): critical events with
//! their deliveries, deliveries alone, and delivery outcomes. Each batch is
//! one statement (`sql.rs`); the rare items its answer leaves open (a row
//! or deliveries that already existed) get a statement of their own, whose
//! snapshot sees what concurrent statements committed.

use std::collections::HashSet;
use std::sync::Mutex;

use sqlx::postgres::{PgPool, PgRow};
use sqlx::Row;

use super::sql::{ALIGN_ROW_WITH_DELIVERIES, RECORD_DELIVERIES, RECORD_EVENTS, RECORD_OUTCOMES};
use crate::ids::HandlerName;
use crate::provider::VerifiedWebhook;
use crate::store::batching::Batch;
use crate::store::delivery::{DeliveryState, Next, Outcome};
use crate::store::handoff::{handed, Handoff, Ticket};
use crate::store::sql::{other_body, OtherBody};
use crate::store::types::{ms, now_ms};

/// An event to record, owned so that it can wait in a group-commit batch.
pub(crate) struct PendingEvent {
    pub(super) ev: VerifiedWebhook,
    pub(super) handlers: Vec<HandlerName>,
    /// Per handler, the room this process's workers keep for the delivery
    /// if it is handed off (`handoff.rs`); taken when it is.
    tickets: Mutex<Vec<Option<Ticket>>>,
    handoff: Handoff,
}

impl PendingEvent {
    pub(super) fn new(ev: &VerifiedWebhook, handlers: &[&HandlerName], handoff: &Handoff) -> Self {
        let handlers: Vec<HandlerName> = handlers.iter().map(|h| (*h).clone()).collect();
        PendingEvent {
            ev: ev.clone(),
            tickets: Mutex::new(handoff.reserve_all(&handlers)),
            handlers,
            handoff: handoff.clone(),
        }
    }

    fn tickets(&self) -> std::sync::MutexGuard<'_, Vec<Option<Ticket>>> {
        self.tickets.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hand the deliveries the statement leased for this event (`ids` and
    /// `handlers` columns of its answer) to the workers, each once per
    /// batch (`seen`); whether any of its inserted deliveries was not
    /// handed off (so the lease loop must look).
    fn hand_off(&self, row: &PgRow, inserted: usize, seen: &mut HashSet<i64>) -> bool {
        let ids: Option<Vec<i64>> = row.get("handed_ids");
        let names: Option<Vec<HandlerName>> = row.get("handed_handlers");
        let (ids, names) = (ids.unwrap_or_default(), names.unwrap_or_default());
        let mut tickets = self.tickets();
        let created_ms = now_ms();
        for (id, handler) in ids.iter().zip(names) {
            let Some(i) = self.handlers.iter().position(|h| *h == handler) else {
                continue;
            };
            let Some(ticket) = tickets[i].take() else {
                continue;
            };
            if !seen.insert(*id) {
                continue;
            }
            let leased = handed(&self.ev, *id, &handler, created_ms);
            self.handoff.hand(leased, ticket);
        }
        inserted > ids.len()
    }
}

/// What recording an event found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// New, with this body.
    Inserted,
    /// Its row exists; the full digest of the body it holds (this one's for
    /// a duplicate, another for a conflict).
    Existing { body_sha256: Vec<u8> },
    /// No row, but deliveries carry another body (handed to handlers under
    /// `ack = "handlers"`, never completed): a conflict, and the original's
    /// own retry must still be able to complete it.
    Refused,
    /// Not recorded: a row holds this (guarded) body under another event
    /// ID within the window, a resend under a fresh ID.
    Replay,
}

/// Bind a batch of events as the arrays `event_input!` unnests.
fn bind_events<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    items: &'q [PendingEvent],
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    let column = |f: fn(&'q VerifiedWebhook) -> &'q str| -> Vec<&'q str> {
        items.iter().map(|p| f(&p.ev)).collect()
    };
    let (mut handler_n, mut handler, mut lease) = (Vec::new(), Vec::new(), Vec::new());
    for (n, p) in (1i64..).zip(items) {
        let tickets = p.tickets();
        for (h, ticket) in p.handlers.iter().zip(tickets.iter()) {
            handler_n.push(n);
            handler.push(h.as_str());
            lease.push(ticket.is_some());
        }
    }
    // One process's batch: one owner and lease for all of it.
    let (owner, lease_ms) = items
        .iter()
        .find_map(|p| p.handoff.lease())
        .map_or((String::new(), 0), |(o, l)| (o.to_owned(), ms(l)));
    query
        .bind(column(VerifiedWebhook::provider_name))
        .bind(column(|ev| ev.tenant()))
        .bind(column(|ev| ev.event_id()))
        .bind(column(|ev| ev.event_type()))
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
        .bind(
            items
                .iter()
                .map(|p| p.ev.forwarded_json())
                .collect::<Vec<Option<String>>>(),
        )
        .bind(
            items
                .iter()
                .map(|p| {
                    let ev = &p.ev;
                    if ev.guards_body() {
                        ms(ev.provider().replay_window)
                    } else {
                        0
                    }
                })
                .collect::<Vec<i64>>(),
        )
        .bind(lease)
        .bind(owner)
        .bind(lease_ms)
        .bind(
            items
                .iter()
                .map(|p| p.ev.trace_parent())
                .collect::<Vec<Option<&str>>>(),
        )
        .bind(
            items
                .iter()
                .map(|p| p.ev.stored_query())
                .collect::<Vec<Option<&str>>>(),
        )
}

/// Per input (numbered from 1 in the first column): the row answering it.
fn by_number(rows: &[PgRow], len: usize) -> Vec<Option<&PgRow>> {
    let mut hit = vec![None; len];
    for row in rows {
        let n: i64 = row.get(0);
        if let Some(slot) = usize::try_from(n - 1).ok().and_then(|i| hit.get_mut(i)) {
            *slot = Some(row);
        }
    }
    hit
}

/// Hand the deliveries a committed statement leased to the workers, and
/// wake the lease loop for those it did not (`inserted`: the column
/// counting an input's new deliveries; negative for none).
fn handed_off(items: &[PendingEvent], rows: &[PgRow], inserted: usize) {
    let mut seen = HashSet::new();
    let mut queued = false;
    for (item, row) in items.iter().zip(by_number(rows, items.len())) {
        if let Some(row) = row {
            let n = usize::try_from(row.get::<i64, _>(inserted)).unwrap_or(0);
            queued |= item.hand_off(row, n, &mut seen);
        }
    }
    if queued {
        if let Some(item) = items.first() {
            item.handoff.queued();
        }
    }
}

/// Critical events and the deliveries of those that are new.
#[derive(Debug)]
pub(crate) struct RecordBatch;

impl Batch for RecordBatch {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = PendingEvent;
    type Out = Recorded;
    const OP: &'static str = "commit";
    /// Under load a critical event's statement waits up to 2 ms for
    /// company: PostgreSQL's CPU per event fell by 12-20% at 400 and 1,500
    /// events/s, for 0-5 ms more at p50 under load (bench/NOTES.md,
    /// "Records wait for company under load"); a lone request goes out at
    /// once.
    const LINGER_UNDER_LOAD: std::time::Duration = std::time::Duration::from_millis(2);
    /// Once this many events share the statement its fixed cost is spread
    /// (a record statement costs no less per event at 30 events than at
    /// 10, bench/NOTES.md, "What the rows alone cost"), and waiting longer
    /// only delays the answers: with the record statements one at a time,
    /// a wait of 2 ms on every statement bounded the receivers' rate under
    /// heavy load (bench/NOTES.md, "Kept: records that stop waiting once
    /// full enough").
    const LINGER_ROWS: usize = 16;

    async fn run(pool: &PgPool, items: &[PendingEvent]) -> Result<Vec<Recorded>, sqlx::Error> {
        let rows = bind_events(sqlx::query(RECORD_EVENTS), items)
            .fetch_all(pool)
            .await?;
        handed_off(items, &rows, 1);
        let mut out = Vec::with_capacity(items.len());
        for (item, won) in items.iter().zip(by_number(&rows, items.len())) {
            let recorded = match won {
                Some(row) if row.get::<i64, _>(1) < 0 => Recorded::Replay,
                // New, with all of its deliveries: the hot path.
                Some(row) if row.get::<i64, _>(1) as usize == item.handlers.len() => {
                    Recorded::Inserted
                }
                // New, but some deliveries existed already: from this body
                // (`ack = "handlers"` recorded them first), or from another
                // that a concurrent request recorded, which the handlers
                // get, and so the row must describe.
                Some(_) => match sqlx::query_scalar(ALIGN_ROW_WITH_DELIVERIES)
                    .bind(item.ev.provider_name())
                    .bind(item.ev.tenant())
                    .bind(item.ev.event_id())
                    .bind(&item.ev.body_sha256()[..])
                    .bind(&item.ev.body()[..])
                    .fetch_optional(pool)
                    .await?
                {
                    None => Recorded::Inserted,
                    Some(body_sha256) => Recorded::Existing { body_sha256 },
                },
                // Recorded already, or its deliveries carry another body.
                None => match other_body(pool, &item.ev).await? {
                    Some(OtherBody {
                        digest,
                        in_row: true,
                    }) => Recorded::Existing {
                        body_sha256: digest,
                    },
                    Some(_) => Recorded::Refused,
                    // Then the row holds this body. Read, not assumed: a
                    // duplicate is answered only for a row that is there
                    // (if it is not, this fails and the provider retries).
                    None => Recorded::Existing {
                        body_sha256: sqlx::query_scalar(
                            "SELECT body_sha256 FROM processed_event
                             WHERE provider = $1 AND tenant = $2 AND event_id = $3",
                        )
                        .bind(item.ev.provider_name())
                        .bind(item.ev.tenant())
                        .bind(item.ev.event_id())
                        .fetch_one(pool)
                        .await?,
                    },
                },
            };
            out.push(recorded);
        }
        Ok(out)
    }
}

/// Deliveries without a new row: `None` when recorded, else the other body
/// the event is recorded with.
#[derive(Debug)]
pub(crate) struct DeliveryBatch;

impl Batch for DeliveryBatch {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = PendingEvent;
    type Out = Option<OtherBody>;
    const OP: &'static str = "deliveries";

    async fn run(
        pool: &PgPool,
        items: &[PendingEvent],
    ) -> Result<Vec<Option<OtherBody>>, sqlx::Error> {
        let rows = bind_events(sqlx::query(RECORD_DELIVERIES), items)
            .fetch_all(pool)
            .await?;
        handed_off(items, &rows, 2);
        let mut out = Vec::with_capacity(items.len());
        for (item, row) in items.iter().zip(by_number(&rows, items.len())) {
            let settled = row.is_some_and(|r| {
                !r.get::<bool, _>(1) && r.get::<i64, _>(2) as usize == item.handlers.len()
            });
            // Every delivery went in with this body: the hot path.
            // Otherwise some existed, or were refused: which body holds
            // them is what a statement of its own sees now.
            out.push(if settled {
                None
            } else {
                other_body(pool, &item.ev).await?
            });
        }
        Ok(out)
    }
}

/// Delivery outcomes and their attempt rows.
#[derive(Debug)]
pub(crate) struct OutcomeBatch;

impl Batch for OutcomeBatch {
    type Target = PgPool;
    type Error = sqlx::Error;
    type Item = Outcome;
    type Out = bool;
    const OP: &'static str = "finish";
    /// Nobody's answer waits on an outcome (the handler has answered, the
    /// worker's slot is free), so it waits for others to share its
    /// statement. Without the wait, at 1,500 events/s 94 outcomes in 100
    /// went out alone; with 20 ms, 3 statements carry them, and
    /// PostgreSQL's execution time per event fell from 0.30 to 0.17 ms
    /// (bench/NOTES.md, "Outcomes that wait for company").
    const LINGER: std::time::Duration = std::time::Duration::from_millis(20);
    /// A worker keeps a place until its outcome is written, and has a
    /// bounded number (`worker::outcome_places`): a batch waiting its
    /// whole 20 ms for company capped deliveries near the places per
    /// 20 ms, whatever the rate. Full enough, it goes out at once
    /// (bench/NOTES.md, "Outcomes that go out once full enough").
    const LINGER_ROWS: usize = crate::store::delivery::OUTCOME_BATCH_ROWS;

    async fn run(pool: &PgPool, items: &[Outcome]) -> Result<Vec<bool>, sqlx::Error> {
        let (states, delays): (Vec<&str>, Vec<i64>) = items
            .iter()
            .map(|o| match o.next {
                Next::Delivered => (DeliveryState::Delivered.as_str(), 0),
                Next::Dead => (DeliveryState::Dead.as_str(), 0),
                Next::RetryIn(delay) => (DeliveryState::Pending.as_str(), ms(delay)),
            })
            .unzip();
        let (bodies, errors): (Vec<String>, Vec<Option<String>>) =
            items.iter().map(|o| o.attempt.storable()).unzip();
        let owned = sqlx::query(RECORD_OUTCOMES)
            .bind(items.iter().map(|o| o.delivery_id).collect::<Vec<i64>>())
            .bind(
                items
                    .iter()
                    .map(|o| o.owner.as_str())
                    .collect::<Vec<&str>>(),
            )
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
            .bind(errors)
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
            .bind(bodies)
            .fetch_all(pool)
            .await?;
        Ok(by_number(&owned, items.len())
            .into_iter()
            .map(|row| row.is_some())
            .collect())
    }
}
