//! The crash matrix (`docs/crash-matrix.md`): the real binary, built with
//! the `failpoints` feature, aborts at one named point (`FAILPOINTS=
//! NAME=return`), as a power cut would. It is restarted without it, the
//! provider retries as providers do, and then: nothing answered 2xx is
//! lost, there is one `processed_event` row, and the handler is called once,
//! or twice with the same `webhook-id` only when the process died between
//! its 2xx and the recorded outcome.
//!
//! `HOOKLINE_SOAK_REPORT=FILE` appends one line per run (`backend point
//! lost repeated`) for `scripts/soak-crash`.

mod common;

#[path = "crash_matrix/beside_rows.rs"]
mod beside_rows;

use std::io::Write as _;
use std::time::{Duration, Instant};

use common::procs::{config_with, free_port, serve, serve_with, try_post, wait_ready, Proc};
use common::sink::Sink;
use common::{AppOptions, Backend, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};
use hookline::store::{stream_lanes, Store};

/// Which process the point is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The receiver: the provider's request dies with it.
    Receiver,
    /// The delivery workers: the request was answered 2xx first.
    Workers,
}

struct Case {
    point: &'static str,
    role: Role,
    /// `ack = "handlers"` (the point is on its path).
    ack_handlers: bool,
    /// Whether a path that claims and commits in one step has this point:
    /// the embedded store (claim, record, queue and complete in one
    /// transaction) and a non-critical event streamed in Redis (claim.lua
    /// claims, completes and appends its deliveries at once).
    on_one_step: bool,
    /// Handler calls expected in the end.
    calls: usize,
    /// At most this many: a point after the deliveries are recorded may
    /// come after this process's workers were handed one and called the
    /// handler (its outcome not yet written); it is then made again, with
    /// the same `webhook-id`.
    max_calls: usize,
    /// Other points armed with it (`NAME=ACTIONS`, `;`-separated).
    also: &'static str,
    /// The provider got its 2xx before the process died.
    answered: bool,
    /// What the provider's retry after the restart is answered, as the
    /// row of `docs/crash-matrix.md` says: the final 2xx's status...
    retried: &'static str,
    /// ...and whether `409 in_progress` may come first (the dead
    /// process's claim holds until `dedup.in_progress_ttl`); otherwise the
    /// first retry gets that 2xx.
    waits_for_claim: bool,
}

const fn case(point: &'static str, role: Role) -> Case {
    Case {
        point,
        role,
        ack_handlers: false,
        on_one_step: true,
        calls: 1,
        max_calls: 1,
        also: "",
        answered: matches!(role, Role::Workers),
        // Recorded before the process died: the retry is a copy.
        retried: "duplicate",
        waits_for_claim: false,
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            retried: "accepted",
            ..case("before_claim", Role::Receiver)
        },
        // The embedded store claims and commits in one transaction, and
        // claim.lua a streamed event in one script, unless `ack =
        // "handlers"` waits between them (`after_delivery_record` is that
        // path's claim left behind).
        Case {
            on_one_step: false,
            retried: "accepted",
            waits_for_claim: true,
            ..case("after_claim", Role::Receiver)
        },
        // The row stands; the key is rebuilt from it once the claim lapses.
        Case {
            on_one_step: false,
            max_calls: 2,
            waits_for_claim: true,
            ..case("after_durable_insert", Role::Receiver)
        },
        // The deliveries were recorded, not the event: once the claim
        // lapses the retry finds them acknowledged and completes it.
        Case {
            ack_handlers: true,
            max_calls: 2,
            retried: "accepted",
            waits_for_claim: true,
            ..case("after_delivery_record", Role::Receiver)
        },
        Case {
            max_calls: 2,
            ..case("after_completion", Role::Receiver)
        },
        Case {
            answered: true,
            max_calls: 2,
            ..case("after_answer", Role::Receiver)
        },
        // The receiver and the workers in one process: the delivery was
        // leased to them in the statement that recorded it, handed over in
        // memory, and the event answered 2xx (the wait lets the answer go
        // out first); then the process dies before the attempt.
        Case {
            answered: true,
            also: ";before_handed_attempt=return(300)",
            ..case("after_handoff", Role::Receiver)
        },
        case("after_lease", Role::Workers),
        Case {
            calls: 2,
            max_calls: 2,
            ..case("after_handler_ack", Role::Workers)
        },
    ]
}

/// Wait for the process to die on its own (the point aborted it).
fn died_within(proc: &mut Proc, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if proc.0.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The provider's retries: until a 2xx, as often as a patient provider.
/// Every answer on the way, as `(status, status or code)`.
async fn retry_until_2xx(port: u16, w: &Webhook) -> Vec<(u16, String)> {
    let until = Instant::now() + Duration::from_secs(20);
    let mut answers = Vec::new();
    loop {
        if let Some((code, body)) = try_post(port, w).await {
            let what = body["status"].as_str().or(body["code"].as_str());
            answers.push((code, what.unwrap_or_default().to_owned()));
            if code == 200 {
                return answers;
            }
        }
        assert!(
            Instant::now() < until,
            "the provider's retries never got a 2xx"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn run(backend: Backend, case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.in_progress_ttl = "3s";
    if case.ack_handlers {
        opts.provider_extra = "ack = \"handlers\"\nack_timeout = \"1s\"\n".into();
    }
    let delivery =
        "[delivery]\npoll_interval = \"50ms\"\nlease = \"2s\"\nbackoff_base = \"50ms\"\n";
    let (config, _db, keys) = config_with(opts, dir.path(), &sink, delivery).await;
    let armed = [("FAILPOINTS", format!("{}=return{}", case.point, case.also))];
    let armed: Vec<(&str, &str)> = armed.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let port = free_port();
    // The receiver first: on the embedded store the second process to open
    // the file finds it migrated.
    let (mut doomed, _receiver) = match case.role {
        Role::Receiver => (serve_with(&config, "all", port, &armed), None),
        Role::Workers => {
            let receiver = serve(&config, "receiver", port);
            wait_ready(port).await;
            (serve_with(&config, "workers", 0, &armed), Some(receiver))
        }
    };
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_crash", "charge.succeeded", "x");
    let first = try_post(port, &w).await;
    let one_step = matches!(backend, Backend::Embedded | Backend::Streams);
    let reached = case.on_one_step || !one_step;
    let died = died_within(
        &mut doomed,
        Duration::from_secs(if reached { 20 } else { 2 }),
    );
    assert_eq!(
        died,
        reached,
        "{}: died at the point\n{}",
        case.point,
        common::procs::logs(&config)
    );
    if case.answered || !reached {
        assert_eq!(first.map(|(s, _)| s), Some(200), "{}", case.point);
    } else {
        // Dead before its answer: the provider saw the connection drop.
        assert!(
            first.is_none(),
            "{}: answered {first:?} before dying",
            case.point
        )
    }
    drop(doomed);

    // Restarted, without the point; the provider retries.
    let _restarted = match case.role {
        Role::Receiver => serve(&config, "all", port),
        Role::Workers => serve(&config, "workers", 0),
    };
    wait_ready(port).await;
    let answers = retry_until_2xx(port, &w).await;
    let (last, before) = answers.split_last().expect("a 2xx");
    // A point the store does not pass: the first request was recorded.
    let retried = if reached { case.retried } else { "duplicate" };
    assert_eq!(last.1, retried, "{}: {answers:?}", case.point);
    let waited = |a: &(u16, String)| case.waits_for_claim && *a == (409, "in_progress".into());
    assert!(
        before.iter().all(waited),
        "{}: before the 2xx: {answers:?}",
        case.point
    );
    if case.point == "after_durable_insert" && reached {
        let repaired =
            common::procs::metric(port, r#"hookline_keys_repaired_total{provider="stripe"}"#).await;
        assert_eq!(repaired, 1.0, "the key rebuilt from the row");
    }
    sink.wait_for(case.calls, Duration::from_secs(20)).await;
    // Anything more would come within a lease and a poll.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let calls = sink.received();
    let ids: Vec<_> = calls.iter().map(|r| r.header("webhook-id")).collect();
    assert!(ids.windows(2).all(|p| p[0] == p[1]), "one idempotency key");

    let store = Store::connect(&keys.settings.store).await.unwrap();
    let rows = store.inventory().await.unwrap().processed_events;
    let deliveries = store
        .records()
        .list(&DeliveryFilter::default())
        .await
        .unwrap();
    if backend == Backend::Streams {
        // A non-critical event: no row, its delivery in a stream until
        // acknowledged, and nothing left there now.
        let store = store.with_lanes(|| stream_lanes(&keys.settings));
        let waiting = store.stream_pending().await.unwrap();
        report(backend, case, calls.len(), 1, waiting == 0);
        assert_eq!((rows, deliveries.len()), (0, 0), "{}: rows", case.point);
        assert_eq!(waiting, 0, "{}: still in the stream", case.point);
    } else {
        let delivered = deliveries
            .iter()
            .all(|d| d.state == DeliveryState::Delivered);
        report(backend, case, calls.len(), rows, delivered);
        assert_eq!(rows, 1, "{}: processed_event rows", case.point);
        assert_eq!(deliveries.len(), 1, "{}: deliveries", case.point);
        assert!(delivered, "{}: {deliveries:?}", case.point);
    }
    assert!(
        (case.calls..=case.max_calls).contains(&calls.len()),
        "{}: {} handler calls",
        case.point,
        calls.len()
    );
}

/// One line for the soak script: lost (no row, or not delivered) and
/// repeated (calls beyond those the point allows).
fn report(backend: Backend, case: &Case, calls: usize, rows: u64, delivered: bool) {
    let Ok(path) = std::env::var("HOOKLINE_SOAK_REPORT") else {
        return;
    };
    let lost = usize::from(rows == 0 || !delivered || calls == 0);
    let repeated = calls.saturating_sub(case.max_calls);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    writeln!(f, "{backend:?} {} {lost} {repeated}", case.point).unwrap();
}

async fn point(backend: Backend, name: &str) {
    let cases = cases();
    let case = cases
        .iter()
        .find(|c| c.point == name)
        .expect("a known point");
    run(backend, case).await
}

macro_rules! matrix {
    ($($point:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $point() {
                    super::point($crate::common::Backend::Embedded, stringify!($point)).await
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $point() {
                    super::point($crate::common::Backend::Redis, stringify!($point)).await
                }
            )*
        }
    };
}

/// The rows that a non-critical event delivered from Redis Streams passes
/// (`Backend::Streams`; the others are a critical event's or `ack =
/// "handlers"`'s, whose deliveries stay in PostgreSQL, or the hand-off's,
/// which streams do not use).
mod streams {
    macro_rules! rows {
        ($($point:ident),* $(,)?) => {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $point() {
                    super::point($crate::common::Backend::Streams, stringify!($point)).await
                }
            )*
        };
    }
    rows!(
        before_claim,
        after_claim,
        after_completion,
        after_answer,
        after_lease,
        after_handler_ack,
    );
}

matrix!(
    before_claim,
    after_claim,
    after_durable_insert,
    after_delivery_record,
    after_completion,
    after_answer,
    after_handoff,
    after_lease,
    after_handler_ack,
);
