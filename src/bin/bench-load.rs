//! `bench-load`: the load generator of `bench/run`. Not part of the service.
//!
//! It pre-signs a pool of webhook requests (unique event IDs, plus a share of
//! exact copies of earlier requests: provider retries) with
//! `hookline::provider::sender_headers`, serialises each one to raw HTTP/1.1
//! bytes, then replays the pool over keep-alive connections, either as fast
//! as the target answers (closed loop, `--concurrency` connections) or at a
//! fixed `--rate` (open loop: every request has a scheduled start, and its
//! latency counts from that schedule, so a stalled server is not hidden by
//! the generator waiting for it).
//!
//! The client is a few lines of HTTP/1.1 over `tokio::net::TcpStream` rather
//! than reqwest: it does no per-request work besides one write and one read,
//! so on a small machine it leaves the cores to the server it measures. The
//! same client drives every target, so the ratios between them are fair.
//!
//! It prints one JSON object: requests/s, latency percentiles, status
//! counts, and, when given, the CPU and memory of `--watch-pid` processes
//! and the delivery count of a sink (`--count-url`) over the measured window.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use clap::Parser;
use hookline::provider::{sender_headers, Definitions};
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Parser, Debug)]
#[command(
    name = "bench-load",
    about = "Signed webhook load generator for bench/run"
)]
struct Args {
    /// Target URL, e.g. http://127.0.0.1:8080/webhooks/stripe/default.
    #[arg(long)]
    url: String,
    /// Provider kind the requests are signed as (its event ID must be at
    /// JSON `/id`, `/event_id` or in a header).
    #[arg(long, default_value = "stripe")]
    kind: String,
    /// Signing secret.
    #[arg(long, default_value = "whsec_bench_secret")]
    secret: String,
    /// Connections (requests in flight at most).
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 15.0)]
    duration: f64,
    /// Seconds of load before the measurement starts (not recorded).
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Requests per second (open loop). Without it: as fast as answered.
    #[arg(long)]
    rate: Option<f64>,
    /// Body size in bytes (the JSON is padded to exactly this).
    #[arg(long, default_value_t = 1024)]
    body_bytes: usize,
    /// Share of requests that are exact copies of an earlier request.
    #[arg(long, default_value_t = 0.1)]
    dup_share: f64,
    /// Event type in the body.
    #[arg(long, default_value = "payment_intent.succeeded")]
    event_type: String,
    /// Distinguishes this run's event IDs from every other run's.
    #[arg(long)]
    id_prefix: Option<String>,
    /// Most requests to pre-sign.
    #[arg(long, default_value_t = 2_000_000)]
    max_requests: usize,
    /// When the pool runs out, send it again from the start (for targets
    /// that do not deduplicate, such as the bare endpoint). Without it, a
    /// run that exhausts the pool ends there, and rates are over the time
    /// it ran.
    #[arg(long)]
    cycle: bool,
    /// Memory the pre-signed pool may take, in MiB.
    #[arg(long, default_value_t = 2048)]
    pool_mib: usize,
    /// Tokio worker threads of the generator.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Processes whose CPU time and RSS are read over the measured window.
    #[arg(long)]
    watch_pid: Vec<u32>,
    /// GET URL answering `{"count": N}`: deliveries a sink received.
    #[arg(long)]
    count_url: Option<String>,
    /// After the load, wait this long at most for the sink to receive one
    /// delivery per accepted event.
    #[arg(long, default_value_t = 0.0)]
    drain_timeout: f64,
    /// Copied into the output.
    #[arg(long, default_value = "")]
    label: String,
}

struct Target {
    host_port: String,
    path: String,
}

fn parse_url(url: &str) -> anyhow::Result<Target> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| anyhow::anyhow!("only http:// URLs: {url}"))?;
    let (host_port, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    Ok(Target {
        host_port: host_port.to_owned(),
        path: path.to_owned(),
    })
}

/// Stripe-shaped event IDs: `evt_` and 24 characters.
fn event_id(prefix: &str, i: usize) -> String {
    format!("evt_{prefix}{i:0>width$}", width = 24 - prefix.len())
}

/// A JSON body of exactly `size` bytes (or the smallest possible) carrying
/// the ID where every built-in JSON-pointer scheme looks for it.
fn body(id: &str, event_type: &str, size: usize) -> Vec<u8> {
    let head = format!(
        r#"{{"id":"{id}","event_id":"{id}","object":"event","type":"{event_type}","data":{{"object":{{"pad":""#
    );
    let tail = r#""}}}"#;
    let pad = size.saturating_sub(head.len() + tail.len());
    let mut out = Vec::with_capacity(head.len() + pad + tail.len());
    out.extend_from_slice(head.as_bytes());
    out.extend(std::iter::repeat_n(b'x', pad));
    out.extend_from_slice(tail.as_bytes());
    out
}

/// One request, as the bytes that go on the wire.
#[derive(Clone)]
struct Prepared {
    bytes: Bytes,
    duplicate: bool,
}

fn build_pool(args: &Args, target: &Target) -> anyhow::Result<Vec<Prepared>> {
    let defs = Definitions::load(None).map_err(|e| anyhow::anyhow!("definitions: {e:?}"))?;
    let def = defs
        .get(&args.kind)
        .ok_or_else(|| anyhow::anyhow!("unknown provider kind {}", args.kind))?
        .clone();
    let key = def
        .decode_secret(&args.secret)
        .map_err(|e| anyhow::anyhow!("secret: {e}"))?;
    let prefix = args
        .id_prefix
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string()[..8].to_owned());
    anyhow::ensure!(prefix.len() <= 12, "--id-prefix: 12 characters at most");
    // Requests needed: rate x time when the rate is fixed; otherwise as many
    // as memory allows (a closed-loop run ends early if the pool runs out,
    // and says so).
    let approx = args.body_bytes + 512;
    let by_memory = (args.pool_mib << 20) / approx;
    let wanted = match args.rate {
        Some(r) => ((args.warmup + args.duration) * r * 1.05) as usize + 1000,
        None => usize::MAX,
    };
    let n = wanted.min(by_memory).min(args.max_requests).max(1);
    let now = chrono::Utc::now().timestamp();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = n.div_ceil(threads);
    let mut unique: Vec<Bytes> = Vec::with_capacity(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (def, key, prefix) = (&def, &key, &prefix);
                s.spawn(move || {
                    let mut out = Vec::new();
                    for i in (t * chunk)..((t + 1) * chunk).min(n) {
                        let id = event_id(prefix, i);
                        let b = body(&id, &args.event_type, args.body_bytes);
                        let headers = sender_headers(
                            def,
                            key,
                            &b,
                            &id,
                            Some(&args.event_type),
                            now,
                            &args.url,
                        )
                        .expect("the benchmark's kind signs with a shared secret");
                        let mut req = format!(
                            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
                            target.path,
                            target.host_port,
                            b.len()
                        );
                        for (k, v) in headers {
                            req.push_str(&k);
                            req.push_str(": ");
                            req.push_str(&v);
                            req.push_str("\r\n");
                        }
                        req.push_str("\r\n");
                        let mut bytes = req.into_bytes();
                        bytes.extend_from_slice(&b);
                        out.push(Bytes::from(bytes));
                    }
                    out
                })
            })
            .collect();
        for h in handles {
            unique.extend(h.join().expect("signing thread"));
        }
    });
    // Duplicates: exact copies of a request sent well before (further back
    // than the requests in flight, so the original has been answered and the
    // copy is a duplicate, not an in-progress claim). Event IDs stay unique
    // among the originals; pool size stays n.
    let gap = (args.concurrency * 8).max(1000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b6f6f6c);
    let mut pool = Vec::with_capacity(n);
    let mut next_unique = unique.into_iter();
    let mut originals: Vec<Bytes> = Vec::with_capacity(n);
    for i in 0..n {
        if i >= gap && args.dup_share > 0.0 && rng.gen_bool(args.dup_share.min(1.0)) {
            let j = rng.gen_range(0..originals.len().saturating_sub(gap).max(1));
            pool.push(Prepared {
                bytes: originals[j].clone(),
                duplicate: true,
            });
        } else if let Some(b) = next_unique.next() {
            originals.push(b.clone());
            pool.push(Prepared {
                bytes: b,
                duplicate: false,
            });
        }
    }
    Ok(pool)
}

/// The parts of an answer the report needs.
struct Answer {
    status: u16,
    duplicate: bool,
}

/// Read one HTTP/1.1 response (Content-Length bodies; `chunked` is read to
/// its terminating chunk).
async fn read_response(stream: &mut TcpStream, buf: &mut BytesMut) -> anyhow::Result<Answer> {
    buf.clear();
    let head_end = loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            break i + 4;
        }
        if stream.read_buf(buf).await? == 0 {
            anyhow::bail!("connection closed");
        }
    };
    let head = std::str::from_utf8(&buf[..head_end])?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("bad status line"))?;
    let mut length = 0usize;
    let mut chunked = false;
    let mut duplicate = false;
    let mut close = false;
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let v = v.trim();
        if k.eq_ignore_ascii_case("content-length") {
            length = v.parse()?;
        } else if k.eq_ignore_ascii_case("transfer-encoding") {
            chunked = v.eq_ignore_ascii_case("chunked");
        } else if k.eq_ignore_ascii_case("webhook-duplicate") {
            duplicate = true;
        } else if k.eq_ignore_ascii_case("connection") {
            close = v.eq_ignore_ascii_case("close");
        }
    }
    if chunked {
        while find(&buf[head_end..], b"0\r\n\r\n").is_none() {
            if stream.read_buf(buf).await? == 0 {
                anyhow::bail!("connection closed in a chunked body");
            }
        }
    } else {
        while buf.len() < head_end + length {
            if stream.read_buf(buf).await? == 0 {
                anyhow::bail!("connection closed in the body");
            }
        }
    }
    if close {
        anyhow::bail!("server closed the connection");
    }
    Ok(Answer { status, duplicate })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[derive(Default)]
struct Tally {
    /// From the scheduled start (open loop) or the send (closed loop).
    latencies_us: Vec<u32>,
    /// From the moment the request was written, always: without the time a
    /// request waited for a free connection or for the timer (tokio's timer
    /// has a 1 ms tick, so an open-loop request leaves up to 1 ms late).
    service_us: Vec<u32>,
    status: BTreeMap<u16, u64>,
    accepted: u64,
    duplicates: u64,
    errors: u64,
    /// 200 "accepted" answers at any time (warm-up and tail included): the
    /// deliveries the sink should eventually receive.
    accepted_total: u64,
    /// Requests that were copies but answered "accepted" (or the reverse):
    /// a correctness check on dedup.
    dedup_mismatch: u64,
}

struct Plan {
    pool: Arc<Vec<Prepared>>,
    next: AtomicU64,
    start: Instant,
    measure_from: Instant,
    end: Instant,
    rate: Option<f64>,
    cycle: bool,
    exhausted: AtomicBool,
    /// Woken when the pool runs out, so the measured window ends there.
    done: tokio::sync::Notify,
}

async fn connection(plan: Arc<Plan>, addr: String) -> Tally {
    let mut tally = Tally::default();
    let mut buf = BytesMut::with_capacity(16 * 1024);
    let mut stream: Option<TcpStream> = None;
    loop {
        let k = plan.next.fetch_add(1, Ordering::Relaxed) as usize;
        let req = if plan.cycle {
            &plan.pool[k % plan.pool.len()]
        } else if let Some(req) = plan.pool.get(k) {
            req
        } else {
            if !plan.exhausted.swap(true, Ordering::Relaxed) {
                plan.done.notify_one();
            }
            break;
        };
        let scheduled = match plan.rate {
            Some(r) => plan.start + Duration::from_secs_f64(k as f64 / r),
            None => Instant::now(),
        };
        if scheduled >= plan.end {
            break;
        }
        if plan.rate.is_some() {
            tokio::time::sleep_until(scheduled.into()).await;
        }
        let mut attempt_ok = false;
        // One reconnect per request at most: a refused connection is an
        // error, not a retry loop.
        for _ in 0..2 {
            if stream.is_none() {
                match TcpStream::connect(&addr).await {
                    Ok(s) => {
                        let _ = s.set_nodelay(true);
                        stream = Some(s);
                    }
                    Err(_) => break,
                }
            }
            let s = stream.as_mut().expect("connected");
            let send_at = Instant::now();
            let sent = s.write_all(&req.bytes).await;
            let answer = match sent {
                Ok(()) => read_response(s, &mut buf).await,
                Err(e) => Err(e.into()),
            };
            match answer {
                Ok(a) => {
                    let done = Instant::now();
                    let ok_new = a.status == 200 && !a.duplicate;
                    if ok_new {
                        tally.accepted_total += 1;
                    }
                    if scheduled >= plan.measure_from {
                        let lat = done.saturating_duration_since(scheduled);
                        tally
                            .latencies_us
                            .push(lat.as_micros().min(u32::MAX as u128) as u32);
                        let service = done.saturating_duration_since(send_at);
                        tally
                            .service_us
                            .push(service.as_micros().min(u32::MAX as u128) as u32);
                        *tally.status.entry(a.status).or_default() += 1;
                        if ok_new {
                            tally.accepted += 1;
                        } else if a.status == 200 {
                            tally.duplicates += 1;
                        }
                        if a.status == 200 && a.duplicate != req.duplicate {
                            tally.dedup_mismatch += 1;
                        }
                    }
                    attempt_ok = true;
                    break;
                }
                Err(_) => {
                    // A keep-alive connection the server closed: reconnect
                    // and send again (nothing was answered).
                    stream = None;
                }
            }
        }
        if !attempt_ok {
            stream = None;
            if scheduled >= plan.measure_from {
                tally.errors += 1;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    tally
}

/// CPU ticks (user + system) and RSS/peak RSS (KiB) of a process.
fn proc_sample(pid: u32) -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses.
    let after = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here.
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some((ticks, kb("VmRSS:"), kb("VmHWM:")))
}

fn clock_ticks() -> f64 {
    // sysconf(_SC_CLK_TCK) is 100 on every Linux this runs on; `getconf`
    // confirms it without libc bindings.
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// GET a sink's `{"count": N}`.
async fn fetch_count(url: &str) -> anyhow::Result<u64> {
    let t = parse_url(url)?;
    let mut s = TcpStream::connect(&t.host_port).await?;
    s.write_all(
        format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            t.path, t.host_port
        )
        .as_bytes(),
    )
    .await?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).await?;
    let text = String::from_utf8_lossy(&out);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(body.trim())?;
    v["count"]
        .as_u64()
        .ok_or_else(|| anyhow::anyhow!("no count in {body}"))
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[i.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be positive");
    anyhow::ensure!(args.duration > 0.0, "--duration must be positive");
    let target = parse_url(&args.url)?;
    let t_sign = Instant::now();
    let pool = build_pool(&args, &target)?;
    let sign_s = t_sign.elapsed().as_secs_f64();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(run(args, target, pool, sign_s))
}

async fn run(args: Args, target: Target, pool: Vec<Prepared>, sign_s: f64) -> anyhow::Result<()> {
    let pool_size = pool.len();
    let ticks = clock_ticks();
    let count_start = match &args.count_url {
        Some(u) => Some(fetch_count(u).await?),
        None => None,
    };
    let start = Instant::now() + Duration::from_millis(20);
    let measure_from = start + Duration::from_secs_f64(args.warmup);
    let end = measure_from + Duration::from_secs_f64(args.duration);
    let plan = Arc::new(Plan {
        pool: Arc::new(pool),
        next: AtomicU64::new(0),
        start,
        measure_from,
        end,
        rate: args.rate,
        cycle: args.cycle,
        exhausted: AtomicBool::new(false),
        done: tokio::sync::Notify::new(),
    });
    let tasks: Vec<_> = (0..args.concurrency)
        .map(|_| tokio::spawn(connection(plan.clone(), target.host_port.clone())))
        .collect();

    // Samples at the edges of the measured window.
    tokio::time::sleep_until(measure_from.into()).await;
    let self_pid = std::process::id();
    let before: Vec<_> = args.watch_pid.iter().map(|p| proc_sample(*p)).collect();
    let self_before = proc_sample(self_pid);
    let count_before = match &args.count_url {
        Some(u) => fetch_count(u).await.ok(),
        None => None,
    };
    let t0 = Instant::now();
    tokio::select! {
        _ = tokio::time::sleep_until(end.into()) => {}
        _ = plan.done.notified() => {}
    }
    let after: Vec<_> = args.watch_pid.iter().map(|p| proc_sample(*p)).collect();
    let self_after = proc_sample(self_pid);
    let count_after = match &args.count_url {
        Some(u) => fetch_count(u).await.ok(),
        None => None,
    };
    let window = t0.elapsed().as_secs_f64();

    let mut total = Tally::default();
    for t in tasks {
        let t = t.await?;
        total.latencies_us.extend(t.latencies_us);
        total.service_us.extend(t.service_us);
        for (k, v) in t.status {
            *total.status.entry(k).or_default() += v;
        }
        total.accepted += t.accepted;
        total.duplicates += t.duplicates;
        total.errors += t.errors;
        total.accepted_total += t.accepted_total;
        total.dedup_mismatch += t.dedup_mismatch;
    }
    let exhausted = plan.exhausted.load(Ordering::Relaxed);
    // A pool that ran out ended the window early: rates are over the time
    // the load actually ran.
    let measured = window;
    let load_done = Instant::now();

    // Drain: wait for one delivery per accepted event.
    let mut drain = serde_json::Value::Null;
    if let (Some(u), Some(c0)) = (&args.count_url, count_start) {
        let deadline = load_done + Duration::from_secs_f64(args.drain_timeout);
        let mut delivered;
        loop {
            delivered = fetch_count(u).await.unwrap_or(c0) - c0;
            if delivered >= total.accepted_total || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        drain = serde_json::json!({
            "expected": total.accepted_total,
            "delivered": delivered,
            "complete": delivered >= total.accepted_total,
            "seconds_after_load": load_done.elapsed().as_secs_f64(),
        });
    }

    total.latencies_us.sort_unstable();
    total.service_us.sort_unstable();
    let svc = &total.service_us;
    let lat = &total.latencies_us;
    let answered: u64 = total.status.values().sum();
    let ok: u64 = total.status.get(&200).copied().unwrap_or(0);
    let mean_ms = if lat.is_empty() {
        0.0
    } else {
        lat.iter().map(|v| *v as f64).sum::<f64>() / lat.len() as f64 / 1000.0
    };
    let procs: Vec<_> = args
        .watch_pid
        .iter()
        .zip(before.iter().zip(&after))
        .map(|(pid, (b, a))| match (b, a) {
            (Some(b), Some(a)) => {
                let cpu = (a.0 - b.0) as f64 / ticks;
                serde_json::json!({
                    "pid": pid,
                    "cpu_seconds": cpu,
                    "cores": cpu / window,
                    "rss_kib_before": b.1,
                    "rss_kib_after": a.1,
                    "rss_kib_peak": a.2,
                })
            }
            _ => serde_json::json!({"pid": pid, "error": "process not readable"}),
        })
        .collect();
    let load_cores = match (self_before, self_after) {
        (Some(b), Some(a)) => (a.0 - b.0) as f64 / ticks / window,
        _ => 0.0,
    };
    let deliveries = match (count_before, count_after) {
        (Some(b), Some(a)) => serde_json::json!({
            "in_window": a - b,
            "per_second": (a - b) as f64 / window,
        }),
        _ => serde_json::Value::Null,
    };
    let out = serde_json::json!({
        "label": args.label,
        "url": args.url,
        "kind": args.kind,
        "concurrency": args.concurrency,
        "rate_target": args.rate,
        "warmup_s": args.warmup,
        "duration_s": measured,
        "body_bytes": args.body_bytes,
        "dup_share": args.dup_share,
        "pool_size": pool_size,
        "pool_exhausted": exhausted,
        "sign_seconds": sign_s,
        "answered": answered,
        "requests_per_s": answered as f64 / measured,
        "ok_per_s": ok as f64 / measured,
        "accepted_per_s": total.accepted as f64 / measured,
        "accepted": total.accepted,
        "duplicates": total.duplicates,
        "dedup_mismatch": total.dedup_mismatch,
        "errors": total.errors,
        "status": total.status.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
        "latency_ms": {
            "p50": percentile(lat, 50.0),
            "p90": percentile(lat, 90.0),
            "p99": percentile(lat, 99.0),
            "p99_9": percentile(lat, 99.9),
            "max": percentile(lat, 100.0),
            "mean": mean_ms,
        },
        "service_latency_ms": {
            "p50": percentile(svc, 50.0),
            "p90": percentile(svc, 90.0),
            "p99": percentile(svc, 99.0),
            "p99_9": percentile(svc, 99.9),
            "max": percentile(svc, 100.0),
        },
        "processes": procs,
        "loadgen_cores": load_cores,
        "deliveries": deliveries,
        "drain": drain,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
