//! Every handshake in `tests/vectors/*/vectors.json` whose kind is built
//! in, replayed through the real HTTP server on every backend: answered as
//! the provider's own example expects, and never an event (no dedup key,
//! no row). The vectors' requests are used unchanged; only the route
//! differs (`/webhooks/hs-KIND-N/t`), and each route's tolerance is the
//! vector's own (300 s) plus the time since the vector's `now`, so a
//! timestamp the vector calls stale is stale here too.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{spawn_app_with, AppOptions, Backend};
use hookline::provider::Definitions;
use serde_json::Value;

struct Case {
    route: String,
    tenant: String,
    vector: Value,
}

/// Every handshake vector of a built-in kind, each with its own tenant
/// (its secrets and verify_token), and the config that declares them.
fn cases() -> (Vec<Case>, String) {
    let defs = Definitions::load(None).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut kinds: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("vectors.json").exists())
        .collect();
    kinds.sort();
    let (mut cases, mut config) = (Vec::new(), String::new());
    for path in kinds {
        let file: Value =
            serde_json::from_slice(&std::fs::read(path.join("vectors.json")).unwrap()).unwrap();
        let kind = file["kind"].as_str().unwrap().to_owned();
        let Some(handshakes) = file["handshakes"].as_array().filter(|h| !h.is_empty()) else {
            continue;
        };
        // A kind that fetches a certificate (AWS SNS) would fetch it from
        // the provider's host: tests/it/cert_url.rs serves its own instead.
        if defs.get(&kind).is_none_or(|d| d.fetches()) {
            continue;
        }
        for (i, h) in handshakes.iter().enumerate() {
            let (route, tenant) = (format!("hs-{kind}-{i}"), "t".to_owned());
            let since = common::now() - h["now"].as_i64().unwrap();
            config.push_str(&format!(
                "[providers.{route}]\nkind = \"{kind}\"\ntolerance = \"{}s\"\n\
                 [providers.{route}.tenants.{tenant}]\nsecrets = {}\n",
                since + 300,
                h["secrets"]
            ));
            if let Some(token) = h["verify_token"].as_str() {
                config.push_str(&format!("verify_token = {token:?}\n"));
            }
            cases.push(Case {
                route,
                tenant,
                vector: h.clone(),
            });
        }
    }
    (cases, config)
}

async fn every_vector_handshake_through_the_server(backend: Backend) {
    let (cases, config) = cases();
    assert!(cases.len() >= 10, "only {} handshake vectors", cases.len());
    let mut opts = AppOptions::new(backend);
    opts.extra = config;
    let app = spawn_app_with(opts).await;
    let client = reqwest::Client::new();
    let mut failures = Vec::new();
    for case in &cases {
        let v = &case.vector;
        let name = format!("{}: {}", case.route, v["name"].as_str().unwrap());
        let request = &v["request"];
        let url = url::Url::parse(request["url"].as_str().unwrap()).unwrap();
        let target = match url.query() {
            Some(q) => format!(
                "{}/webhooks/{}/{}?{q}",
                app.address, case.route, case.tenant
            ),
            None => format!("{}/webhooks/{}/{}", app.address, case.route, case.tenant),
        };
        let method = reqwest::Method::from_bytes(request["method"].as_str().unwrap().as_bytes());
        let mut req = client.request(method.unwrap(), target);
        for pair in request["headers"].as_array().unwrap() {
            req = req.header(pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        }
        if let Some(body) = request["body"].as_str() {
            req = req.body(body.to_owned());
        }
        let res = req.send().await.unwrap();
        let expect = &v["expect"];
        let status = res.status().as_u16();
        if Some(u64::from(status)) != expect["status"].as_u64() {
            failures.push(format!(
                "{name}: status {status}, expected {}",
                expect["status"]
            ));
            continue;
        }
        let header = |n: &str| {
            res.headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        for pair in expect["headers"].as_array().into_iter().flatten() {
            let (n, want) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            if header(n).as_deref() != Some(want) {
                failures.push(format!("{name}: header {n} is {:?}", header(n)));
            }
        }
        let content_type = header("content-type");
        if let Some(want) = expect["content_type"].as_str() {
            if !content_type.as_deref().is_some_and(|c| c.starts_with(want)) {
                failures.push(format!("{name}: content type {content_type:?}"));
            }
        }
        let body = res.bytes().await.unwrap();
        if let Some(want) = expect["body"].as_str() {
            let same = if content_type.as_deref() == Some("application/json") {
                serde_json::from_slice::<Value>(&body).ok()
                    == serde_json::from_str::<Value>(want).ok()
            } else {
                body == want.as_bytes()
            };
            if !same {
                failures.push(format!("{name}: body {:?}", String::from_utf8_lossy(&body)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Counted by provider, kind and outcome.
    let series = |route: &str, outcome: &str| {
        format!("hookline_handshakes_total{{kind=\"hub-challenge\",outcome=\"{outcome}\",provider=\"{route}\"}}")
    };
    assert_eq!(app.metric(&series("hs-meta-0", "answered")).await, 1.0);
    assert_eq!(app.metric(&series("hs-meta-1", "refused")).await, 1.0);
    assert_eq!(app.metric(&series("hs-meta-1", "answered")).await, 0.0);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        app.inventory().await,
        Default::default(),
        "a handshake is never an event"
    );
}

backend_tests!(every_vector_handshake_through_the_server);
