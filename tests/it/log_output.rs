//! What a request can make the real binary write to its log (stderr): no
//! forged line, no terminal escape, no line of unbounded length, in the
//! text format and in JSON.

use std::time::{Duration, Instant};

use crate::common::procs::{config, free_port, serve_with, wait_ready};
use crate::common::raw::{read_response, send_partial};
use crate::common::sink::Sink;
use crate::common::Backend;

/// A path segment that, written raw, would end the line and forge one
/// reporting an error.
const FORGED: &str = "t%0A2026-11-25T00:00:00Z%20ERROR%20forged";
/// What a terminal would turn red.
const ESCAPE: &str = "%1b[31mred%1b[0m";
/// The longest line a bounded value allows, with the rest of the line.
const LONGEST_LINE: usize = 4 * 1024;

/// Requests whose paths a provider never sent; each is answered 404.
async fn hostile_requests(port: u16) {
    let long = "a".repeat(30_000);
    for path in [
        format!("/webhooks/stripe/{FORGED}"),
        format!("/webhooks/{ESCAPE}/acme"),
        format!("/webhooks/stripe/{long}"),
    ] {
        let mut s = send_partial(
            port,
            "POST",
            &path,
            &[
                ("Content-Length", "2".into()),
                ("Connection", "close".into()),
            ],
            b"{}",
        )
        .await;
        let res = read_response(&mut s, Duration::from_secs(10))
            .await
            .expect("an answer");
        assert_eq!(res.status, 404, "{}", res.status_line);
    }
}

/// The log once it holds `n` lines saying `answered` (the log is written
/// by a thread of its own, a moment after the answer).
async fn log_with_answers(path: &std::path::Path, n: usize) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let log = std::fs::read(path).unwrap_or_default();
        let answered = String::from_utf8_lossy(&log).matches("answered").count();
        // Whole lines only: the log thread may be part-way through the
        // last one (its "answered" comes before its long values).
        let whole = log.ends_with(b"\n");
        if (answered >= n && whole) || Instant::now() > deadline {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Serve with `format`, send the hostile requests, return the log.
async fn logged(backend: Backend, format: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(Vec::new());
    let (config, _db, _keys) = config(backend, dir.path(), &sink, "").await;
    let port = free_port();
    let proc = serve_with(
        &config,
        "all",
        port,
        &[("HOOKLINE_LOG_FORMAT", format), ("RUST_LOG", "info")],
    );
    wait_ready(port).await;
    hostile_requests(port).await;
    let log = log_with_answers(&dir.path().join("all-0.log"), 3).await;
    drop(proc);
    log
}

async fn a_request_cannot_forge_escape_or_stretch_a_text_log_line(backend: Backend) {
    let log = logged(backend, "text").await;
    let text = String::from_utf8_lossy(&log);
    assert_eq!(text.matches("answered").count(), 3, "{text}");
    assert!(
        !log.contains(&0x1b),
        "a raw escape reached the log:\n{text}"
    );
    for line in text.lines() {
        assert!(
            !line.starts_with("2026-11-25T00:00:00Z"),
            "a forged line:\n{text}"
        );
        assert!(line.len() <= LONGEST_LINE, "a line of {} bytes", line.len());
    }
    // Each value is still there, escaped or cut, on its request's line.
    assert!(
        text.contains("tenant=\"t\\n2026-11-25T00:00:00Z ERROR forged\""),
        "{text}"
    );
    assert!(text.contains("\\u{1b}[31mred"), "{text}");
    assert!(text.contains("aaaa…[+"), "{text}");
}

async fn a_request_cannot_stretch_a_json_log_line(backend: Backend) {
    let log = logged(backend, "json").await;
    let text = String::from_utf8_lossy(&log);
    assert!(
        !log.contains(&0x1b),
        "a raw escape reached the log:\n{text}"
    );
    let mut tenants = Vec::new();
    for line in text.lines() {
        assert!(line.len() <= LONGEST_LINE, "a line of {} bytes", line.len());
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: not JSON: {line}"));
        if let Some(t) = v.pointer("/span/tenant").and_then(|t| t.as_str()) {
            tenants.push(t.to_owned());
        }
    }
    assert!(
        tenants
            .iter()
            .any(|t| t == "t\n2026-11-25T00:00:00Z ERROR forged"),
        "the tenant as sent, escaped by JSON: {tenants:?}"
    );
    assert!(
        tenants
            .iter()
            .any(|t| t.starts_with("aaaa") && t.ends_with(" bytes]") && t.len() < 1100),
        "the long tenant cut: {tenants:?}"
    );
}

backend_tests!(
    a_request_cannot_forge_escape_or_stretch_a_text_log_line,
    a_request_cannot_stretch_a_json_log_line,
);
