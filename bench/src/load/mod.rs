//! The load generator: pre-signs a pool of webhook requests (unique event
//! IDs, plus a share of exact copies of earlier requests: provider
//! retries), then replays it over keep-alive connections, either as fast as
//! the target answers (closed loop) or at a fixed rate (open loop: every
//! request has a scheduled start, and its latency counts from that
//! schedule, so coordinated omission cannot hide queueing).
//!
//! It prints one JSON object: rates, latency percentiles, status counts,
//! per-second timelines of what was answered and accepted, the CPU and
//! memory of watched processes, and what the sink delivered over the same
//! window and after it (the backlog).

mod conn;
mod sinks;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;

use crate::client::Target;
use crate::procstat;
use crate::request::{build_pool, PoolSpec};
use crate::timeline::unix_now;
use conn::{connection, Plan, Tally};
use sinks::Watch;

// A flag given twice takes its last value, so `bench/run` can override its
// defaults per pass.
#[derive(Parser, Debug)]
#[command(
    name = "bench-load",
    about = "Signed webhook load generator for bench/run",
    args_override_self = true
)]
pub struct Args {
    /// Target URL, e.g. http://127.0.0.1:8080/webhooks/stripe/default.
    #[arg(long)]
    pub url: String,
    /// Stripe signing secret the requests are signed with.
    #[arg(long, default_value = "whsec_bench_secret")]
    pub secret: String,
    /// Connections (requests in flight at most).
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 15.0)]
    pub duration: f64,
    /// Seconds of load before the measurement starts (not recorded).
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,
    /// Requests per second (open loop). Without it: as fast as answered.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Body size in bytes (the JSON is padded to exactly this).
    #[arg(long, default_value_t = 1024)]
    pub body_bytes: usize,
    /// Share of requests that are exact copies of an earlier request.
    #[arg(long, default_value_t = 0.1)]
    pub dup_share: f64,
    /// Event type in the body.
    #[arg(long, default_value = "payment_intent.succeeded")]
    pub event_type: String,
    /// Distinguishes this run's event IDs from every other run's (12
    /// characters at most; random by default).
    #[arg(long)]
    pub id_prefix: Option<String>,
    /// Most requests to pre-sign.
    #[arg(long, default_value_t = 2_000_000)]
    pub max_requests: usize,
    /// When the pool runs out, send it again from the start (for targets
    /// that do not deduplicate, such as the bare endpoint). Without it, a
    /// run that exhausts the pool ends there, and rates are over the time
    /// it ran.
    #[arg(long)]
    pub cycle: bool,
    /// Memory the pre-signed pool may take, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub pool_mib: usize,
    /// Tokio worker threads of the generator.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Processes whose CPU time and RSS are read over the measured window.
    #[arg(long)]
    pub watch_pid: Vec<u32>,
    /// A sink handler's stats URL (`http://HOST:PORT/_sink/stats/NAME`):
    /// the handler whose deliveries are set against the accepted events
    /// (delivered/s, backlog, drain, timeline).
    #[arg(long)]
    pub sink: Option<String>,
    /// Other sink handlers whose deliveries in the window are reported.
    #[arg(long)]
    pub watch_sink: Vec<String>,
    /// After the load, wait this long at most for `--sink` to receive one
    /// delivery per accepted event.
    #[arg(long, default_value_t = 0.0)]
    pub drain_timeout: f64,
    /// Copied into the output.
    #[arg(long, default_value = "")]
    pub label: String,
}

/// Build the pool, run the load, print the JSON report.
pub fn main(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be positive");
    anyhow::ensure!(args.duration > 0.0, "--duration must be positive");
    anyhow::ensure!(args.rate.is_none_or(|r| r > 0.0), "--rate must be positive");
    let target = Target::parse(&args.url)?;
    let prefix = args
        .id_prefix
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string()[..8].to_owned());
    // Requests needed: rate x time when the rate is fixed; otherwise as
    // many as memory allows (a closed-loop run that exhausts the pool ends
    // early, and says so).
    let by_memory = (args.pool_mib << 20) / (args.body_bytes + 512);
    let wanted = match args.rate {
        Some(r) => ((args.warmup + args.duration) * r * 1.02) as usize + 100,
        None => usize::MAX,
    };
    let spec = PoolSpec {
        secret: &args.secret,
        event_type: &args.event_type,
        body_bytes: args.body_bytes,
        dup_share: args.dup_share,
        id_prefix: &prefix,
        size: wanted.min(by_memory).min(args.max_requests),
        dup_gap: (args.concurrency * 8).max(1000),
        signed_at: unix_now() as i64,
    };
    let t_sign = Instant::now();
    let pool = build_pool(&spec, &target)?;
    let sign_s = t_sign.elapsed().as_secs_f64();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()?;
    let out = runtime.block_on(run(&args, target, pool, sign_s))?;
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

async fn run(
    args: &Args,
    target: Target,
    pool: Vec<crate::request::Prepared>,
    sign_s: f64,
) -> anyhow::Result<serde_json::Value> {
    let pool_size = pool.len();
    let mut primary = match &args.sink {
        Some(u) => Some(Watch::start(u).await?),
        None => None,
    };
    let mut watched = Vec::new();
    for u in &args.watch_sink {
        watched.push(Watch::start(u).await?);
    }
    // A short head start, so every connection is spawned before the first
    // scheduled send.
    let start = Instant::now() + Duration::from_millis(20);
    let start_unix = unix_now() + 0.020;
    let measure_from = start + Duration::from_secs_f64(args.warmup);
    let plan = Arc::new(Plan {
        pool,
        next: AtomicU64::new(0),
        start,
        start_unix,
        measure_from,
        end: measure_from + Duration::from_secs_f64(args.duration),
        rate: args.rate,
        cycle: args.cycle,
        exhausted: AtomicBool::new(false),
        done: tokio::sync::Notify::new(),
        accepted_live: AtomicU64::new(0),
    });
    let tasks: Vec<_> = (0..args.concurrency)
        .map(|_| tokio::spawn(connection(plan.clone(), target.host_port.clone())))
        .collect();

    // The edges of the measured window.
    tokio::time::sleep_until(measure_from.into()).await;
    let before: Vec<_> = args
        .watch_pid
        .iter()
        .map(|p| procstat::sample(*p))
        .collect();
    let self_before = procstat::sample(std::process::id());
    let machine_before = procstat::machine();
    for w in primary.iter_mut().chain(watched.iter_mut()) {
        w.window_from = sinks::read(&w.url).await.ok();
    }
    let t0 = Instant::now();
    tokio::select! {
        _ = tokio::time::sleep_until(plan.end.into()) => {}
        _ = plan.done.notified() => {}
    }
    let accepted_at_end = plan.accepted_live.load(Ordering::Relaxed);
    let after: Vec<_> = args
        .watch_pid
        .iter()
        .map(|p| procstat::sample(*p))
        .collect();
    let self_after = procstat::sample(std::process::id());
    let machine_after = procstat::machine();
    for w in primary.iter_mut().chain(watched.iter_mut()) {
        w.window_to = sinks::read(&w.url).await.ok();
    }
    let window = t0.elapsed().as_secs_f64();

    let mut total = Tally::default();
    for t in tasks {
        total.merge(t.await?);
    }
    let load_done = Instant::now();
    let accepted_total = plan.accepted_live.load(Ordering::Relaxed);

    let mut deliveries = serde_json::Value::Null;
    let mut drain = serde_json::Value::Null;
    let mut final_stats = None;
    if let Some(w) = &primary {
        let (last, complete) = w
            .drain(accepted_total, Duration::from_secs_f64(args.drain_timeout))
            .await;
        let delivered_at_end = w.window_to.as_ref().map(|s| w.delivered_since_start(s));
        deliveries = w.window_json(window);
        if let (Some(d), serde_json::Value::Object(m)) = (delivered_at_end, &mut deliveries) {
            // Accepted but not yet delivered when the window closed.
            m.insert("accepted_at_end".into(), accepted_at_end.into());
            m.insert("delivered_at_end".into(), d.into());
            m.insert(
                "backlog_at_end".into(),
                accepted_at_end.saturating_sub(d).into(),
            );
        }
        drain = serde_json::json!({
            "expected": accepted_total,
            "delivered": w.delivered_since_start(&last),
            "complete": complete,
            "seconds_after_load": load_done.elapsed().as_secs_f64(),
        });
        final_stats = Some(last);
    }

    // Per-second timelines from the first scheduled send to now (the
    // drain included), all on the same Unix seconds.
    let first = start_unix as u64;
    let len = (unix_now() as u64).saturating_sub(first) as usize + 1;
    let mut timeline = serde_json::json!({
        "start_unix": first,
        "window_from_s": start_unix - first as f64 + args.warmup,
        "window_to_s": start_unix - first as f64 + args.warmup + window,
        "answered_2xx": total.ok_per_second.window(first, len),
        "accepted": total.accepted_per_second.window(first, len),
    });
    if let Some(s) = &final_stats {
        timeline["delivered"] = s.first_seen_per_second.window(first, len).into();
        timeline["received"] = s.received_per_second.window(first, len).into();
    }

    let answered: u64 = total.status.values().sum();
    let ok: u64 = total
        .status
        .iter()
        .filter(|(k, _)| (200..300).contains(*k))
        .map(|(_, v)| v)
        .sum();
    let procs: Vec<_> = args
        .watch_pid
        .iter()
        .zip(before.into_iter().zip(after))
        .map(|(pid, (b, a))| procstat::usage(*pid, b, a, window))
        .collect();
    let load_cores = match (self_before, self_after) {
        (Some(b), Some(a)) => {
            a.ticks.saturating_sub(b.ticks) as f64 / procstat::clock_ticks() / window
        }
        _ => 0.0,
    };
    Ok(serde_json::json!({
        "label": args.label,
        "url": args.url,
        "concurrency": args.concurrency,
        "rate_target": args.rate,
        "warmup_s": args.warmup,
        "duration_s": window,
        "body_bytes": args.body_bytes,
        "dup_share": args.dup_share,
        "pool_size": pool_size,
        "pool_exhausted": plan.exhausted.load(Ordering::Relaxed),
        "sign_seconds": sign_s,
        "scheduled": total.scheduled,
        "answered": answered,
        "requests_per_s": answered as f64 / window,
        "ok_per_s": ok as f64 / window,
        "accepted_per_s": total.accepted as f64 / window,
        "accepted": total.accepted,
        "duplicates": total.duplicates,
        "dedup_mismatch": total.dedup_mismatch,
        "errors": total.errors,
        "status": total.status.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
        "latency_ms": total.latency.summary(),
        "service_latency_ms": total.service.summary(),
        "processes": procs,
        "loadgen_cores": load_cores,
        "machine": procstat::machine_usage(machine_before, machine_after, window),
        "deliveries": deliveries,
        "drain": drain,
        "watched_sinks": watched.iter().map(|w| w.window_json(window)).collect::<Vec<_>>(),
        "timeline": timeline,
        "slow_answers": slow_answers(&mut total.slow),
    }))
}

/// The measured answers slower than [`conn::SLOW`], in the order they were
/// written: `[unix seconds, ms]` pairs (rounded to the µs).
fn slow_answers(slow: &mut [(f64, f64)]) -> Vec<[f64; 2]> {
    slow.sort_by(|a, b| a.0.total_cmp(&b.0));
    let round = |x: f64, scale: f64| (x * scale).round() / scale;
    slow.iter()
        .map(|&(t, ms)| [round(t, 1e6), round(ms, 1e3)])
        .collect()
}
