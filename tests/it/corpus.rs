//! The capture corpus (`tests/captures/`, README.md there): requests that
//! the providers' own SDKs signed (or their docs' signers, checked by their
//! verifiers), never hookline. Replayed in the manifest's order through a
//! running receiver on every backend: every capture gets its expected
//! verdict (`accepted`, `duplicate`, `conflict`, `held`), every event it
//! carries is recorded under its ID and type, every accepted event reaches
//! the handler (each of octokit's 329 examples among them), and
//! `hookline replay` of the GitHub captures afterwards finds them all
//! duplicates. The providers whose keys are fetched (`jwks`, Circle's
//! `ecdsa-key-id`, one key URL per key ID on one host, and eBay's, whose
//! token URL is served on the same host) fetch them
//! from local HTTPS hosts under the real host names, through a `CONNECT`
//! proxy, answering what their vectors say the key URLs serve.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::cert_host::vectors_file;
use common::connect_proxy::ConnectProxy;
use common::pki::Pki;
use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, HANDLER_SECRET};
use hookline::capture::Capture;
use serde::Deserialize;

backend_tests!(the_capture_corpus_gets_every_verdict_right);

#[derive(Deserialize)]
struct Manifest {
    public_url: String,
    providers: BTreeMap<String, Route>,
    captures: Vec<Entry>,
    /// What each key URL (and token URL) of a fragment's `keys_from`
    /// vectors answers.
    #[serde(skip)]
    keys: BTreeMap<String, String>,
}

/// One provider's captures, kept beside them in
/// `tests/captures/<route>/manifest.json` (README.md there): replayed after
/// the main manifest's, in the order of their routes' names.
#[derive(Deserialize)]
struct Fragment {
    route: String,
    kind: String,
    secrets: Vec<String>,
    captures: Vec<Entry>,
    /// The kind whose vectors' `certs` say what its key URLs answer
    /// (`scheme = "jwks"` providers).
    #[serde(default)]
    keys_from: Option<String>,
}

#[derive(Deserialize)]
struct Route {
    kind: String,
    secrets: Vec<String>,
}

#[derive(Deserialize)]
struct Entry {
    file: String,
    expect: String,
    events: Vec<Event>,
}

#[derive(Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Event {
    id: String,
    #[serde(rename = "type")]
    kind: String,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures")
}

/// The main manifest, then every route's fragment.
fn manifest() -> Manifest {
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut manifest: Manifest = serde_json::from_slice(&read(&corpus().join("manifest.json")))
        .expect("tests/captures/manifest.json");
    let mut fragments: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path().join("manifest.json"))
        .filter(|p| p.exists())
        .collect();
    fragments.sort();
    for path in fragments {
        let f: Fragment = serde_json::from_slice(&read(&path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let prefix = format!("{}/", f.route);
        for c in &f.captures {
            assert!(
                c.file.starts_with(&prefix),
                "{}: {} is not under {prefix}",
                path.display(),
                c.file
            );
        }
        let route = Route {
            kind: f.kind,
            secrets: f.secrets,
        };
        assert!(
            manifest.providers.insert(f.route.clone(), route).is_none(),
            "{}: route {} is in the main manifest too",
            path.display(),
            f.route
        );
        manifest.captures.extend(f.captures);
        if let Some(kind) = &f.keys_from {
            let vectors: serde_json::Value =
                serde_json::from_str(&vectors_file(kind, "vectors.json")).unwrap();
            for (url, body) in vectors["certs"].as_object().expect("certs in the vectors") {
                let body = body.as_str().expect("a key URL's answer").to_owned();
                manifest.keys.insert(url.clone(), body);
            }
            // eBay's key URLs want a token first: its token URLs' answers.
            for (url, body) in vectors["tokens"].as_object().into_iter().flatten() {
                let body = body.as_str().expect("a token URL's answer").to_owned();
                manifest.keys.insert(url.clone(), body);
            }
        }
    }
    manifest
}

/// The key URLs' hosts, served locally: one HTTPS server per host with a
/// certificate for its real name from a test CA, and the proxy the
/// receiver reaches them through.
struct KeyHosts {
    pki: Pki,
    proxy: ConnectProxy,
    _servers: Vec<Sink>,
}

impl KeyHosts {
    async fn start(keys: &BTreeMap<String, String>) -> KeyHosts {
        let pki = Pki::new();
        let (mut routes, mut servers) = (Vec::new(), Vec::new());
        // One server per host, answering each key URL's path.
        let mut by_host: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (url, body) in keys {
            let url = url::Url::parse(url).unwrap();
            let host = url.host_str().unwrap().to_owned();
            let paths = by_host.entry(host).or_default();
            paths.push((url.path().to_owned(), body.clone()));
        }
        for (host, paths) in by_host {
            let server = Sink::start_tls(pki.server_config_for(&[host.as_str()]));
            server.always(Reply::Routes(paths));
            let port = url::Url::parse(&server.url).unwrap().port().unwrap();
            routes.push((host, std::net::SocketAddr::from(([127, 0, 0, 1], port))));
            servers.push(server);
        }
        let proxy = ConnectProxy::routed(routes).await;
        // The receiver runs in this process, and nextest gives each test a
        // process of its own: its outbound HTTPS to anything but this
        // machine goes through the proxy.
        std::env::set_var("HTTPS_PROXY", &proxy.url);
        std::env::set_var("NO_PROXY", "127.0.0.1,localhost");
        KeyHosts {
            pki,
            proxy,
            _servers: servers,
        }
    }
}

/// The receiver's configuration for the corpus: each route as the manifest
/// gives it, every event critical (so its row can be looked up), and one
/// handler for everything.
fn config(manifest: &Manifest, sink: &Sink) -> String {
    let mut out = String::new();
    for (route, r) in &manifest.providers {
        let secrets: Vec<String> = r.secrets.iter().map(|s| format!("{s:?}")).collect();
        // The captures were signed at one fixed time (2026-01-01, the
        // manifest's `sent_at`); the SDKs that signed them, and hookline's
        // definitions, refuse such a timestamp minutes later. This test's
        // tolerance covers it: a setting of this test, not a default.
        out.push_str(&format!(
            "[providers.{route}]\nkind = {:?}\ncritical = [\"*\"]\ntolerance = \"36500days\"\n\
             [providers.{route}.tenants.default]\nsecrets = [{}]\n",
            r.kind,
            secrets.join(", ")
        ));
    }
    let events: Vec<String> = (manifest.providers.keys())
        .map(|route| format!("\"{route}:*\""))
        .collect();
    out.push_str(&format!(
        "[handlers.all]\nurl = \"{}\"\nevents = [{}]\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        sink.url,
        events.join(", ")
    ));
    out
}

/// The verdict an answer gives: the `status` of a 2xx, `conflict` for
/// `event_id_conflict`, else the status and problem code. A provider with
/// an `ack_body` (Alipay's `success`) is answered that text alone: its
/// verdict is then `duplicate` with `Webhook-Duplicate`, else `accepted`
/// (no route with an `ack_body` holds an event here).
async fn verdict(answer: reqwest::Response) -> String {
    let status = answer.status().as_u16();
    let duplicate = answer.headers().contains_key("Webhook-Duplicate");
    let text = answer
        .headers()
        .get("content-type")
        .is_some_and(|t| t.as_bytes().starts_with(b"text/plain"));
    if text && (200..=299).contains(&status) {
        return if duplicate { "duplicate" } else { "accepted" }.to_owned();
    }
    let body: serde_json::Value = answer.json().await.unwrap_or_default();
    match (status, body["code"].as_str()) {
        (200..=299, _) => body["status"].as_str().unwrap_or("?").to_owned(),
        (422, Some("event_id_conflict")) => "conflict".to_owned(),
        (_, code) => format!("{status} {}", code.unwrap_or("")),
    }
}

async fn the_capture_corpus_gets_every_verdict_right(backend: Backend) {
    let manifest = manifest();
    let key_hosts = KeyHosts::start(&manifest.keys).await;
    let sink = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.routes = false;
    opts.extra = format!(
        "[tls]\nca_file = {:?}\n{}",
        key_hosts.pki.path("ca.pem"),
        config(&manifest, &sink)
    );
    // HubSpot signs the URL it called: the public one.
    opts.server_extra = format!("public_url = {:?}", manifest.public_url);
    let app = spawn_app_with(opts).await;

    let mut wrong = Vec::new();
    for entry in &manifest.captures {
        let capture: Capture =
            serde_json::from_slice(&std::fs::read(corpus().join(&entry.file)).unwrap()).unwrap();
        let mut url = format!("{}{}", app.address, capture.path);
        if !capture.query.is_empty() {
            url = format!("{url}?{}", capture.query);
        }
        let mut request = app.client.post(&url).body(capture.body().unwrap());
        for (name, value) in &capture.headers {
            request = request.header(name, value);
        }
        let got = verdict(request.send().await.unwrap()).await;
        if got != entry.expect {
            wrong.push(format!("{}: {got}, expected {}", entry.file, entry.expect));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} captures got the wrong verdict:\n{}",
        wrong.len(),
        manifest.captures.len(),
        wrong.join("\n")
    );
    // The keys came from the providers' own hosts (served here), each
    // fetched for the captures that name it.
    let mut asked = key_hosts.proxy.asked();
    asked.sort();
    asked.dedup();
    assert_eq!(
        asked,
        [
            "acme.kinde.com:443",
            "api.circle.com:443",
            "api.ebay.com:443",
            "keys.fireblocks.io:443",
            "www.googleapis.com:443"
        ]
    );

    // Every event is recorded under its ID and type, once; a held copy
    // (a suspected replay) is kept apart, and never delivered unreleased.
    let (mut expected, mut held) = (BTreeSet::new(), BTreeSet::new());
    for entry in &manifest.captures {
        let route = entry.file.split('/').next().unwrap();
        for event in &entry.events {
            let into = if entry.expect == "held" {
                &mut held
            } else {
                &mut expected
            };
            into.insert((route.to_owned(), event.clone()));
        }
    }
    for (route, event) in &expected {
        let row = app
            .store
            .records()
            .processed_event(&common::key(route, "default", &event.id))
            .await
            .unwrap();
        match row {
            Some(row) => assert_eq!(row.event_type, event.kind, "{route} {}", event.id),
            None => panic!("{route} {}: not recorded", event.id),
        }
    }
    assert_eq!(
        app.inventory().await.processed_events,
        expected.len() as u64
    );

    // Each event reaches the handler: octokit's 329 examples among them.
    let received = sink
        .wait_for(expected.len(), Duration::from_secs(180))
        .await;
    let delivered: BTreeSet<(String, String)> = received
        .iter()
        .map(|r| {
            let h = |n: &str| r.header(n).unwrap_or_default().to_owned();
            (h("X-Hookline-Provider"), h("X-Hookline-Event-Id"))
        })
        .collect();
    let wanted: BTreeSet<(String, String)> = expected
        .iter()
        .map(|(route, e)| (route.clone(), e.id.clone()))
        .collect();
    assert_eq!(delivered, wanted, "every recorded event delivered");
    assert!(!held.is_empty(), "the corpus holds a suspected replay");
    for (route, event) in &held {
        assert!(
            !delivered.contains(&(route.clone(), event.id.clone())),
            "{route} {}: held, yet delivered",
            event.id
        );
    }
    let octokit = wanted.iter().filter(|(route, _)| route == "github").count();
    assert_eq!(octokit, 329, "one delivery ID per octokit example");

    // The same GitHub captures replayed by the CLI, as they are (GitHub
    // signs no timestamp): each one now a duplicate.
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["replay", corpus().join("github").to_str().unwrap()])
        .args(["--target", &app.address])
        .env_remove("HOOKLINE_CONFIG")
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{summary}");
    let files = std::fs::read_dir(corpus().join("github")).unwrap().count();
    assert!(
        summary.contains(&format!("200 duplicate: {files}")),
        "{summary}"
    );
}
