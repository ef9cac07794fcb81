//! Non-critical deliveries in Redis Streams (`store.non_critical_deliveries
//! = "redis"`): the Redis half. Each handler has, per provider+tenant, a
//! stream of deliveries and a retry set, in the slot of the pair's dedup
//! keys (`keys::delivery_key`), so claim.lua appends to the streams in
//! the step that claims and completes the key. Workers lease with
//! stream_lease.lua (due retries back in, a dead worker's entries taken
//! over, new ones read for this worker) and end holds with
//! stream_finish.lua (acknowledged and deleted; a retry goes into the
//! retry set, due after its backoff), many in one call (`finish.rs`).
//!
//! An entry's fields, short because each waits in memory:
//! `e` event ID, `t` event type, `b` body, `m` when it was recorded (ms),
//! and when present `c` content type, `h` forwarded headers (JSON pairs),
//! `p` the request's `traceparent`, `q` its query string; after a failed
//! attempt `a` attempts made and `l` the attempts kept, the last answer
//! last (`stream_entry.rs`).

use std::collections::HashMap;
use std::time::Duration;

use redis::ScriptInvocation;

use super::finish::GROUP;
use super::{keys, scan, RedisDedup};
use crate::ids::{EventId, EventType, HandlerName};
use crate::provider::VerifiedWebhook;
use crate::store::delivery::{rfc3339_ms, Leased, Place, StreamLane};
use crate::store::report::{StreamWaiting, UnreadStream};
use crate::store::stream_entry::{KeptAttempt, StreamEntry};
use crate::store::types::{ms, now_ms};
use crate::store::StoreError;

impl RedisDedup {
    /// The stream and retry set of `lane`.
    fn lane_keys(&self, lane: &StreamLane) -> [Vec<u8>; 2] {
        keys::lane_keys(&self.prefix, &lane.provider, &lane.tenant, &lane.handler)
    }

    /// Add to a script's invocation (complete.lua's, or claim.lua's when it
    /// completes) the streams of `handlers`, after the dedup key; the
    /// caller passes their count and, when there are any, the entry
    /// (`entry_args`).
    pub(super) fn enqueue(
        &self,
        script: &mut ScriptInvocation<'_>,
        ev: &VerifiedWebhook,
        handlers: &[&HandlerName],
    ) -> usize {
        for h in handlers {
            let stream =
                keys::delivery_key(&self.prefix, ":q:", ev.provider_name(), ev.tenant(), h);
            script.key(stream);
        }
        handlers.len()
    }

    /// The entry appended to each stream, after the script's fixed
    /// arguments.
    pub(super) fn entry_args(script: &mut ScriptInvocation<'_>, ev: &VerifiedWebhook) {
        script
            .arg("e")
            .arg(ev.event_id().as_str())
            .arg("t")
            .arg(ev.event_type().as_str())
            .arg("b")
            .arg(&ev.body()[..])
            .arg("m")
            .arg(now_ms());
        if let Some(ct) = ev.content_type() {
            script.arg("c").arg(ct);
        }
        if let Some(json) = ev.forwarded_json() {
            script.arg("h").arg(json);
        }
        if let Some(tp) = ev.trace_parent() {
            script.arg("p").arg(tp);
        }
        if let Some(q) = ev.stored_query() {
            script.arg("q").arg(q);
        }
    }

    /// Lease up to `limit` of `lane`'s due deliveries to `owner`: entries
    /// it does not finish within `lease` are taken over by another worker.
    pub(crate) async fn lease_lane(
        &self,
        lane: &StreamLane,
        owner: &str,
        limit: u32,
        lease: Duration,
    ) -> Result<Vec<Leased>, StoreError> {
        let mut conn = self.conn().await?;
        let [stream, retry] = self.lane_keys(lane);
        let reply: Vec<(String, HashMap<String, Vec<u8>>)> = self
            .scripts
            .stream_lease
            .key(stream)
            .key(retry)
            .arg(GROUP)
            .arg(owner)
            .arg(limit.max(1))
            .arg(ms(lease).max(1))
            .arg(now_ms())
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("lease"))?;
        reply
            .into_iter()
            .map(|(id, fields)| leased(lane, id, fields))
            .collect()
    }

    /// Deliveries waiting in `lane`: in its stream (read or not) and its
    /// retry set.
    pub(crate) async fn lane_depth(&self, lane: &StreamLane) -> Result<u64, StoreError> {
        self.depth_of([&lane.provider, &lane.tenant, &lane.handler])
            .await
    }

    /// Streams under the prefix that none of `lanes` reads (their handler,
    /// tenant or provider left the configuration) and that hold
    /// deliveries, with how many wait in each.
    pub(crate) async fn unread_streams(
        &self,
        lanes: &[StreamLane],
    ) -> Result<Vec<UnreadStream>, StoreError> {
        let conn = self.conn().await?;
        let mut unread = Vec::new();
        for key in scan::keys_matching(conn, &keys::stream_pattern(&self.prefix)).await? {
            let Some(names) = keys::stream_names(&self.prefix, &key) else {
                continue;
            };
            let [p, t, h] = names;
            let read = lanes.iter().any(|l| {
                l.provider.as_str() == p && l.tenant.as_str() == t && l.handler.as_str() == h
            });
            if read {
                continue;
            }
            let waiting = self.depth_of(names).await?;
            if waiting > 0 {
                let [provider, tenant, handler] = names.map(str::to_owned);
                unread.push(UnreadStream {
                    provider,
                    tenant,
                    handler,
                    waiting,
                });
            }
        }
        Ok(unread)
    }

    /// Deliveries waiting in the stream and retry set of a provider,
    /// tenant and handler.
    async fn depth_of(&self, [provider, tenant, handler]: [&str; 3]) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let [stream, retry] = keys::lane_keys(&self.prefix, provider, tenant, handler);
        let (queued, retrying): (u64, u64) = redis::pipe()
            .cmd("XLEN")
            .arg(stream)
            .cmd("ZCARD")
            .arg(retry)
            .query_async(&mut conn)
            .await
            .map_err(StoreError::redis("depth"))?;
        Ok(queued + retrying)
    }
}

impl RedisDedup {
    /// When the oldest delivery waiting in `lane` was recorded, if any
    /// waits (stream_oldest.lua: read from the stream's front and the
    /// first `RETRIES_READ` of the retry set).
    pub(crate) async fn lane_oldest(&self, lane: &StreamLane) -> Result<Option<i64>, StoreError> {
        const RETRIES_READ: u32 = 1000;
        let mut conn = self.conn().await?;
        let [stream, retry] = self.lane_keys(lane);
        let oldest: i64 = self
            .scripts
            .stream_oldest
            .key(stream)
            .key(retry)
            .arg(RETRIES_READ)
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("oldest_pending"))?;
        Ok((oldest >= 0).then_some(oldest))
    }
}

impl RedisDedup {
    /// Deliveries waiting in `lane`, `event_id`'s or every one
    /// (stream_find.lua: among the first `read` entries of its stream and
    /// the first `read` of its retry set).
    pub(crate) async fn lane_find(
        &self,
        lane: &StreamLane,
        event_id: Option<&EventId>,
        read: u32,
    ) -> Result<Vec<StreamWaiting>, StoreError> {
        let mut conn = self.conn().await?;
        let [stream, retry] = self.lane_keys(lane);
        let found: Vec<(i64, HashMap<String, String>)> = self
            .scripts
            .stream_find
            .key(stream)
            .key(retry)
            .arg(event_id.map_or("", EventId::as_str))
            .arg(read.max(1))
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("lookup"))?;
        Ok(found
            .into_iter()
            .map(|(due, mut f)| {
                let mut take = |name: &str| f.remove(name).unwrap_or_default();
                let kept = KeptAttempt::parse_lines(&take("l"));
                // The last kept attempt is the last answer; an entry written
                // before that was so carries it as `s` and `x` as well.
                let last = kept.last();
                let last_status = take("s")
                    .parse()
                    .ok()
                    .or_else(|| last.and_then(|k| k.status));
                let last_error = Some(take("x"))
                    .filter(|x| !x.is_empty())
                    .or_else(|| last.and_then(|k| k.error.clone()));
                StreamWaiting {
                    provider: lane.provider.clone(),
                    tenant: lane.tenant.clone(),
                    event_id: take("e"),
                    event_type: take("t"),
                    handler: lane.handler.clone(),
                    attempts: take("a").parse().unwrap_or(0),
                    last_status,
                    last_error,
                    recorded_at: rfc3339_ms(take("m").parse().unwrap_or(0)),
                    retry_at: (due >= 0).then(|| rfc3339_ms(due)),
                    kept,
                }
            })
            .collect())
    }
}

/// A stream entry as a lease returns it.
fn leased(
    lane: &StreamLane,
    id: String,
    mut f: HashMap<String, Vec<u8>>,
) -> Result<Leased, StoreError> {
    let bad = |what: &str| StoreError::internal("lease", format!("stream entry {id}: {what}"));
    let mut text = |name: &str| -> Result<Option<String>, StoreError> {
        f.get_mut(name)
            .map(|v| String::from_utf8(std::mem::take(v)).map_err(|_| bad("not UTF-8")))
            .transpose()
    };
    let event_id = text("e")?.ok_or_else(|| bad("no event ID"))?;
    let event_type = text("t")?.unwrap_or_default();
    let created_ms = text("m")?.and_then(|m| m.parse().ok()).unwrap_or(0);
    let attempts = text("a")?.and_then(|a| a.parse().ok()).unwrap_or(0);
    let content_type = text("c")?;
    let forward_headers = text("h")?
        .and_then(|j| serde_json::from_str(&j).ok())
        .unwrap_or_default();
    let trace_parent = text("p")?;
    let query = text("q")?.unwrap_or_default();
    let kept = text("l")?.map_or_else(Vec::new, |l| KeptAttempt::parse_lines(&l));
    let body = f.remove("b").ok_or_else(|| bad("no body"))?;
    Ok(Leased {
        provider: lane.provider.clone(),
        tenant: lane.tenant.clone(),
        event_id: EventId::parse(event_id).map_err(|e| bad(&e.to_string()))?,
        handler: lane.handler.clone(),
        event_type: EventType::parse(event_type).map_err(|e| bad(&e.to_string()))?,
        content_type,
        body: bytes::Bytes::from(body),
        attempts,
        created_ms,
        forward_headers,
        trace_parent,
        query,
        handed: false,
        place: Place::Stream(StreamEntry { id, attempts: kept }),
    })
}
