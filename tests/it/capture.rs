//! The capture writer keeps every file inside its directory, whatever
//! provider, tenant or event ID it is handed (issue 9, defect 3): it must not
//! rely on the configuration having refused hostile names.

use std::path::{Path, PathBuf};

use hookline::capture::{Capture, CaptureWriter};

fn capture(provider: &str, tenant: &str) -> Capture {
    Capture {
        provider: provider.to_owned(),
        kind: Some("stripe".to_owned()),
        tenant: tenant.to_owned(),
        method: "POST".to_owned(),
        path: "/webhooks/x".to_owned(),
        query: String::new(),
        headers: vec![],
        body_base64: String::new(),
        received_at: "2026-01-01T00:00:00Z".to_owned(),
    }
}

/// Every regular file under `root`, recursively.
fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_owned()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test]
async fn hostile_names_and_event_ids_stay_inside_the_capture_dir() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("X/deep/cap");
    let writer = CaptureWriter::new(dir.clone());
    // An absolute name, but one inside the temp dir: a writer that fails
    // this test must still not write anywhere else on the machine.
    let absolute = root.path().join("abs").display().to_string();
    // No name climbs more than three levels above X/deep/cap.
    let hostile = [
        ("..", "..", "evt_1"),
        (".", "../..", "../../../escaped"),
        (absolute.as_str(), "t", "/passwd"),
        ("p", absolute.as_str(), "evt_3"),
        ("a/../../..", "b/../../c", "..%2f..%2fx"),
        ("%2e%2e", "..\\..", ".."),
        ("", "", ""),
        (".hidden", "ok", "evt_2"),
    ];
    for (provider, tenant, event_id) in hostile {
        let written = writer
            .save(&capture(provider, tenant), event_id)
            .await
            .unwrap_or_else(|e| panic!("{provider:?}/{tenant:?}/{event_id:?}: {e}"));
        assert!(
            written.starts_with(&dir),
            "{provider:?}/{tenant:?}/{event_id:?} written to {}",
            written.display()
        );
    }
    // What is on disk, not what the writer says: every file is inside the
    // capture directory, none is a hidden name, and the directory holds one
    // file per capture.
    let files = files_under(root.path());
    for f in &files {
        let inside = f
            .strip_prefix(&dir)
            .unwrap_or_else(|_| panic!("{} is outside {}", f.display(), dir.display()));
        for part in inside.components() {
            let std::path::Component::Normal(name) = part else {
                panic!("{} has a {part:?} component", f.display());
            };
            assert!(
                !name.to_string_lossy().starts_with('.'),
                "{} has a hidden component",
                f.display()
            );
        }
    }
    assert_eq!(files.len(), hostile.len(), "{files:?}");
}

/// One signed request sent forty times writes one capture, not forty
/// (issue 24): a duplicate is a copy of a request captured already. A
/// conflict is captured (it is kept for an operator to look at) once per
/// body however often the provider resends it, and a new event is.
async fn duplicates_are_not_captured_again(backend: crate::common::Backend) {
    use crate::common::{spawn_app_with, AppOptions, Webhook};
    let captures = tempfile::tempdir().unwrap();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!("[capture]\ndir = \"{}\"\n", captures.path().display());
    let app = spawn_app_with(opts).await;
    let w = Webhook::new("stripe", "acme", "evt_cap", "charge.succeeded", "x");
    for _ in 0..40 {
        assert_eq!(app.send_json(&w).await.0, 200);
    }
    assert_eq!(files_under(captures.path()).len(), 1);
    let changed = Webhook::new("stripe", "acme", "evt_cap", "charge.succeeded", "y");
    for _ in 0..5 {
        assert_eq!(app.send_json(&changed).await.0, 422);
    }
    assert_eq!(files_under(captures.path()).len(), 2);
    let changed_again = Webhook::new("stripe", "acme", "evt_cap", "charge.succeeded", "z");
    assert_eq!(app.send_json(&changed_again).await.0, 422);
    assert_eq!(files_under(captures.path()).len(), 3);
    let next = Webhook::new("stripe", "acme", "evt_cap_2", "charge.succeeded", "x");
    assert_eq!(app.send_json(&next).await.0, 200);
    assert_eq!(files_under(captures.path()).len(), 4);
}

backend_tests!(duplicates_are_not_captured_again);
