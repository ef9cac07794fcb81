//! stream_finish.lua against a real Redis: a batch ends each entry only for
//! the worker that holds it, one call per stream it touches.

use std::time::Duration;

use secrecy::SecretString;

use super::*;
use crate::store::redis::RedisOptions;

fn url() -> String {
    std::env::var("HOOKLINE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into())
}

async fn connect() -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(url()).expect("a Redis URL");
    client
        .get_multiplexed_async_connection()
        .await
        .expect("connect to Redis")
}

/// A stream of `n` entries in the workers' group: worker `a` holds all but
/// the last, which `b` holds. Returns their IDs in order.
async fn held(
    conn: &mut redis::aio::MultiplexedConnection,
    keys: &[Vec<u8>; 2],
    n: usize,
) -> Vec<String> {
    delete(conn, &[keys]).await;
    let _: () = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(&keys[0])
        .arg(GROUP)
        .arg("$")
        .arg("MKSTREAM")
        .query_async(conn)
        .await
        .unwrap();
    let mut ids = Vec::new();
    for i in 0..n {
        let id: String = redis::cmd("XADD")
            .arg(&keys[0])
            .arg("*")
            .arg("e")
            .arg(format!("evt_{i}"))
            .arg("b")
            .arg("{}")
            .query_async(conn)
            .await
            .unwrap();
        ids.push(id);
    }
    for (worker, count) in [("a", n - 1), ("b", 1)] {
        let _: redis::Value = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(worker)
            .arg("COUNT")
            .arg(count)
            .arg("STREAMS")
            .arg(&keys[0])
            .arg(">")
            .query_async(conn)
            .await
            .unwrap();
    }
    ids
}

/// The Redis half under `prefix`, on the test Redis.
fn dedup(prefix: &str) -> RedisDedup {
    RedisDedup::new(&RedisOptions {
        url: Some(SecretString::from(url())),
        cluster: Vec::new(),
        key_prefix: prefix.into(),
        timeout: Duration::from_secs(5),
        ca_file: None,
    })
    .unwrap()
}

/// Two lanes of one receiver, `billing` and `ledger`, under a prefix of
/// the test's own, with the Redis half and a connection to look with.
struct TwoLanes {
    redis: RedisDedup,
    conn: redis::aio::MultiplexedConnection,
    billing: [Vec<u8>; 2],
    ledger: [Vec<u8>; 2],
}

async fn two_lanes(test: &str) -> TwoLanes {
    let prefix = format!("hl-finish-{test}-{}", std::process::id());
    TwoLanes {
        redis: dedup(&prefix),
        conn: connect().await,
        billing: keys::lane_keys(&prefix, "stripe", "acme", "billing"),
        ledger: keys::lane_keys(&prefix, "stripe", "acme", "ledger"),
    }
}

/// Delete the streams and retry sets of `lanes`.
async fn delete(conn: &mut redis::aio::MultiplexedConnection, lanes: &[&[Vec<u8>; 2]]) {
    let mut del = redis::cmd("DEL");
    for keys in lanes {
        del.arg(&keys[0]).arg(&keys[1]);
    }
    let _: () = del.query_async(conn).await.unwrap();
}

fn ack(keys: &[Vec<u8>; 2], owner: &str, entry: &str) -> Finish {
    let how = ["ack", "", "", "", "0"].map(String::from);
    Finish::of(keys.clone(), owner, entry, how)
}

fn retry(keys: &[Vec<u8>; 2], owner: &str, entry: &str, line: &str) -> Finish {
    let how = ["retry", "5000", "1", line, "20"].map(String::from);
    Finish::of(keys.clone(), owner, entry, how)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_ends_each_entry_only_for_the_worker_that_holds_it() {
    let TwoLanes {
        redis,
        mut conn,
        billing,
        ledger,
    } = two_lanes("test").await;
    let one = held(&mut conn, &billing, 3).await;
    let two = held(&mut conn, &ledger, 2).await;

    let line = r#"{"attempt":1,"status":503}"#;
    let batch = [
        ack(&billing, "a", &one[0]),
        ack(&ledger, "a", &two[0]),
        retry(&billing, "a", &one[1], line),
        // b holds it: a's end changes nothing.
        ack(&billing, "a", &one[2]),
        ack(&ledger, "b", &two[1]),
    ];
    let done: Vec<bool> = FinishBatch::run(&redis, &batch)
        .await
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(done, [true, true, true, false, true]);

    // Of billing's stream only b's entry is left, still pending for b.
    let left: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
        .arg(&billing[0])
        .arg("-")
        .arg("+")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(left.iter().map(|(id, _)| id).collect::<Vec<_>>(), [&one[2]]);
    let pending: Vec<(String, String, i64, i64)> = redis::cmd("XPENDING")
        .arg(&billing[0])
        .arg(GROUP)
        .arg("-")
        .arg("+")
        .arg(10)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!((&pending[0].0, pending[0].1.as_str()), (&one[2], "b"));
    // The retried entry waits in the retry set, due when it said, with its
    // attempt kept.
    let retries: Vec<(Vec<u8>, i64)> = redis::cmd("ZRANGE")
        .arg(&billing[1])
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].1, 5000);
    let packed = String::from_utf8_lossy(&retries[0].0);
    assert!(
        packed.contains("evt_1") && packed.contains(line),
        "{packed}"
    );
    // The ledger's stream is empty: both its entries ended.
    let len: i64 = redis::cmd("XLEN")
        .arg(&ledger[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(len, 0);

    delete(&mut conn, &[&billing, &ledger]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_call_fails_fails_only_its_own_entries() {
    let TwoLanes {
        redis,
        mut conn,
        billing,
        ledger: broken,
    } = two_lanes("fail").await;
    let ids = held(&mut conn, &billing, 2).await;
    // Not a stream: XPENDING fails on it with WRONGTYPE.
    let _: () = redis::cmd("SET")
        .arg(&broken[0])
        .arg("x")
        .query_async(&mut conn)
        .await
        .unwrap();

    let batch = [ack(&broken, "a", "1-1"), ack(&billing, "a", &ids[0])];
    let done = FinishBatch::run(&redis, &batch).await.unwrap();
    match &done[0] {
        Err(e) => assert!(e.from_redis() && e.op() == "finish", "{}", e.chain()),
        ok => panic!("the broken stream's entry must fail, got {ok:?}"),
    }
    assert!(matches!(done[1], Ok(true)), "{:?}", done[1]);
    let len: i64 = redis::cmd("XLEN")
        .arg(&billing[0])
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(len, 1, "only b's entry is left");

    delete(&mut conn, &[&billing, &broken]).await;
}
