//! `[capture]` files and `hookline replay`: a capture holds every verified
//! request and nothing else, and replays as it was. With `--resign`,
//! captures signed long ago with a secret the tenant no longer has are
//! refused as they are; signed again with the tenant's secret and a fresh
//! timestamp (the old one is far outside the suite's five minutes of
//! tolerance) they are accepted once, under the event ID they carried, and
//! are duplicates after that. A wrong secret still fails verification,
//! and a token the capture redacted is put back.
//!
//! These test hookline's re-signing, so they sign with the tests' own
//! sender and write their captures to a temporary directory: the provider
//! corpus (`tests/captures/`) is only ever sent as its SDKs signed it.

use crate::cli::{count, hookline, text};
use crate::common;

use std::path::{Path, PathBuf};

use common::{
    body_for, headers_for, secret, spawn_app, spawn_app_with, AppOptions, Backend, TestApp, Webhook,
};
use hookline::capture::Capture;
use hookline::store::EventKey;

/// 2026-01-01T00:00:00Z: long before any test runs.
const LONG_AGO: i64 = 1_767_225_600;

/// A capture file in `dir` of event `id` for `route`'s tenant `acme`, as a
/// node wrote it long ago: signed then, with a secret of that time (the
/// tests' secret of a tenant `archived`).
fn old_capture(dir: &Path, route: &str, id: &str) -> PathBuf {
    let body = body_for(route, id, "invoice.paid", "then");
    let capture = Capture {
        provider: route.into(),
        kind: Some(route.into()),
        tenant: "acme".into(),
        method: "POST".into(),
        path: format!("/webhooks/{route}/acme"),
        query: String::new(),
        headers: headers_for(
            route,
            &secret(route, "archived"),
            &body,
            id,
            "invoice.paid",
            LONG_AGO,
        ),
        body_base64: base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &body),
        received_at: "2026-01-01T00:00:00+00:00".into(),
    };
    let file = dir.join(format!("{route}.json"));
    std::fs::write(&file, serde_json::to_vec_pretty(&capture).unwrap()).unwrap();
    file
}

/// `hookline replay FILE --target ADDRESS` with `extra` arguments: what it
/// wrote, summary and warnings.
fn replay(file: &Path, address: &str, extra: &[&str]) -> String {
    let mut args = vec!["replay", file.to_str().unwrap(), "--target", address];
    args.extend_from_slice(extra);
    let out = hookline(&args);
    text(&out.stdout) + &text(&out.stderr)
}

/// Whether the store holds a processed event under `key`.
async fn recorded(app: &TestApp, key: &EventKey) -> bool {
    app.store
        .records()
        .processed_event(key)
        .await
        .unwrap()
        .is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_dir_holds_every_verified_request_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = format!("[capture]\ndir = \"{}\"\n", dir.path().display());
    let app = spawn_app_with(opts).await;
    let good = Webhook::new("stripe", "acme", "evt_cap/1", "charge.succeeded", "x");
    let mut bad = good.clone();
    bad.body = b"{\"id\":\"evt_forged\"}".to_vec();
    assert_eq!(app.send(&good).await.status(), 200);
    assert_eq!(app.send(&bad).await.status(), 401);
    let gitlab = Webhook::new("gitlab", "acme", "gl-1", "Push Hook", "x");
    assert_eq!(app.send(&gitlab).await.status(), 200);

    let files = hookline::capture::collect_files(&[dir.path().to_owned()]).unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    let stripe_file = files
        .iter()
        .find(|f| f.starts_with(dir.path().join("stripe/acme")))
        .unwrap();
    let c = Capture::read(stripe_file).unwrap();
    assert_eq!(
        (c.provider.as_str(), c.tenant.as_str(), c.method.as_str()),
        ("stripe", "acme", "POST")
    );
    assert_eq!(c.path, "/webhooks/stripe/acme");
    assert_eq!(c.body().unwrap(), good.body);
    assert!(c
        .headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("stripe-signature")));
    assert!(chrono::DateTime::parse_from_rfc3339(&c.received_at).is_ok());
    // A shared token is a secret: never written to a capture.
    let gl_file = files
        .iter()
        .find(|f| f.starts_with(dir.path().join("gitlab")))
        .unwrap();
    let gl = Capture::read(gl_file).unwrap();
    let token = gl
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("x-gitlab-token"))
        .unwrap();
    assert_eq!(token.1, "[redacted]");
    assert!(!std::fs::read_to_string(gl_file)
        .unwrap()
        .contains(&secret("gitlab", "acme")));
    // The capture replays as it was: a duplicate.
    let out = replay(stripe_file, &app.address, &[]);
    assert_eq!(count(&out, "200 duplicate"), 1, "{out}");

    // A stray JSON file in the directory is skipped with a warning, not a
    // reason to replay nothing.
    std::fs::write(
        dir.path().join("stripe/notes.json"),
        "{\"not\": \"a capture\"}",
    )
    .unwrap();
    let run = hookline(&[
        "replay",
        dir.path().to_str().unwrap(),
        "--target",
        &app.address,
    ]);
    let (out, err) = (text(&run.stdout), text(&run.stderr));
    assert!(
        err.contains("notes.json") && err.contains("skipped"),
        "{err}"
    );
    // The stripe capture is a duplicate (and the replay that answered so
    // wrote no capture of its own); GitLab's token was redacted, so its
    // capture no longer verifies without --resign.
    assert_eq!(count(&out, "200 duplicate"), 1, "{out}");
    assert_eq!(count(&out, "401 invalid_signature"), 1, "{out}");
    // --resign puts the token back: the same delivery, a duplicate.
    let resigned = replay(
        gl_file,
        &app.address,
        &["--resign", &secret("gitlab", "acme")],
    );
    assert_eq!(count(&resigned, "200 duplicate"), 1, "{resigned}");
    // --tenant sends it to another tenant, whose secret did not sign it.
    let other = replay(stripe_file, &app.address, &["--tenant", "globex"]);
    assert_eq!(count(&other, "401 invalid_signature"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resign_sends_old_captures_again_under_their_own_ids() {
    let app = spawn_app(Backend::Embedded).await;
    let dir = tempfile::tempdir().unwrap();
    // Stripe's event ID is in the body; Standard Webhooks' is the
    // `webhook-id` header, which the new signature must keep.
    let stripe = old_capture(dir.path(), "stripe", "evt_1NG8Du2eZvKYlo2CUI79vXWy");
    let standard = old_capture(
        dir.path(),
        "standard-webhooks",
        "msg_2KWPBgLlAfxdpx2AI54pPJ85f4X",
    );
    for (file, route, id) in [
        (&stripe, "stripe", "evt_1NG8Du2eZvKYlo2CUI79vXWy"),
        (
            &standard,
            "standard-webhooks",
            "msg_2KWPBgLlAfxdpx2AI54pPJ85f4X",
        ),
    ] {
        // Signed with a secret of long ago, not this tenant's: refused.
        let out = replay(file, &app.address, &[]);
        assert_eq!(count(&out, "401 invalid_signature"), 1, "{out}");
        let wrong = replay(file, &app.address, &["--resign", &secret(route, "globex")]);
        assert_eq!(count(&wrong, "401 invalid_signature"), 1, "{wrong}");
        let key = common::key(route, "acme", id);
        assert!(
            !recorded(&app, &key).await,
            "{route}: recorded before it verified"
        );

        let first = replay(file, &app.address, &["--resign", &secret(route, "acme")]);
        assert_eq!(count(&first, "200 accepted"), 1, "{route}: {first}");
        assert!(
            recorded(&app, &key).await,
            "{route}: not recorded under {id}"
        );
        // A second fresh signature is the same event again.
        let again = replay(file, &app.address, &["--resign", &secret(route, "acme")]);
        assert_eq!(count(&again, "200 duplicate"), 1, "{route}: {again}");
    }
    assert_eq!(app.inventory().await.processed_events, 2);
}
