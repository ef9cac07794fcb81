//! Replays under a fresh, unsigned event ID (issue 9, gap 5; issue 23):
//! GitHub signs the body but not `X-GitHub-Delivery`, so a captured
//! request resent with a new delivery ID verifies. With `replay_guard =
//! "body"` its body is a second key for the replay window: the resend is
//! held as a suspected replay (kept, counted, listed, never delivered until
//! an operator releases it, never dropped), on every backend, and on the
//! redis store even after Redis lost its keys. The guard is set on the
//! provider here, whatever GitHub's definition defaults to.

use crate::common;

use std::time::Duration;

use common::backing::drop_keys;
use common::sink::Sink;
use common::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};

use common::HANDLER_SECRET;
/// GitHub's definition keys by the delivery ID alone (its distinct events
/// can share a body): these tests turn the body key on.
const BODY_GUARD: &str = "replay_guard = \"body\"";
const FAST: &str = "[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"200ms\"\nlease = \"10s\"\n";

async fn app(backend: Backend, sink: &Sink, provider_extra: &str) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{FAST}[handlers.ci]\nurl = \"{}\"\nevents = [\"github:*\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        sink.url
    );
    opts.provider_extra = if provider_extra.contains("replay_guard") {
        provider_extra.to_owned()
    } else {
        format!("replay_guard = \"body\"\n{provider_extra}")
    };
    spawn_app_with(opts).await
}

/// The same signed request with another `X-GitHub-Delivery`.
fn under(w: &Webhook, delivery: &str) -> Webhook {
    let mut copy = Webhook {
        path: w.path.clone(),
        headers: w.headers.clone(),
        body: w.body.clone(),
    };
    for (k, v) in &mut copy.headers {
        if k.eq_ignore_ascii_case("X-GitHub-Delivery") {
            *v = delivery.to_owned();
        }
    }
    copy
}

/// The event IDs the handler was called with, sorted.
fn delivered_ids(sink: &Sink) -> Vec<String> {
    let mut ids: Vec<_> = sink
        .received()
        .iter()
        .map(|r| r.header("x-hookline-event-id").unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

async fn status(app: &TestApp, w: &Webhook) -> (u16, String) {
    let (code, body) = app.send_json(w).await;
    (code, body["status"].as_str().unwrap_or_default().to_owned())
}

async fn resend_under_a_fresh_id_is_held_until_released(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, BODY_GUARD).await;
    let original = Webhook::new("github", "acme", "delivery-a", "push", "x");
    assert_eq!(status(&app, &original).await, (200, "accepted".into()));
    // The attacker's (or a confused proxy's) resend, or a real event that
    // repeats a body: signed, fresh ID. Held, not delivered, not dropped.
    let resend = under(&original, "delivery-b");
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    // The provider's own retry is still a plain duplicate.
    assert_eq!(status(&app, &original).await, (200, "duplicate".into()));
    // Another body under a fresh ID is a new event.
    let next = Webhook::new("github", "acme", "delivery-c", "push", "y");
    assert_eq!(status(&app, &next).await, (200, "accepted".into()));
    // Another tenant's identical body is its own event.
    let other = Webhook::new("github", "globex", "delivery-a", "push", "x");
    assert_eq!(status(&app, &other).await, (200, "accepted".into()));

    let got = sink.wait_for(3, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ids = delivered_ids(&sink);
    assert_eq!(ids, ["delivery-a", "delivery-a", "delivery-c"], "{got:?}");
    assert_eq!(app.inventory().await.processed_events, 3);
    assert_eq!(
        app.metric(r#"hookline_dedup_total{outcome="replay",provider="github"}"#)
            .await,
        2.0
    );
    assert_eq!(
        app.metric(r#"hookline_held_total{provider="github",reason="suspected_replay"}"#)
            .await,
        2.0
    );
    // It is kept whole, counted once per request, and shown with the event.
    let key = common::key("github", "acme", "delivery-b");
    let held = app.store.records().held(&key).await.unwrap().expect("held");
    assert_eq!((held.copies, held.released_at), (2, None));
    assert_eq!(held.body, original.body);
    let report = app
        .store
        .event_report(&common::key("github", "acme", "delivery-b"))
        .await
        .unwrap()
        .expect("a report");
    assert!(report.held.is_some());
    // An operator releases it (the admin API's and console's release run
    // the same code): recorded and delivered like any event.
    let ingest = hookline::ingest::Ingest::new(
        app.settings.clone(),
        app.store.clone(),
        std::sync::Arc::new(hookline::metrics::Metrics::new()),
    );
    assert_eq!(
        ingest.release(&key).await.unwrap(),
        hookline::ingest::Status::Accepted
    );
    let got = sink.wait_for(4, Duration::from_secs(10)).await;
    assert!(got
        .iter()
        .any(|r| r.header("x-hookline-event-id") == Some("delivery-b")));
    assert!(matches!(
        ingest.release(&key).await,
        Err(hookline::ingest::ReleaseError::AlreadyReleased { .. })
    ));
    // Its ID is an event now: the provider's retry of it is a duplicate.
    assert_eq!(status(&app, &resend).await, (200, "duplicate".into()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 4);
}

/// The body key lasts `replay_window`, not the whole dedup window: past it,
/// the same body under a fresh ID is a new event.
async fn the_replay_window_is_configurable(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(
        backend,
        &sink,
        "replay_guard = \"body\"\nreplay_window = \"1s\"",
    )
    .await;
    let original = Webhook::new("github", "acme", "delivery-a", "push", "x");
    assert_eq!(status(&app, &original).await, (200, "accepted".into()));
    let resend = under(&original, "delivery-b");
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let later = under(&original, "delivery-c");
    assert_eq!(status(&app, &later).await, (200, "accepted".into()));
    sink.wait_for(2, Duration::from_secs(10)).await;
}

/// `replay_guard = "none"` on the provider turns the body key off: for a
/// sender whose distinct events can share a body.
async fn the_provider_can_turn_the_body_key_off(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, "replay_guard = \"none\"").await;
    let original = Webhook::new("github", "acme", "delivery-a", "push", "x");
    assert_eq!(status(&app, &original).await, (200, "accepted".into()));
    let resend = under(&original, "delivery-b");
    assert_eq!(status(&app, &resend).await, (200, "accepted".into()));
    sink.wait_for(2, Duration::from_secs(10)).await;
}

/// A claim given up (a failed commit, `ack = "handlers"` timing out) gives
/// the body key up too: the same body under another ID is then free.
async fn a_released_claim_frees_the_body_key(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = app(backend, &sink, BODY_GUARD).await;
    let w = Webhook::new("github", "acme", "delivery-a", "push", "x");
    let ev = common::store::verified(&app.settings, &w);
    let ttl = Duration::from_secs(30);
    let hookline::store::ClaimOutcome::Owned(owner) = app.store.claim(&ev, ttl).await.unwrap()
    else {
        panic!("owned");
    };
    let resend = common::store::verified(&app.settings, &under(&w, "delivery-b"));
    assert!(
        matches!(
            app.store.claim(&resend, ttl).await.unwrap(),
            hookline::store::ClaimOutcome::InProgress { .. }
        ),
        "the body is claimed under delivery-a"
    );
    app.store.release(&ev, &owner).await.unwrap();
    assert!(matches!(
        app.store.claim(&resend, ttl).await.unwrap(),
        hookline::store::ClaimOutcome::Owned(_)
    ));
}

backend_tests!(
    resend_under_a_fresh_id_is_held_until_released,
    the_replay_window_is_configurable,
    the_provider_can_turn_the_body_key_off,
    a_released_claim_frees_the_body_key,
);

// A non-critical event streamed in Redis: claim.lua claims its keys,
// completes them and appends its delivery in one script.
stream_tests!(
    the_replay_window_is_configurable,
    the_provider_can_turn_the_body_key_off,
);

/// With its delivery in Redis Streams a non-critical event keeps its body
/// key like any other: the resend under a fresh ID is held, the handler is
/// called for the original only, and nothing is written to PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_event_is_guarded_by_its_body_key() {
    let sink = Sink::start(vec![]);
    let app = app(Backend::Streams, &sink, BODY_GUARD).await;
    let original = Webhook::new("github", "acme", "delivery-a", "push", "x");
    assert_eq!(status(&app, &original).await, (200, "accepted".into()));
    let resend = under(&original, "delivery-b");
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    assert_eq!(status(&app, &original).await, (200, "duplicate".into()));
    let next = Webhook::new("github", "acme", "delivery-c", "push", "y");
    assert_eq!(status(&app, &next).await, (200, "accepted".into()));
    sink.wait_for(2, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ids = delivered_ids(&sink);
    assert_eq!(ids, ["delivery-a", "delivery-c"]);
    assert!(app.deliveries("delivery-a").await.is_empty(), "no rows");
    assert_eq!(app.inventory().await.processed_events, 0);
}

/// Redis restarted empty: the dedup and body keys are gone, but the
/// critical event's row still knows the body, so the resend under a fresh
/// ID is held and not delivered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_catch_the_resend_after_redis_lost_its_keys() {
    let sink = Sink::start(vec![]);
    let app = app(Backend::Redis, &sink, BODY_GUARD).await;
    let original = Webhook::new("github", "acme", "delivery-a", "push", "x");
    assert_eq!(status(&app, &original).await, (200, "accepted".into()));
    sink.wait_for(1, Duration::from_secs(10)).await;
    drop_keys(&app.settings, Backend::Redis);
    let resend = under(&original, "delivery-b");
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    assert_eq!(status(&app, &resend).await, (200, "held".into()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1);
    assert_eq!(app.inventory().await.processed_events, 1);
}
