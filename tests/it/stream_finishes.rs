//! Stream deliveries' outcomes share script calls
//! (`src/store/redis/finish.rs`): a burst of deliveries answered together
//! is acknowledged in a few calls, each delivered once, none left behind.

use crate::common;

use std::collections::HashSet;
use std::time::Duration;

use common::servers::RedisServer;
use common::sink::{Reply, Sink};
use common::{Webhook, HANDLER_SECRET};

use super::stream_deliveries::{app_on, drained, streams_of, FAST};

/// `cmdstat_NAME`'s calls in `INFO commandstats`.
fn calls(stats: &str, name: &str) -> u64 {
    let prefix = format!("cmdstat_{name}:calls=");
    stats
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_deliveries_is_acknowledged_in_shared_calls() {
    const EVENTS: usize = 48;
    let redis = RedisServer::start();
    let sink = Sink::start(vec![]);
    // The handler answers each call after 300 ms: the deliveries of a
    // lease (16 in flight) end within moments of each other.
    sink.always(Reply::Slow(Duration::from_millis(300), 200));
    let app = app_on(
        &redis,
        format!(
            "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"5s\"\n{FAST}",
            sink.url
        ),
    )
    .await;
    let store = streams_of(&app);
    let _: () = redis.cmd(redis::cmd("CONFIG").arg("RESETSTAT")).await;

    let events: Vec<Webhook> = (0..EVENTS)
        .map(|i| {
            Webhook::new(
                "stripe",
                "acme",
                &format!("evt_burst_{i}"),
                "charge.succeeded",
                "x",
            )
        })
        .collect();
    let answers = futures::future::join_all(events.iter().map(|w| app.send_json(w))).await;
    assert!(
        answers.iter().all(|(_, a)| a["status"] == "accepted"),
        "{answers:?}"
    );
    sink.wait_for(EVENTS, Duration::from_secs(20)).await;
    drained(&store).await;

    // Each event reached the handler once, under one webhook-id.
    let got = sink.received();
    let ids: HashSet<_> = got
        .iter()
        .map(|r| r.header("webhook-id").unwrap().to_string())
        .collect();
    assert_eq!((got.len(), ids.len()), (EVENTS, EVENTS));
    // Every delivery was acknowledged and deleted, in far fewer calls than
    // deliveries (one XACK per call of stream_finish.lua that ended any).
    let stats: String = redis.cmd(redis::cmd("INFO").arg("commandstats")).await;
    let acks = calls(&stats, "xack");
    assert!(
        acks >= 1 && acks as usize <= EVENTS / 2,
        "{acks} calls acknowledged {EVENTS} deliveries"
    );
    assert_eq!(calls(&stats, "xdel"), acks);
}
