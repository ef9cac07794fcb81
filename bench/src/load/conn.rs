//! One keep-alive connection of the load generator: it takes the next
//! request of the shared plan, waits for its scheduled time (open loop) or
//! sends at once (closed loop), and tallies the answer.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::client::read_response;
use crate::latency::Latencies;
use crate::request::Prepared;
use crate::timeline::Timeline;

/// What every connection shares: the requests and the clock.
pub struct Plan {
    pub pool: Vec<Prepared>,
    /// Index of the next request to send, across all connections.
    pub next: AtomicU64,
    /// When the first request is scheduled.
    pub start: Instant,
    /// `start` on the Unix clock, for the per-second timelines.
    pub start_unix: f64,
    /// The measured window: requests scheduled in it are recorded.
    pub measure_from: Instant,
    pub end: Instant,
    /// Requests per second (open loop), or as fast as answered.
    pub rate: Option<f64>,
    /// Send the pool again from the start when it runs out.
    pub cycle: bool,
    pub exhausted: AtomicBool,
    /// Woken when the pool runs out, so the measured window ends there.
    pub done: tokio::sync::Notify,
    /// New events accepted so far (warm-up included), readable while the
    /// load runs: the backlog at the end of the window is this minus what
    /// the sink has received.
    pub accepted_live: AtomicU64,
}

/// What one connection saw.
#[derive(Default)]
pub struct Tally {
    /// From the scheduled start (open loop) or the send (closed loop), so a
    /// stalled server cannot hide behind a generator waiting for it.
    pub latency: Latencies,
    /// From the moment the request was written, always: without the time a
    /// request waited for a free connection or for the timer (tokio's
    /// timer has a 1 ms tick, so a request may leave up to 1 ms late).
    pub service: Latencies,
    /// Requests scheduled in the measured window (sent or not).
    pub scheduled: u64,
    pub status: BTreeMap<u16, u64>,
    pub accepted: u64,
    pub duplicates: u64,
    pub errors: u64,
    /// Answers that contradict the pool: a copy answered as new, or an
    /// original answered as a duplicate (a dedup correctness check).
    pub dedup_mismatch: u64,
    /// 2xx answers per second by the time they came, warm-up included.
    pub ok_per_second: Timeline,
    /// New events accepted per second, warm-up included.
    pub accepted_per_second: Timeline,
    /// Measured answers that took at least [`SLOW`] from the write: when
    /// the request was written (Unix seconds) and its service time in ms,
    /// at most [`MAX_SLOW`] per connection. A pause shows as a run of
    /// them, to be lined up with the stores' and the kernel's logs.
    pub slow: Vec<(f64, f64)>,
}

/// An answer at least this slow is recorded in [`Tally::slow`].
pub const SLOW: std::time::Duration = std::time::Duration::from_millis(20);

/// The most slow answers one connection records.
pub const MAX_SLOW: usize = 2_000;

impl Tally {
    pub fn merge(&mut self, t: Tally) {
        self.latency.merge(&t.latency);
        self.service.merge(&t.service);
        self.scheduled += t.scheduled;
        for (k, v) in t.status {
            *self.status.entry(k).or_default() += v;
        }
        self.accepted += t.accepted;
        self.duplicates += t.duplicates;
        self.errors += t.errors;
        self.dedup_mismatch += t.dedup_mismatch;
        self.ok_per_second.merge(&t.ok_per_second);
        self.accepted_per_second.merge(&t.accepted_per_second);
        self.slow.extend(t.slow);
    }
}

/// A connection to the target, opened on first use and again after the
/// server closes it.
struct Conn {
    addr: String,
    stream: Option<TcpStream>,
    buf: BytesMut,
}

/// Run one connection until the plan ends; its tally.
pub async fn connection(plan: Arc<Plan>, addr: String) -> Tally {
    let mut tally = Tally::default();
    let mut conn = Conn {
        addr,
        stream: None,
        buf: BytesMut::with_capacity(16 * 1024),
    };
    // Every connection starts together, at the plan's start (a closed loop
    // does not wait for a schedule, and would otherwise start as it spawns).
    tokio::time::sleep_until(plan.start.into()).await;
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
        let measured = scheduled >= plan.measure_from;
        tally.scheduled += measured as u64;
        if plan.rate.is_some() {
            tokio::time::sleep_until(scheduled.into()).await;
        }
        if !send(&plan, req, scheduled, measured, &mut conn, &mut tally).await {
            conn.stream = None;
            tally.errors += measured as u64;
            // A refused connection: do not spin on it.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    tally
}

/// Send one request and tally its answer; false if nothing was answered.
async fn send(
    plan: &Plan,
    req: &Prepared,
    scheduled: Instant,
    measured: bool,
    conn: &mut Conn,
    tally: &mut Tally,
) -> bool {
    // One reconnect per request at most: a keep-alive connection the
    // server closed is sent again (nothing was answered on it), a refused
    // connection is an error, not a retry loop.
    for _ in 0..2 {
        if conn.stream.is_none() {
            match TcpStream::connect(&conn.addr).await {
                Ok(s) => {
                    // Requests are written whole; Nagle would only delay them.
                    let _ = s.set_nodelay(true);
                    conn.stream = Some(s);
                }
                Err(_) => return false,
            }
        }
        let s = conn.stream.as_mut().expect("connected");
        let send_at = Instant::now();
        let answer = match s.write_all(&req.bytes).await {
            Ok(()) => read_response(s, &mut conn.buf).await,
            Err(e) => Err(e.into()),
        };
        let Ok(a) = answer else {
            conn.stream = None;
            continue;
        };
        let done = Instant::now();
        let ok = (200..300).contains(&a.status);
        let new = ok && !a.duplicate;
        let second = (plan.start_unix + done.duration_since(plan.start).as_secs_f64()) as u64;
        if ok {
            tally.ok_per_second.add(second, 1);
        }
        if new {
            plan.accepted_live.fetch_add(1, Ordering::Relaxed);
            tally.accepted_per_second.add(second, 1);
        }
        if measured {
            tally
                .latency
                .record(done.saturating_duration_since(scheduled));
            let service = done.saturating_duration_since(send_at);
            tally.service.record(service);
            if service >= SLOW && tally.slow.len() < MAX_SLOW {
                let sent = plan.start_unix + send_at.duration_since(plan.start).as_secs_f64();
                tally.slow.push((sent, service.as_secs_f64() * 1000.0));
            }
            *tally.status.entry(a.status).or_default() += 1;
            if new {
                tally.accepted += 1;
            } else if ok {
                tally.duplicates += 1;
            }
            if ok && a.duplicate != req.duplicate {
                tally.dedup_mismatch += 1;
            }
        }
        return true;
    }
    false
}
