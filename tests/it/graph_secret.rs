//! Issue 24: Microsoft Graph's `clientState` is the tenant's secret, sent
//! inside the body of every notification. Header and query tokens were
//! redacted where a request is kept or shown; this one was not. On every
//! backend: the capture file, the console's event page and the body
//! download show it as `[redacted]`, every copy of it, with the rest of
//! the body byte for byte; the handler still gets the body the provider
//! sent.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use common::console::{console_app, Operator};
use common::sink::Sink;
use common::{Backend, Webhook, HANDLER_SECRET};

const CLIENT_STATE: &str = "graph-client-state-0f9e8d7c";

/// Two notifications, one of them writing `clientState` twice, in Graph's
/// layout with a spacing of its own (kept as it came).
fn notification() -> Vec<u8> {
    format!(
        r#"{{"value": [
  {{"subscriptionId": "s-1", "clientState": "{CLIENT_STATE}", "changeType": "created", "resource": "Users/1"}},
  {{"subscriptionId":"s-2","clientState":"{CLIENT_STATE}","changeType":"updated","resource":"Users/2","clientState" : "{CLIENT_STATE}"}}
]}}"#
    )
    .into_bytes()
}

fn redacted(body: &[u8]) -> Vec<u8> {
    String::from_utf8(body.to_vec())
        .unwrap()
        .replace(&format!("\"{CLIENT_STATE}\""), "\"[redacted]\"")
        .into_bytes()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(json_files(&path));
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
    out
}

async fn the_client_state_is_redacted_wherever_a_body_is_kept_or_shown(backend: Backend) {
    let captures = tempfile::tempdir().unwrap();
    let handler = Sink::start(vec![]);
    let extra = format!(
        "[capture]\ndir = \"{}\"\n\
         [providers.graph]\nkind = \"microsoft-graph\"\ncritical = [\"*\"]\n\
         [providers.graph.tenants.acme]\nsecrets = [\"{CLIENT_STATE}\"]\n\
         [handlers.graph]\nurl = \"{}\"\nevents = [\"graph:*\"]\ntimeout = \"2s\"\nsigning_secret = \"{HANDLER_SECRET}\"\n",
        captures.path().display(),
        handler.url
    );
    let app = console_app(backend, &Sink::start(vec![]), &extra).await;
    let body = notification();
    let w = Webhook {
        path: "/webhooks/graph/acme".into(),
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.clone(),
    };
    let (status, answer) = app.send_json(&w).await;
    assert_eq!(
        (status, answer["status"].as_str()),
        (200, Some("accepted")),
        "{answer}"
    );
    let event_id = answer["event_id"].as_str().unwrap().to_owned();
    let expected = redacted(&body);
    assert_eq!(
        String::from_utf8_lossy(&expected)
            .matches("[redacted]")
            .count(),
        3
    );

    // The capture file.
    let files = json_files(captures.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains(CLIENT_STATE), "{text}");
    let capture: hookline::capture::Capture = serde_json::from_str(&text).unwrap();
    let kept = base64::engine::general_purpose::STANDARD
        .decode(&capture.body_base64)
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&kept),
        String::from_utf8_lossy(&expected)
    );

    // The console's event page and the body download.
    let op = Operator::sign_in(&app).await;
    let page_path = format!("/console/events/graph/acme/{event_id}");
    let (status, page) = op.get(&page_path).await;
    assert_eq!(status, 200, "{page}");
    assert!(!page.contains(CLIENT_STATE), "the page shows the secret");
    assert!(page.contains("[redacted]"));
    let res = op.get_raw(&format!("{page_path}/body")).await;
    assert_eq!(res.status(), 200);
    let downloaded = res.bytes().await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&downloaded),
        String::from_utf8_lossy(&expected)
    );

    // The handler gets what Graph sent.
    let got = handler.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].body, body);
}

backend_tests!(the_client_state_is_redacted_wherever_a_body_is_kept_or_shown);
