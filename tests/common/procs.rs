//! The real binary as separate processes, for tests that kill it: start
//! it with a config (and optional environment), wait until it is ready,
//! post to it, and clean its Redis keys up after the test.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::sink::Sink;
use super::{test_config, AppOptions, Backend, Webhook};

use super::HANDLER_SECRET;

pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// SIGKILL: no shutdown handler runs.
    pub fn kill9(mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn serve(config: &std::path::Path, role: &str, port: u16) -> Proc {
    serve_with(config, role, port, &[])
}

/// [`serve`] with more environment variables (e.g. `FAILPOINTS`).
pub fn serve_with(config: &std::path::Path, role: &str, port: u16, env: &[(&str, &str)]) -> Proc {
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
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            // Beside the config, for a failing test to show.
            .stderr(log_file(config, role))
            .spawn()
            .unwrap(),
    )
}

/// `ROLE-N.log` beside the config: a new file per process started.
fn log_file(config: &std::path::Path, role: &str) -> std::fs::File {
    let dir = config.parent().expect("a config in a directory");
    let n = (0..)
        .find(|n| !dir.join(format!("{role}-{n}.log")).exists())
        .expect("a free name");
    std::fs::File::create(dir.join(format!("{role}-{n}.log"))).unwrap()
}

/// Every process log beside the config, for a failure message.
pub fn logs(config: &std::path::Path) -> String {
    let dir = config.parent().expect("a config in a directory");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| {
            format!(
                "--- {}\n{}",
                p.display(),
                std::fs::read_to_string(p).unwrap_or_default()
            )
        })
        .collect()
}

pub async fn wait_ready(port: u16) {
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

pub async fn post(port: u16, w: &Webhook) -> (u16, serde_json::Value) {
    try_post(port, w).await.expect("an answer")
}

/// `None` when the connection failed or closed without an answer (the
/// process died).
pub async fn try_post(port: u16, w: &Webhook) -> Option<(u16, serde_json::Value)> {
    let mut req = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}{}", w.path))
        .body(w.body.clone());
    for (k, v) in &w.headers {
        req = req.header(k, v);
    }
    let res = req.send().await.ok()?;
    Some((res.status().as_u16(), res.json().await.unwrap_or_default()))
}

/// One series of the `/metrics` of the process on `port`.
pub async fn metric(port: u16, series: &str) -> f64 {
    let text = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
        .await
        .expect("metrics")
        .text()
        .await
        .unwrap();
    super::series_value(&text, series)
}

/// Write the test config with one handler pointing at `sink`.
pub async fn config(
    backend: Backend,
    dir: &std::path::Path,
    sink: &Sink,
    delivery: &str,
) -> (std::path::PathBuf, super::StoreGuard, KeysGuard) {
    config_with(AppOptions::new(backend), dir, sink, delivery).await
}

/// [`config`] from options of the caller's.
pub async fn config_with(
    mut opts: AppOptions,
    dir: &std::path::Path,
    sink: &Sink,
    delivery: &str,
) -> (std::path::PathBuf, super::StoreGuard, KeysGuard) {
    let backend = opts.backend;
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
pub struct KeysGuard {
    pub settings: hookline::config::Settings,
    backend: Backend,
}

impl Drop for KeysGuard {
    fn drop(&mut self) {
        super::drop_keys(&self.settings, self.backend);
    }
}
