//! What `deploy/` ships for operators (issue 28): a Grafana dashboard and
//! Prometheus alert rules. The rules must load and behave as their unit
//! tests say (`promtool`, from Debian's `prometheus` package, which
//! scripts/test installs), and every query of both must name a metric
//! hookline exports, so neither drifts from the code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

/// Every `hookline_*` name in `text`, a histogram's series folded into its
/// family.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("hookline_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
        names.insert(family.to_owned());
        rest = &tail[end..];
    }
    names
}

fn exported() -> BTreeSet<String> {
    hookline::metrics::Metrics::new()
        .families()
        .iter()
        .cloned()
        .collect()
}

#[test]
fn every_dashboard_query_names_an_exported_metric() {
    let text = std::fs::read_to_string(deploy().join("grafana/hookline.json")).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let panels = dashboard["panels"].as_array().expect("panels");
    assert!(panels.len() >= 10, "{} panels", panels.len());
    let mut queries = Vec::new();
    for p in panels {
        let targets = p["targets"].as_array().expect("each panel has queries");
        assert!(!targets.is_empty(), "{}", p["title"]);
        queries.extend(
            targets
                .iter()
                .map(|t| t["expr"].as_str().unwrap().to_owned()),
        );
    }
    let named = metric_names(&queries.join("\n"));
    let exported = exported();
    let unknown: Vec<_> = named.difference(&exported).collect();
    assert!(unknown.is_empty(), "not exported by hookline: {unknown:?}");
    // The dashboard covers the answers, deliveries and the queue.
    for must in [
        "hookline_requests_total",
        "hookline_delivery_attempts_total",
        "hookline_dead_letters",
        "hookline_circuit_open",
        "hookline_store_errors_total",
    ] {
        assert!(named.contains(must), "no panel reads {must}");
    }
}

#[test]
fn the_alert_rules_load_pass_their_unit_tests_and_name_exported_metrics() {
    let dir = deploy().join("prometheus");
    let run = |args: &[&str]| {
        let out = Command::new("promtool")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("promtool (Debian's prometheus package; scripts/test installs it)");
        assert!(
            out.status.success(),
            "promtool {args:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["check", "rules", "hookline-rules.yml"]);
    run(&["test", "rules", "hookline-rules.test.yml"]);
    let rules = std::fs::read_to_string(dir.join("hookline-rules.yml")).unwrap();
    let unknown: Vec<_> = metric_names(&rules)
        .into_iter()
        .filter(|n| !exported().contains(n))
        .collect();
    assert!(unknown.is_empty(), "not exported by hookline: {unknown:?}");
}
