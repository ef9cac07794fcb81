//! The load generator against real servers: the bare endpoint, the sink
//! made slow, and hookline itself (embedded store) delivering to the sink.

mod support;

use std::process::{Command, Stdio};

use support::{free_port, hookline_binary, load, sink, wait_port, Proc};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn sum(v: &serde_json::Value) -> u64 {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum()
}

#[test]
fn open_loop_sends_the_offered_rate_to_the_bare_endpoint() {
    let port = free_port();
    let _bare = Proc(
        Command::new(env!("CARGO_BIN_EXE_bench-bare"))
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_port(port);
    let r = load(&format!(
        "--url http://127.0.0.1:{port}/webhooks/stripe/default --rate 400 --duration 2 \
         --warmup 0.5 --concurrency 4 --body-bytes 512 --dup-share 0"
    ));
    assert_eq!(r["scheduled"], 800);
    assert_eq!(r["answered"], 800);
    assert_eq!(r["status"]["200"], 800);
    assert_eq!(r["errors"], 0);
    assert!(
        (f(&r["requests_per_s"]) - 400.0).abs() < 20.0,
        "{}",
        r["requests_per_s"]
    );
    // Warm-up and window alike are in the per-second timeline.
    assert_eq!(sum(&r["timeline"]["answered_2xx"]), 1000);
    assert!(r["deliveries"].is_null(), "no sink given, no deliveries");
    // The whole machine over the window: something ran (at least this
    // load generator), on no more cores than there are, and the stolen
    // share is a share.
    let busy = f(&r["machine"]["busy_cores"]);
    let cpus = std::thread::available_parallelism().unwrap().get() as f64;
    assert!(busy > 0.0 && busy <= cpus + 0.1, "{}", r["machine"]);
    let steal = f(&r["machine"]["steal_share"]);
    assert!((0.0..=1.0).contains(&steal), "{}", r["machine"]);
}

#[test]
fn open_loop_latency_counts_queueing_from_the_schedule() {
    // One connection, a handler that takes 20 ms, 100 requests/s offered:
    // half the requests queue behind the others. Measured from the send
    // the answers take 20 ms; measured from the schedule, as a provider
    // sees them, they fall further behind every second.
    let (_sink, base) = sink(&["--hold", "hook=20ms"]);
    let r = load(&format!(
        "--url {base}/hook --rate 100 --duration 1 --warmup 0 --concurrency 1 --dup-share 0"
    ));
    assert_eq!(r["answered"], 100);
    let from_send = f(&r["service_latency_ms"]["p99"]);
    let from_schedule = f(&r["latency_ms"]["p99"]);
    // Well apart either way, so a loaded machine does not blur them: the
    // handler's 20 ms from the send, more than half a second from the
    // schedule.
    assert!(from_send < 250.0, "from the send: {from_send} ms");
    assert!(
        from_schedule > 500.0,
        "from the schedule: {from_schedule} ms"
    );
    // Every answer took the handler's 20 ms or more from its write, so
    // every one is kept as a slow answer, in the order written, each
    // stamped with a time inside this run.
    let slow = r["slow_answers"].as_array().expect("slow_answers");
    assert_eq!(slow.len(), 100, "every answer is slow");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let mut last = 0.0;
    for a in slow {
        let (at, ms) = (f(&a[0]), f(&a[1]));
        assert!(ms >= 20.0, "{a}");
        assert!(at >= last && at > now - 60.0 && at <= now, "{a}");
        last = at;
    }
}

#[test]
fn deliveries_backlog_and_timelines_through_hookline() {
    let (_sink, sink_base) = sink(&[]);
    let dir = tempfile_dir();
    let port = free_port();
    let config = format!(
        r#"[server]
listen = "127.0.0.1:{port}"

[store]
kind = "embedded"
path = "{dir}/hookline.db"

[providers.stripe]
kind = "stripe"
critical = ["*"]

[providers.stripe.tenants.default]
secrets = ["whsec_bench_secret"]

[handlers.sink]
url = "{sink_base}/hook"
events = ["stripe:*"]
timeout = "5s"
signing_secret = "whsec_YmVuY2gtc2luay1zaWduaW5nLWtleQ=="
"#
    );
    std::fs::write(format!("{dir}/hookline.toml"), config).unwrap();
    let _hookline = Proc(
        Command::new(hookline_binary())
            .args(["serve", "--config", &format!("{dir}/hookline.toml")])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_port(port);
    let r = load(&format!(
        "--url http://127.0.0.1:{port}/webhooks/stripe/default --rate 100 --duration 2 \
         --warmup 1 --concurrency 8 --dup-share 0.1 --sink {sink_base}/_sink/stats/hook \
         --drain-timeout 20"
    ));
    assert_eq!(r["errors"], 0, "{r}");
    assert_eq!(
        r["dedup_mismatch"], 0,
        "every copy answered duplicate, every original accepted"
    );
    let accepted_total = r["drain"]["expected"].as_u64().unwrap();
    assert!(
        accepted_total > 200,
        "{accepted_total} accepted of 300 sent, 10% copies"
    );
    assert_eq!(r["drain"]["complete"], true, "{}", r["drain"]);
    assert_eq!(r["drain"]["delivered"], accepted_total);
    let d = &r["deliveries"];
    assert!(f(&d["per_second"]) > 50.0, "{d}");
    assert_eq!(d["repeats_in_window"], 0);
    // At 100/s hookline keeps up: what is left at the end is in flight.
    assert!(d["backlog_at_end"].as_u64().unwrap() < 50, "{d}");
    // Every accepted event and every delivery is in a second of the timeline.
    let t = &r["timeline"];
    assert_eq!(sum(&t["accepted"]), accepted_total);
    assert_eq!(sum(&t["delivered"]), accepted_total);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> String {
    let dir = std::env::temp_dir().join(format!(
        "hookline-bench-test-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.to_string_lossy().into_owned()
}
