//! The `Store` handle's calls for non-critical deliveries in Redis Streams
//! (`store.non_critical_deliveries = "redis"`, `store/streams.rs`), and
//! the figures that add them to the `delivery` table's (pending counts,
//! the oldest pending delivery). Without streams each is the table's alone.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use super::Store;
use crate::ids::HandlerName;
use crate::store::delivery::{
    DeliveryFilter, HandlerDepth, LeaseFrom, Leased, QueueDepth, StreamLane,
};
use crate::store::report::{StreamWaiting, UnreadStream, WaitingList};
use crate::store::streams::StreamQueue;
use crate::store::types::EventKey;
use crate::store::StoreError;

impl Store {
    /// The handle, with non-critical deliveries queued in `streams`.
    pub(crate) fn with_streams(mut self, streams: StreamQueue) -> Self {
        self.streams = Some(streams);
        self
    }

    /// The handle, its streams' queue reading the lanes the configuration
    /// gives (every provider+tenant and handler that may meet).
    pub fn with_lanes(mut self, lanes: impl FnOnce() -> Vec<StreamLane>) -> Self {
        self.streams = self.streams.take().map(|s| s.with_lanes(lanes()));
        self
    }

    /// What the streams' lease loop waits on, when there are streams.
    pub fn stream_waker(&self) -> Option<Arc<Notify>> {
        self.streams.as_ref().map(StreamQueue::waker)
    }

    /// Whether non-critical deliveries wait in Redis Streams.
    pub fn streams_deliveries(&self) -> bool {
        self.streams.is_some()
    }

    /// Lease up to `limit` of the deliveries waiting in Redis Streams (none
    /// unless configured); see [`StreamQueue::lease`].
    pub async fn lease_streams(
        &self,
        owner: &str,
        limit: u32,
        lease: Duration,
        from: LeaseFrom<'_>,
    ) -> Result<Vec<Leased>, StoreError> {
        match &self.streams {
            Some(s) => {
                self.bounded("lease", s.lease(owner, limit, lease, from))
                    .await
            }
            None => Ok(Vec::new()),
        }
    }

    /// Per handler, when its oldest pending delivery was recorded: in the
    /// `delivery` table or, when configured, in Redis Streams.
    pub async fn oldest_pending(&self) -> Result<Vec<(HandlerName, i64)>, StoreError> {
        let oldest = self
            .with_records("oldest_pending", |r| r.oldest_pending())
            .await?;
        let Some(s) = &self.streams else {
            return Ok(oldest);
        };
        let mut by_handler: BTreeMap<HandlerName, i64> = oldest.into_iter().collect();
        for (handler, at) in self.bounded("oldest_pending", s.oldest()).await? {
            let t = by_handler.entry(handler).or_insert(at);
            *t = (*t).min(at);
        }
        Ok(by_handler.into_iter().collect())
    }

    /// The deliveries of `key`'s event waiting in Redis Streams (none
    /// unless configured).
    pub async fn stream_waiting(&self, key: &EventKey) -> Result<Vec<StreamWaiting>, StoreError> {
        match &self.streams {
            Some(s) => self.bounded("lookup", s.find(key)).await,
            None => Ok(Vec::new()),
        }
    }

    /// The deliveries waiting in Redis Streams that `filter` matches, the
    /// oldest first (nothing unless configured); see
    /// [`StreamQueue::waiting`].
    pub async fn stream_list(&self, filter: &DeliveryFilter) -> Result<WaitingList, StoreError> {
        match &self.streams {
            Some(s) => self.bounded("list", s.waiting(filter)).await,
            None => Ok(WaitingList::default()),
        }
    }

    /// Streams in Redis that hold deliveries no configured handler reads
    /// (none unless configured). Walks the keyspace (SCAN): once at start,
    /// not per request, and not bounded by `store.timeout`.
    pub async fn unread_streams(&self) -> Result<Vec<UnreadStream>, StoreError> {
        match &self.streams {
            Some(s) => s.unread().await,
            None => Ok(Vec::new()),
        }
    }

    /// Deliveries waiting in Redis Streams (0 unless configured).
    pub async fn stream_pending(&self) -> Result<u64, StoreError> {
        let Some(s) = &self.streams else {
            return Ok(0);
        };
        let lanes = self.bounded("depth", s.pending()).await?;
        Ok(lanes.iter().map(|(_, n)| n).sum())
    }

    /// Pending and dead deliveries per handler, those waiting in Redis
    /// Streams counted as pending.
    pub async fn depth_by_handler(&self) -> Result<Vec<HandlerDepth>, StoreError> {
        let depths = self.with_records("depth", |r| r.depth_by_handler()).await?;
        let Some(s) = &self.streams else {
            return Ok(depths);
        };
        let mut by_handler: BTreeMap<HandlerName, QueueDepth> =
            depths.into_iter().map(|d| (d.handler, d.depth)).collect();
        for (handler, n) in self.bounded("depth", s.pending()).await? {
            by_handler.entry(handler).or_default().pending += n;
        }
        Ok(by_handler
            .into_iter()
            .map(|(handler, depth)| HandlerDepth { handler, depth })
            .collect())
    }
}
