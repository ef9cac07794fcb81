//! Non-critical deliveries in Redis Streams (`store.non_critical_deliveries
//! = "redis"` on the redis store): the queue the workers lease them from
//! and finish them in, one stream per handler and provider+tenant
//! ([`StreamLane`]), with no PostgreSQL on their way. Only a dead letter
//! reaches PostgreSQL, where operators see and requeue it like any other
//! (`postgres/dead.rs`).
//!
//! The guarantees are those of the `delivery` table's queue for as long as
//! Redis keeps its data: at least once (an entry leaves its stream only
//! once its outcome is written, and a dead worker's entries are taken over
//! after `delivery.lease`), the same `webhook-id`, retries with backoff,
//! the circuit breaker (the workers' gates apply to both queues). A Redis
//! that restarts without persistence loses the entries waiting in it,
//! with the dedup keys (`docs/redis-store.md`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use super::batching::GroupCommit;
use super::delivery::{AttemptRecord, DeliveryFilter, LeaseFrom, Leased, Next, StreamLane};
use super::postgres::PgStore;
use super::redis::{start_finishes, Finish, FinishBatch, RedisDedup, Release};
use super::report::{StreamWaiting, UnreadStream, WaitingList};
use super::types::{ms, now_ms, EventKey};
use super::StoreError;
use crate::ids::HandlerName;

/// Most entries read from each stream and each retry set to find an
/// event's waiting deliveries, or to list them.
const READ: u32 = 1000;

#[derive(Debug, Clone)]
pub struct StreamQueue {
    redis: RedisDedup,
    pg: PgStore,
    /// Every stream a configured handler may have (`Store::with_lanes`).
    lanes: Arc<[StreamLane]>,
    /// Where the next lease starts among the lanes, so that a busy lane
    /// does not keep the others waiting.
    next: Arc<AtomicUsize>,
    /// Woken when this process appended deliveries (`RedisPg::claim_committed`).
    wake: Arc<Notify>,
    /// Where holds are ended, many in one script call.
    finishes: GroupCommit<FinishBatch>,
}

impl StreamQueue {
    pub(crate) fn new(redis: RedisDedup, pg: PgStore) -> Self {
        StreamQueue {
            finishes: start_finishes(redis.clone()),
            redis,
            pg,
            lanes: Arc::from([]),
            next: Arc::default(),
            wake: Arc::default(),
        }
    }

    /// What the lease loop waits on for deliveries this process appended.
    pub(crate) fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// The queue over `lanes`.
    pub(crate) fn with_lanes(mut self, lanes: Vec<StreamLane>) -> Self {
        self.lanes = lanes.into();
        self
    }

    /// Lease up to `limit` due deliveries to `owner` for `lease`, from the
    /// lanes of the handlers `from` names, a lane at a time until the limit
    /// is reached (each lane one script).
    pub async fn lease(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        let n = self.lanes.len();
        let mut out = Vec::new();
        if n == 0 {
            return Ok(out);
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            let lane = &self.lanes[(start + i) % n];
            let wanted = match from {
                LeaseFrom::Every => true,
                LeaseFrom::Only(handlers) => handlers.iter().any(|h| **h == lane.handler),
            };
            let room = limit.saturating_sub(out.len() as u32);
            if room == 0 {
                break;
            }
            if wanted {
                out.extend(self.redis.lease_lane(lane, owner, room, lease).await?);
            }
        }
        Ok(out)
    }

    /// Record an attempt's outcome if `owner` still holds the entry: it
    /// goes when delivered, waits in its retry set until due, or becomes a
    /// dead letter in PostgreSQL (written before the entry goes, so a
    /// failure between the two attempts it again rather than losing it).
    pub async fn finish(
        &self,
        d: &Leased,
        owner: &str,
        attempt: &AttemptRecord,
        next: Next,
    ) -> Result<bool, StoreError> {
        let how = match next {
            Next::Delivered => Release::Ack,
            Next::RetryIn(delay) => Release::Retry {
                due_ms: now_ms().saturating_add(ms(delay)),
                attempt: Some(attempt),
            },
            Next::Dead => {
                // Boxed: rare, and its future is large (bench/NOTES.md,
                // "Kept: futures that carry only the common path").
                if !Box::pin(self.pg.record_dead_letter(d, attempt)).await? {
                    tracing::warn!(
                        delivery = d.name(),
                        "the handler already has a delivery row for this event; it stands for this dead letter"
                    );
                }
                Release::Ack
            }
        };
        self.release(d, owner, how).await
    }

    /// Hand an unattempted entry back: due again at once for any worker.
    pub async fn give_back(&self, d: &Leased, owner: &str) -> Result<(), StoreError> {
        let how = Release::Retry {
            due_ms: now_ms(),
            attempt: None,
        };
        self.release(d, owner, how).await.map(drop)
    }

    /// End `owner`'s hold on `d`, with the other ends of holds that come
    /// meanwhile; false when another worker holds it now (nothing is
    /// written).
    async fn release(&self, d: &Leased, owner: &str, how: Release<'_>) -> Result<bool, StoreError> {
        let end = Finish::new(&self.redis, d, owner, how)?;
        self.finishes.submit(end).await?
    }

    /// Per lane that holds any, its handler and when its oldest waiting
    /// delivery was recorded.
    pub async fn oldest(&self) -> Result<Vec<(HandlerName, i64)>, StoreError> {
        let mut oldest = Vec::new();
        for lane in self.lanes.iter() {
            if let Some(at) = self.redis.lane_oldest(lane).await? {
                oldest.push((lane.handler.clone(), at));
            }
        }
        Ok(oldest)
    }

    /// Per lane, its handler and the deliveries waiting in it (queued,
    /// leased or due later).
    pub async fn pending(&self) -> Result<Vec<(HandlerName, u64)>, StoreError> {
        let mut pending = Vec::with_capacity(self.lanes.len());
        for lane in self.lanes.iter() {
            pending.push((lane.handler.clone(), self.redis.lane_depth(lane).await?));
        }
        Ok(pending)
    }

    /// The deliveries of `key`'s event waiting in its provider+tenant's
    /// lanes, one per handler that has one.
    pub async fn find(&self, key: &EventKey) -> Result<Vec<StreamWaiting>, StoreError> {
        let mut found = Vec::new();
        for lane in self.lanes.iter() {
            if lane.provider == key.provider && lane.tenant == key.tenant {
                found.extend(
                    self.redis
                        .lane_find(lane, Some(&key.event_id), READ)
                        .await?,
                );
            }
        }
        Ok(found)
    }

    /// The deliveries waiting in the lanes `filter` names (its provider,
    /// tenant and handler), of its event ID and type when it names them:
    /// the oldest `filter.limit` among the first `READ` entries of each
    /// lane's stream and retry set, and how many wait in those lanes. All
    /// `READ` are read whatever the limit: the retry set is in due order,
    /// not recorded order, so its oldest entry may be anywhere in it.
    pub async fn waiting(&self, filter: &DeliveryFilter) -> Result<WaitingList, StoreError> {
        let limit = filter.limit.unwrap_or(READ).min(READ);
        let mut list = WaitingList::default();
        for lane in self.lanes.iter().filter(|lane| {
            filter.provider.as_ref().is_none_or(|p| *p == lane.provider)
                && filter.tenant.as_ref().is_none_or(|t| *t == lane.tenant)
                && filter.handler.as_ref().is_none_or(|h| *h == lane.handler)
        }) {
            let found = self
                .redis
                .lane_find(lane, filter.event_id.as_ref(), READ)
                .await?;
            list.shown.extend(found.into_iter().filter(|w| {
                filter
                    .event_type
                    .as_ref()
                    .is_none_or(|t| t.as_str() == w.event_type)
            }));
            list.waiting += self.redis.lane_depth(lane).await?;
        }
        list.shown.sort_by(|a, b| a.recorded_at.cmp(&b.recorded_at));
        list.shown.truncate(limit as usize);
        Ok(list)
    }

    /// Streams holding deliveries that none of the lanes reads.
    pub async fn unread(&self) -> Result<Vec<UnreadStream>, StoreError> {
        self.redis.unread_streams(&self.lanes).await
    }
}
