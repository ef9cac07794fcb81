//! The sink, as `bench/run` uses it: per-handler counts, distinct
//! `webhook-id`s (repeats visible), per-second timelines, reset, and a
//! handler held past its caller's timeout without slowing the others.

mod support;

use std::time::{Duration, Instant};

use hookline_bench::client::{get_json, request};
use support::{block_on, sink};

async fn post(url: &str, id: Option<&str>) -> u16 {
    let headers: Vec<(&str, &str)> = id.map(|i| ("webhook-id", i)).into_iter().collect();
    request("POST", url, &headers, b"{}").await.expect("POST").0
}

fn sum(v: &serde_json::Value) -> u64 {
    v["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum()
}

#[test]
fn sink_counts_each_handler_and_its_repeats() {
    let (_sink, base) = sink(&[]);
    block_on(async {
        for id in [Some("msg_a"), Some("msg_a"), Some("msg_b"), None] {
            assert_eq!(post(&format!("{base}/healthy"), id).await, 200);
        }
        assert_eq!(post(&format!("{base}/other"), Some("msg_a")).await, 200);

        let s = get_json(&format!("{base}/_sink/stats/healthy"))
            .await
            .unwrap();
        assert_eq!(s["received"], 4);
        assert_eq!(s["distinct"], 2, "msg_a twice is one delivery and a repeat");
        assert_eq!(s["without_id"], 1);
        assert_eq!(s["answered"], 4);
        assert_eq!(sum(&s["received_per_second"]), 4);
        assert_eq!(sum(&s["first_seen_per_second"]), 2);
        let other = get_json(&format!("{base}/_sink/stats/other"))
            .await
            .unwrap();
        assert_eq!(
            (other["received"].as_u64(), other["distinct"].as_u64()),
            (Some(1), Some(1))
        );
        let none = get_json(&format!("{base}/_sink/stats/nobody"))
            .await
            .unwrap();
        assert_eq!(none["received"], 0);

        let (status, _) = request("POST", &format!("{base}/_sink/reset"), &[], b"")
            .await
            .unwrap();
        assert_eq!(status, 204);
        let s = get_json(&format!("{base}/_sink/stats/healthy"))
            .await
            .unwrap();
        assert_eq!(
            (s["received"].as_u64(), s["distinct"].as_u64()),
            (Some(0), Some(0))
        );
    });
}

#[test]
fn a_held_handler_outlasts_its_caller_and_does_not_hold_the_others() {
    let (_sink, base) = sink(&["--hold", "slow=3s"]);
    block_on(async {
        // Ten held requests at once, each abandoned after 300 ms as a
        // handler timeout would.
        let slow = format!("{base}/slow");
        let held: Vec<_> = (0..10)
            .map(|i| {
                let url = slow.clone();
                tokio::spawn(async move {
                    let id = format!("msg_{i}");
                    tokio::time::timeout(Duration::from_millis(300), post(&url, Some(&id))).await
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let t = Instant::now();
        assert_eq!(post(&format!("{base}/healthy"), Some("msg_h")).await, 200);
        assert!(
            t.elapsed() < Duration::from_millis(250),
            "healthy waited {:?}",
            t.elapsed()
        );
        for h in held {
            assert!(
                h.await.unwrap().is_err(),
                "a held request was answered before its hold"
            );
        }
        let s = get_json(&format!("{base}/_sink/stats/slow")).await.unwrap();
        assert_eq!(s["received"], 10);
        assert_eq!(s["answered"], 0);
    });
}
