//! Per-handler `forward_headers` (issue 10): a handler gets the provider's
//! own headers it names, as they arrived, on every attempt; another handler
//! of the same event gets none of them.

use crate::common;

use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, Webhook};

use common::HANDLER_SECRET;

fn handler(name: &str, sink: &Sink, forward: &str) -> String {
    format!(
        "[handlers.{name}]\nurl = \"{}\"\nevents = [\"github:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"2s\"\n{forward}\n",
        sink.url
    )
}

async fn each_handler_gets_the_headers_it_forwards(backend: Backend) {
    // The first attempt fails: the retry must carry them too.
    let ci = Sink::start(vec![Reply::Status(503)]);
    let audit = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "{}{}[delivery]\npoll_interval = \"20ms\"\nbackoff_base = \"50ms\"\nbackoff_max = \"100ms\"\n",
        handler(
            "ci",
            &ci,
            "forward_headers = [\"X-GitHub-Delivery\", \"x-github-hook-id\", \"X-Absent\"]"
        ),
        handler("audit", &audit, "")
    );
    let app = spawn_app_with(opts).await;
    let mut w = Webhook::new("github", "acme", "delivery-fw", "push", "x");
    w.headers.push(("X-GitHub-Hook-ID".into(), "4242".into()));
    assert_eq!(app.send_json(&w).await.1["status"], "accepted");

    let got = ci.wait_for(2, Duration::from_secs(10)).await;
    for attempt in &got {
        assert_eq!(attempt.header("x-github-delivery"), Some("delivery-fw"));
        assert_eq!(attempt.header("x-github-hook-id"), Some("4242"));
        assert_eq!(attempt.header("x-absent"), None);
        // Not named: not forwarded, the signature least of all.
        assert_eq!(attempt.header("x-hub-signature-256"), None);
        assert_eq!(attempt.header("x-github-event"), None);
    }
    let other = audit.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(other[0].header("x-github-delivery"), None);
    assert_eq!(other[0].header("x-github-hook-id"), None);
    assert_eq!(other[0].header("x-hookline-event-id"), Some("delivery-fw"));
}

backend_tests!(each_handler_gets_the_headers_it_forwards);
