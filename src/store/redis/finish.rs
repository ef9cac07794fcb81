//! Ending workers' holds on stream deliveries, many in one script call:
//! each end (delivered, due again, handed back) is submitted to a
//! [`GroupCommit`] of [`FinishBatch`], whose batches run
//! stream_finish.lua once for each stream they touch. The ends of the
//! 2 ms after one comes in, and those that come while two calls are out,
//! share a call, so Redis runs one script, and the worker's runtime makes
//! one round trip, for many deliveries (bench/NOTES.md, "Kept: stream
//! finishes that share a script").

use std::time::Duration;

use super::{keys, RedisDedup};
use crate::store::batching::{Batch, GroupCommit};
use crate::store::delivery::{AttemptRecord, Leased};
use crate::store::stream_entry::KEPT_ATTEMPTS;
use crate::store::StoreError;

/// Every stream's one consumer group: the workers share each stream's
/// entries, each read by one of them.
pub(super) const GROUP: &str = "workers";

/// Most ends of holds one batch carries (and so one script call at most).
const MAX_BATCH: usize = 64;

/// Batches out at once: one being written while the next forms.
const IN_FLIGHT: usize = 2;

/// How a worker ends its hold on an entry.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Release<'a> {
    /// Delivered, or dead-lettered in PostgreSQL: the entry goes.
    Ack,
    /// Due again at `due_ms`: after a failed `attempt`, or handed back
    /// unattempted (`None`) when its handler had no room.
    Retry {
        due_ms: i64,
        attempt: Option<&'a AttemptRecord>,
    },
}

/// One end of a hold, as stream_finish.lua takes it.
#[derive(Debug)]
pub(crate) struct Finish {
    /// The entry's stream and retry set.
    keys: [Vec<u8>; 2],
    /// The script's seven arguments for the entry: the worker, the entry,
    /// how, and for a retry when, attempts made, the attempt's line and how
    /// many lines are kept.
    args: [Vec<u8>; 7],
}

impl Finish {
    pub(crate) fn new(
        redis: &RedisDedup,
        d: &Leased,
        owner: &str,
        how: Release<'_>,
    ) -> Result<Self, StoreError> {
        let keys = keys::lane_keys(&redis.prefix, &d.provider, &d.tenant, &d.handler);
        let how = match how {
            Release::Ack => [
                "ack".into(),
                String::new(),
                String::new(),
                String::new(),
                "0".into(),
            ],
            Release::Retry { due_ms, attempt } => match attempt {
                Some(a) => [
                    "retry".into(),
                    due_ms.to_string(),
                    a.attempt.to_string(),
                    a.kept().line(),
                    KEPT_ATTEMPTS.to_string(),
                ],
                None => [
                    "retry".into(),
                    due_ms.to_string(),
                    String::new(),
                    String::new(),
                    "0".into(),
                ],
            },
        };
        Ok(Finish::of(keys, owner, d.entry_id("finish")?, how))
    }

    /// The end of `owner`'s hold on `entry` of the stream `keys` names:
    /// `how` is 'ack' or 'retry', then when due, attempts made, the
    /// attempt's line and how many lines are kept.
    fn of(keys: [Vec<u8>; 2], owner: &str, entry: &str, how: [String; 5]) -> Self {
        let [how, due, attempts, line, kept] = how;
        Finish {
            keys,
            args: [
                owner.as_bytes().to_vec(),
                entry.as_bytes().to_vec(),
                how.into_bytes(),
                due.into_bytes(),
                attempts.into_bytes(),
                line.into_bytes(),
                kept.into_bytes(),
            ],
        }
    }
}

/// The ends of holds that share a script call per stream.
#[derive(Debug)]
pub(crate) struct FinishBatch;

impl Batch for FinishBatch {
    type Target = RedisDedup;
    type Item = Finish;
    /// Per end: whether it was done, or the failure of its stream's call
    /// (a call that failed says nothing of another stream's, which may
    /// have ended its entries).
    type Out = Result<bool, StoreError>;
    type Error = StoreError;
    const OP: &'static str = "finish";
    /// Nobody's answer waits on an end (the handler has answered, the
    /// worker's slot is free), so it waits a moment for others to share
    /// its call; full enough, it goes at once.
    const LINGER: Duration = Duration::from_millis(2);
    const LINGER_ROWS: usize = crate::store::delivery::OUTCOME_BATCH_ROWS;

    async fn run(redis: &RedisDedup, items: &[Finish]) -> Result<Vec<Self::Out>, StoreError> {
        // The entries of each stream, in the order they came.
        let mut streams: Vec<(&[Vec<u8>; 2], Vec<usize>)> = Vec::new();
        for (i, f) in items.iter().enumerate() {
            match streams.iter_mut().find(|(keys, _)| **keys == f.keys) {
                Some((_, at)) => at.push(i),
                None => streams.push((&f.keys, vec![i])),
            }
        }
        let calls = streams
            .iter()
            .map(|(keys, at)| redis.finish_in(keys, at.iter().map(|&i| &items[i])));
        let answers = futures::future::join_all(calls).await;
        let mut done: Vec<Self::Out> = Vec::with_capacity(items.len());
        done.resize_with(items.len(), || Ok(false));
        for ((_, at), answer) in streams.iter().zip(answers) {
            let answer = answer.and_then(|answer| match answer.len() == at.len() {
                true => Ok(answer),
                false => Err(StoreError::internal(
                    "finish",
                    format!("{} answers for {} entries", answer.len(), at.len()),
                )),
            });
            match answer {
                Ok(answer) => {
                    for (&i, one) in at.iter().zip(answer) {
                        done[i] = Ok(one == 1);
                    }
                }
                Err(e) => {
                    for &i in at {
                        done[i] = Err(e.copied());
                    }
                }
            }
        }
        Ok(done)
    }
}

/// The batcher of `redis`'s stream finishes (started on the caller's
/// runtime; it ends with its last handle).
pub(crate) fn start(redis: RedisDedup) -> GroupCommit<FinishBatch> {
    GroupCommit::start(redis, MAX_BATCH, IN_FLIGHT)
}

impl RedisDedup {
    /// Run stream_finish.lua once for `entries`, all of the stream `keys`
    /// names: 1 for each entry ended, 0 for one another worker holds now.
    async fn finish_in(
        &self,
        keys: &[Vec<u8>; 2],
        entries: impl Iterator<Item = &Finish>,
    ) -> Result<Vec<i64>, StoreError> {
        let mut script = self.scripts.stream_finish.prepare_invoke();
        script.key(&keys[0]).key(&keys[1]).arg(GROUP);
        for f in entries {
            for a in &f.args {
                script.arg(a);
            }
        }
        let mut conn = self.conn().await?;
        script
            .invoke_async(&mut conn)
            .await
            .map_err(StoreError::redis("finish"))
    }
}

#[cfg(test)]
mod tests;
