//! `server.ops_listen`: `/metrics`, `/admin` and `/console` on a listener of
//! their own, and not on the webhook listener providers reach.

use std::process::Command;

use crate::common::procs::{config, free_port, post, serve_with, wait_ready};
use crate::common::sink::Sink;
use crate::common::{Backend, Webhook};

const TOKEN: &str = "ops-admin-token-0123456789";

async fn status(client: &reqwest::Client, url: &str) -> u16 {
    client
        .get(url)
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn operators_routes_are_served_on_the_ops_listener_only(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(Vec::new());
    let admin = format!("[admin]\ntoken = \"{TOKEN}\"\n");
    let (config, _db, _keys) = config(backend, dir.path(), &sink, &admin).await;
    let (port, ops_port) = (free_port(), free_port());
    let ops_addr = format!("127.0.0.1:{ops_port}");
    let _proc = serve_with(
        &config,
        "all",
        port,
        &[("HOOKLINE__SERVER__OPS_LISTEN", ops_addr.as_str())],
    );
    wait_ready(port).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let web = format!("http://127.0.0.1:{port}");
    let ops = format!("http://{ops_addr}");

    // Webhooks on the webhook listener.
    let w = Webhook::new("stripe", "acme", "evt_ops_1", "charge.succeeded", "x");
    assert_eq!(post(port, &w).await.0, 200);

    for path in [
        "/metrics",
        "/admin/dead-letters",
        "/admin/events/stripe/acme/evt_ops_1",
        "/console",
        "/console/sign-in",
        // The path the router matches, not the raw one.
        "/%61dmin/dead-letters",
        "/%6detrics",
    ] {
        assert_eq!(
            status(&client, &format!("{web}{path}")).await,
            404,
            "{path} on the webhook listener"
        );
    }
    for path in ["/healthz", "/readyz"] {
        assert_eq!(
            status(&client, &format!("{web}{path}")).await,
            200,
            "{path}"
        );
        assert_eq!(
            status(&client, &format!("{ops}{path}")).await,
            200,
            "{path}"
        );
    }

    // The operators' routes on theirs, the webhooks not.
    let metrics = client
        .get(format!("{ops}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains(
            "hookline_requests_total{outcome=\"accepted\",provider=\"stripe\",tenant=\"acme\"} 1"
        ),
        "{metrics}"
    );
    assert_eq!(
        status(&client, &format!("{ops}/admin/dead-letters")).await,
        200
    );
    assert_eq!(
        status(
            &client,
            &format!("{ops}/admin/events/stripe/acme/evt_ops_1")
        )
        .await,
        200
    );
    assert_eq!(
        status(&client, &format!("{ops}/console/sign-in")).await,
        200
    );
    let w2 = Webhook::new("stripe", "acme", "evt_ops_2", "charge.succeeded", "x");
    assert_eq!(
        post(ops_port, &w2).await.0,
        404,
        "no webhook on the operators' listener"
    );
}

backend_tests!(operators_routes_are_served_on_the_ops_listener_only);

#[test]
fn ops_listen_must_differ_from_listen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hookline.toml");
    std::fs::write(
        &path,
        format!(
            "[server]\nlisten = \"127.0.0.1:8080\"\nops_listen = \"127.0.0.1:8080\"\n\
             [store]\nkind = \"embedded\"\npath = \"{}\"\n\
             [providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.acme]\nsecrets = [\"whsec_x\"]\n",
            dir.path().join("h.db").display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["check-config", "--config", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("server.ops_listen: must differ from server.listen"),
        "{err}"
    );
}
