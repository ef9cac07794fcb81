//! What a stream delivery waiting for its retry holds in Redis
//! (`store.non_critical_deliveries = "redis"`): its last answer once, as
//! the last of its kept attempts, and what an entry written by an earlier
//! version (its last answer also in fields `s` and `x`) still reads as.

use crate::common;

use std::time::Duration;

use common::TestApp;
use hookline::store::StreamWaiting;

use super::stream_deliveries::streams_of;
use super::stream_operators::with_a_waiting_delivery;

/// Each entry in `app`'s retry sets, as the names of its fields with
/// `(set, member)`; the sets' members are msgpack arrays of name, value
/// pairs, decoded by Redis's own `cmsgpack`.
async fn retry_entries(app: &TestApp) -> Vec<(String, Vec<String>)> {
    let mut conn = common::backing::redis_conn().await;
    redis::Script::new(
        r"
        local out = {}
        for _, set in ipairs(redis.call('KEYS', ARGV[1])) do
          for _, m in ipairs(redis.call('ZRANGE', set, 0, -1)) do
            local e, names = cmsgpack.unpack(m), {}
            for i = 1, #e, 2 do names[#names + 1] = e[i] end
            out[#out + 1] = {set, names}
          end
        end
        return out",
    )
    .arg(format!("{}:r:*", app.key_prefix()))
    .invoke_async(&mut conn)
    .await
    .unwrap()
}

/// The retry sets' entries once one is there (a retry goes back to its
/// stream when due, and comes back after its next attempt).
async fn waiting_for_a_retry(app: &TestApp) -> Vec<(String, Vec<String>)> {
    for _ in 0..250 {
        let entries = retry_entries(app).await;
        if !entries.is_empty() {
            return entries;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no entry waited in a retry set");
}

/// What the event's report (its console page) says waits for `event_id`.
async fn waiting(app: &TestApp, event_id: &str) -> StreamWaiting {
    let key = common::key("stripe", "acme", event_id);
    let report = streams_of(app).event_report(&key).await.unwrap();
    let mut waiting = report.expect("the event is known").waiting;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    waiting.remove(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_entry_holds_its_last_answer_once_as_its_last_kept_attempt() {
    let app = with_a_waiting_delivery("evt_once").await;
    let entries = waiting_for_a_retry(&app).await;
    let [(_, names)] = &entries[..] else {
        panic!("{entries:?}")
    };
    let has = |f: &str| names.iter().any(|n| n == f);
    assert!(has("l") && has("a") && has("e") && has("b"), "{names:?}");
    assert!(
        !has("s") && !has("x"),
        "no copy of the last answer: {names:?}"
    );
    // Operators still read the last answer: the kept attempt's.
    let w = waiting(&app, "evt_once").await;
    let last = w.kept.last().expect("an attempt is kept");
    assert!(w.last_error.is_some(), "{w:?}");
    assert_eq!((&w.last_error, w.last_status), (&last.error, last.status));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_an_earlier_version_wrote_still_reads_with_its_last_answer() {
    let app = with_a_waiting_delivery("evt_new").await;
    let entries = waiting_for_a_retry(&app).await;
    let set = &entries[0].0;
    // Written as versions before this one did: the last answer in `s` and
    // `x`, no kept attempts; due far ahead, so no worker takes it.
    let mut conn = common::backing::redis_conn().await;
    let _: i64 = redis::Script::new(
        r"return redis.call('ZADD', KEYS[1], '4102444800000', cmsgpack.pack({
            'e', 'evt_old', 't', 'charge.succeeded', 'b', '{}', 'm', '1795000000000',
            'a', '3', 's', '502', 'x', 'bad gateway'}))",
    )
    .key(set)
    .invoke_async(&mut conn)
    .await
    .unwrap();
    let w = waiting(&app, "evt_old").await;
    assert_eq!(w.attempts, 3);
    assert_eq!(w.last_status, Some(502));
    assert_eq!(w.last_error.as_deref(), Some("bad gateway"));
    assert!(w.kept.is_empty(), "{w:?}");
}
