//! `hookline replay --resign`: captures the providers' SDKs signed long
//! ago with another secret (the corpus, `tests/captures/`) are refused as
//! they are; signed again with the tenant's secret and a fresh timestamp
//! (the old one is far outside the suite's five minutes of tolerance) they
//! are accepted once, under the event ID they carried, and are duplicates
//! after that. A wrong secret still fails verification, and a token the
//! capture redacted is put back.

use crate::cli::{count, hookline, text};
use crate::common;

use std::path::{Path, PathBuf};

use common::{secret, spawn_app, spawn_app_with, AppOptions, Backend, Webhook};

fn capture(route: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/captures")
        .join(route)
        .join(file)
}

/// `hookline replay FILE --target ADDRESS --tenant acme` with `extra`
/// arguments: its summary.
fn replay(file: &Path, address: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "replay",
        file.to_str().unwrap(),
        "--target",
        address,
        "--tenant",
        "acme",
    ];
    args.extend_from_slice(extra);
    let out = hookline(&args);
    text(&out.stdout) + &text(&out.stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_sends_old_captures_again_under_their_own_ids() {
    let app = spawn_app(Backend::Embedded).await;
    // Stripe's SDK signed this on 2026-01-01. Its event ID is in the body.
    let stripe = capture("stripe", "0001-setup_intent.created.json");
    // The Standard Webhooks library signed this one; its message ID is the
    // `webhook-id` header, which the new signature must keep.
    let standard = capture("standard-webhooks", "0001-example-event.json");
    for (file, route, id) in [
        (&stripe, "stripe", "evt_1NG8Du2eZvKYlo2CUI79vXWy"),
        (
            &standard,
            "standard-webhooks",
            "msg_2KWPBgLlAfxdpx2AI54pPJ85f4X",
        ),
    ] {
        // Signed with the corpus's secret, not this tenant's: refused.
        let out = replay(file, &app.address, &[]);
        assert_eq!(count(&out, "401 invalid_signature"), 1, "{out}");
        let wrong = replay(file, &app.address, &["--resign", &secret(route, "globex")]);
        assert_eq!(count(&wrong, "401 invalid_signature"), 1, "{wrong}");
        let key = common::key(route, "acme", id);
        assert!(
            app.store
                .records()
                .processed_event(&key)
                .await
                .unwrap()
                .is_none(),
            "{route}: recorded before it verified"
        );

        let first = replay(file, &app.address, &["--resign", &secret(route, "acme")]);
        assert_eq!(count(&first, "200 accepted"), 1, "{route}: {first}");
        assert!(
            app.store
                .records()
                .processed_event(&key)
                .await
                .unwrap()
                .is_some(),
            "{route}: not recorded under {id}"
        );
        // A second fresh signature is the same event again.
        let again = replay(file, &app.address, &["--resign", &secret(route, "acme")]);
        assert_eq!(count(&again, "200 duplicate"), 1, "{route}: {again}");
    }
    assert_eq!(app.inventory().await.processed_events, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_puts_back_a_token_the_capture_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = format!("[capture]\ndir = \"{}\"\n", dir.path().display());
    let app = spawn_app_with(opts).await;
    let push = Webhook::new("gitlab", "acme", "gl-resign", "Push Hook", "x");
    assert_eq!(app.send(&push).await.status(), 200);
    let files = hookline::capture::collect_files(&[dir.path().to_owned()]).unwrap();
    let [file] = files.as_slice() else {
        panic!("one capture expected: {files:?}")
    };
    // The capture holds `[redacted]` where the token was: refused as it is,
    // the same delivery once the token is put back.
    let out = replay(file, &app.address, &[]);
    assert_eq!(count(&out, "401 invalid_signature"), 1, "{out}");
    let out = replay(file, &app.address, &["--resign", &secret("gitlab", "acme")]);
    assert_eq!(count(&out, "200 duplicate"), 1, "{out}");
}
