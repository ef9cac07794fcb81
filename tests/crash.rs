//! Crashes, with the real binary and SIGKILL: nothing acknowledged is lost.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::sink::{Reply, Sink};
use common::{test_config, AppOptions, Backend, Webhook};

const HANDLER_SECRET: &str = "whsec_aGFuZGxlci1zaWduaW5nLWtleS1tYXRlcmlhbA==";

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// SIGKILL: no shutdown handler runs.
    fn kill9(mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn serve(config: &std::path::Path, role: &str, port: u16) -> Proc {
    Proc(
        Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args([
                "serve",
                "--role",
                role,
                "--config",
                config.to_str().unwrap(),
            ])
            .env("HOOKLINE__SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

async fn wait_ready(port: u16) {
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if client
            .get(format!("http://127.0.0.1:{port}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("hookline on {port} never became ready");
}

async fn post(port: u16, w: &Webhook) -> (u16, serde_json::Value) {
    let mut req = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}{}", w.path))
        .body(w.body.clone());
    for (k, v) in &w.headers {
        req = req.header(k, v);
    }
    let res = req.send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or_default())
}

/// Write the test config with one handler pointing at `sink`.
async fn config(
    backend: Backend,
    dir: &std::path::Path,
    sink: &Sink,
    delivery: &str,
) -> (std::path::PathBuf, common::StoreGuard, KeysGuard) {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[handlers.billing]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\ntimeout = \"1500ms\"\n\n{delivery}",
        sink.url
    );
    let (text, db) = test_config(&opts, dir).await;
    let path = dir.join("hookline.toml");
    std::fs::write(&path, &text).unwrap();
    if backend != Backend::Embedded {
        let out = Command::new(env!("CARGO_BIN_EXE_hookline"))
            .args(["migrate", "--config", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let keys = KeysGuard {
        settings: hookline::config::from_toml_str("t.toml", &text).unwrap(),
        backend,
    };
    (path, db, keys)
}

/// Deletes the run's Redis keys when the test ends (the processes it
/// killed left them in the shared Redis).
struct KeysGuard {
    settings: hookline::config::Settings,
    backend: Backend,
}

impl Drop for KeysGuard {
    fn drop(&mut self) {
        common::drop_keys(&self.settings, self.backend);
    }
}

async fn receiver_killed_after_2xx_delivers_after_restart(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Sink::start(vec![]);
    let (config, _db, _keys) = config(
        backend,
        dir.path(),
        &sink,
        "[delivery]\npoll_interval = \"50ms\"\n",
    )
    .await;
    let port = free_port();
    // A receiver alone: it answers, it never delivers.
    let receiver = serve(&config, "receiver", port);
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_kill9", "charge.succeeded", "x");
    let (status, body) = post(port, &w).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    receiver.kill9();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        sink.received().is_empty(),
        "nothing was delivered before the kill"
    );
    // Restarted, the process finds the recorded delivery and sends it.
    let port = free_port();
    let _restarted = serve(&config, "all", port);
    wait_ready(port).await;
    let got = sink.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].body, w.body);
    // And the provider's retry is a duplicate, not a second delivery.
    let (_, body) = post(port, &w).await;
    assert_eq!(body["status"], "duplicate");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1);
}

async fn worker_killed_mid_delivery_has_its_lease_recovered(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    // The first call hangs: the worker is killed while it waits.
    let sink = Sink::start(vec![Reply::Slow(Duration::from_secs(30), 200)]);
    let (config, _db, _keys) = config(
        backend,
        dir.path(),
        &sink,
        "[delivery]\npoll_interval = \"50ms\"\nlease = \"2s\"\n",
    )
    .await;
    let port = free_port();
    let _receiver = serve(&config, "receiver", port);
    wait_ready(port).await;
    let worker = serve(&config, "workers", 0);
    let w = Webhook::new("stripe", "acme", "evt_midway", "charge.succeeded", "x");
    assert_eq!(post(port, &w).await.0, 200);
    sink.wait_for(1, Duration::from_secs(10)).await;
    worker.kill9();
    let killed_at = std::time::Instant::now();
    // Another worker takes the delivery over once the dead one's lease ends.
    let _worker2 = serve(&config, "workers", 0);
    let got = sink.wait_for(2, Duration::from_secs(15)).await;
    assert_eq!(got[1].body, w.body);
    assert_eq!(
        got[1].header("webhook-id"),
        got[0].header("webhook-id"),
        "same idempotency key"
    );
    assert!(killed_at.elapsed() < Duration::from_secs(10));
}

backend_tests!(
    receiver_killed_after_2xx_delivers_after_restart,
    worker_killed_mid_delivery_has_its_lease_recovered,
);
