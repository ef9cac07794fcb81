//! The web console in a real browser (issue 14): Debian's chromium, driven
//! by playwright-core (`tests/browser/console.mjs`), signs in, sees a
//! forged request counted on the overview, lists the duplicates (the
//! requests list filtered by outcome), finds an event by ID, sees its
//! delivery attempt, replays dead letters (a selection, then all matching
//! after the counted confirmation) and sees them delivered, checks the
//! phone-width layout and keyboard reach, signs out and is refused; on
//! every backend.
//!
//! Needs `node`, `/usr/bin/chromium` (or `CHROMIUM`) and
//! `tests/browser/node_modules` (`npm ci --prefix tests/browser`);
//! scripts/test installs all three. The screenshots land in a temporary
//! directory; with `HOOKLINE_CONSOLE_SCREENSHOTS=docs` the embedded run
//! writes them to `docs/console/` (the README's pictures).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::console::{console_app, TOKEN};
use common::sink::{Reply, Sink};
use common::{Backend, TestApp, Webhook};
use hookline::store::delivery::DeliveryState;

const EVENTS: [&str; 2] = ["evt_browser_1", "evt_browser_2"];

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

async fn states(app: &TestApp, event_id: &str) -> Vec<DeliveryState> {
    app.deliveries(event_id)
        .await
        .into_iter()
        .map(|d| d.state)
        .collect()
}

async fn wait_until_dead(app: &TestApp, event_id: &str) {
    for _ in 0..250 {
        if states(app, event_id).await == [DeliveryState::Dead] {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{event_id} was never dead-lettered");
}

/// Run the browser script against `app`; panics with its output unless
/// every step passed within two minutes.
fn run_browser(app: &TestApp, screenshots: &Path) {
    let dir = browser_dir();
    assert!(
        dir.join("node_modules/playwright-core").exists(),
        "playwright-core is not installed: run `npm ci --prefix tests/browser` (scripts/test does)"
    );
    let mut child = Command::new("node")
        .arg(dir.join("console.mjs"))
        .env("CONSOLE_URL", &app.address)
        .env("CONSOLE_TOKEN", TOKEN)
        .env("EVENT_IDS", EVENTS.join(","))
        .env("SCREENSHOTS", screenshots)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node (install nodejs)");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(status.success(), "the browser run failed:\n{text}");
    assert!(text.contains("every step passed"), "{text}");
}

async fn a_person_signs_in_finds_an_event_replays_dead_letters_and_signs_out(backend: Backend) {
    // Two refusals (400: dead at once), then the handler accepts.
    let sink = Sink::start(vec![Reply::Status(400), Reply::Status(400)]);
    let app = console_app(backend, &sink, "").await;
    for id in EVENTS {
        let w = Webhook::new("stripe", "acme", id, "invoice.paid", id);
        assert_eq!(app.send_json(&w).await.0, 200);
        wait_until_dead(&app, id).await;
    }
    // The first again: a duplicate, listed under Requests.
    let again = Webhook::new("stripe", "acme", EVENTS[0], "invoice.paid", EVENTS[0]);
    assert_eq!(app.send_json(&again).await.1["status"], "duplicate");
    // A forgery, counted on the overview (never stored).
    let mut forged = Webhook::new("stripe", "acme", "evt_forged", "invoice.paid", "x");
    forged.body.extend_from_slice(b" ");
    assert_eq!(app.send_json(&forged).await.0, 401);
    let tmp = tempfile::tempdir().unwrap();
    let to_docs = backend == Backend::Embedded
        && std::env::var("HOOKLINE_CONSOLE_SCREENSHOTS").as_deref() == Ok("docs");
    let screenshots = if to_docs {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/console")
    } else {
        tmp.path().to_owned()
    };
    std::fs::create_dir_all(&screenshots).unwrap();
    let app_ref = &app;
    let shots = screenshots.clone();
    // The browser blocks; the app keeps serving on the runtime's workers.
    tokio::task::block_in_place(|| run_browser(app_ref, &shots));

    for id in EVENTS {
        assert_eq!(states(&app, id).await, [DeliveryState::Delivered], "{id}");
    }
    for page in [
        "sign-in",
        "overview",
        "events",
        "requests",
        "event",
        "dead-letters",
        "replay-all",
    ] {
        let png = screenshots.join(format!("{page}.png"));
        assert!(png.metadata().is_ok_and(|m| m.len() > 1000), "{png:?}");
    }
}

backend_tests!(a_person_signs_in_finds_an_event_replays_dead_letters_and_signs_out);
